"""The production shape (`make run-prod`, deploy/run_prod.py) as a player meets it: nginx in
front of two daphnes, with the Celery workers and beat, on the test database and the real
Redis, reached only through nginx."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
from django.conf import settings

from bench.processes import base_env, database_url_for_processes, free_port, running
from games import services
from games.models import Hand
from tests.factories import PASSWORD, make_table, make_user, seated_users
from tests.games.test_live_server import frames_until, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis, pytest.mark.nginx]

TABLES_FOR_SPREAD = 20  # all of them hashed onto one of two daphnes: one chance in 2**19


@dataclass(frozen=True)
class Prod:
    url: str  # nginx, the only address a player uses
    ws: str
    daphnes: tuple[str, str]  # host:port, as nginx names them in X-Upstream
    static_root: Path


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of a GET (an error status is an answer too)."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def wait_until_healthy(prod: Prod, proc, log: Path, timeout: float = 180) -> None:
    """Until nginx answers /healthz of each daphne with 200 (migrate and collectstatic
    run first); fail with the log if run-prod ends or it takes too long."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up and proc.poll() is None:
        try:
            if all(get(f"{prod.url}/healthz/daphne/{n}")[0] == 200 for n in (1, 2)):
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"run-prod never became healthy; log:\n{log.read_text()[-6000:]}")


@pytest.fixture(scope="module")
def prod(django_db_setup, tmp_path_factory) -> Iterator[Prod]:
    """make run-prod's script on free ports, its own var folder, the test database."""
    var_dir = tmp_path_factory.mktemp("prod")
    port, first, second = free_port(), free_port(), free_port()
    env = base_env(
        DATABASE_URL=database_url_for_processes(),
        PAN_VAR_DIR=str(var_dir),
        SECRET_KEY=settings.SECRET_KEY,  # the sessions the tests make are signed with it
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    args = [sys.executable, "-m", "deploy.run_prod", "--port", str(port)]
    args += ["--daphne-ports", f"{first},{second}"]
    log = var_dir / "run-prod.log"
    prod = Prod(
        url=f"http://127.0.0.1:{port}",
        ws=f"ws://127.0.0.1:{port}",
        daphnes=(f"127.0.0.1:{first}", f"127.0.0.1:{second}"),
        static_root=var_dir / "static",
    )
    with running(args, env=env, log=log) as proc:
        wait_until_healthy(prod, proc, log)
        yield prod


def test_the_health_check_answers_through_nginx_for_the_site_and_each_daphne(prod):
    status, headers, body = get(f"{prod.url}/healthz")
    assert status == 200
    report = json.loads(body)
    assert report["ok"] is True
    assert {name for name, check in report["checks"].items() if check["ok"]} == {
        "database",
        "channel_layer",
        "broker",
    }
    assert headers["X-Upstream"] in prod.daphnes
    for number, daphne in enumerate(prod.daphnes, start=1):
        status, headers, _body = get(f"{prod.url}/healthz/daphne/{number}")
        assert (status, headers["X-Upstream"]) == (200, daphne)


def test_static_files_are_served_by_nginx_from_the_collected_files(prod):
    manifest = json.loads((prod.static_root / "staticfiles.json").read_text())
    hashed = manifest["paths"]["js/table.js"]
    status, headers, body = get(f"{prod.url}/static/{hashed}")
    assert status == 200
    assert body == (prod.static_root / hashed).read_bytes()
    assert "X-Upstream" not in headers  # no daphne was asked
    assert "immutable" in headers["Cache-Control"]
    status, headers, body = get(f"{prod.url}/static/{hashed}", {"Accept-Encoding": "gzip"})
    assert (status, headers.get("Content-Encoding")) == (200, "gzip")
    assert body == (prod.static_root / f"{hashed}.gz").read_bytes()


def test_a_player_signs_in_through_nginx(prod):
    """The login form's CSRF check compares the Origin, port included, with the Host that
    nginx passes on."""
    user = make_user()
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{prod.url}/accounts/login/", timeout=10) as response:
        page = response.read().decode()
    token = page.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    form = f"csrfmiddlewaretoken={token}&login={user.username}&password={PASSWORD}"
    request = urllib.request.Request(
        f"{prod.url}/accounts/login/",
        data=form.encode(),
        headers={"Origin": prod.url, "Referer": f"{prod.url}/accounts/login/"},
    )
    with opener.open(request, timeout=10) as response:
        assert response.status == 200
        assert response.url == f"{prod.url}/"  # redirected home, signed in
    assert settings.SESSION_COOKIE_NAME in {cookie.name for cookie in jar}


def test_a_signed_in_player_plays_through_nginx_and_both_players_see_the_move(prod):
    table = make_table(players=2, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    path = f"/ws/tables/{table.pk}/"
    with ExitStack() as stack:
        players = {u.pk: open_socket(prod, path, u, stack=stack) for u in seated_users(table)}
        for ws in players.values():
            frames_until(ws, 'id="seats"')
        mover = hand.match.players.get(seat=hand.engine_state.to_move).user
        players[mover.pk].send(json.dumps({"action": "play", "cards": "9H", "version": "1"}))
        for ws in players.values():
            frames_until(ws, f'data-hand="{hand.pk}" data-version="2"')


def test_every_socket_of_a_table_lands_on_one_daphne_and_the_tables_spread_over_both(prod):
    landed: dict[int, set[str]] = {}
    with ExitStack() as stack:
        for _ in range(TABLES_FOR_SPREAD):
            table = make_table(players=2)
            path = f"/ws/tables/{table.pk}/"
            sockets = [open_socket(prod, path, user, stack=stack) for user in seated_users(table)]
            sockets.append(open_socket(prod, path, stack=stack))  # a visitor watching
            for ws in sockets:
                frames_until(ws, 'id="seats"')
            landed[table.pk] = {ws.response.headers["X-Upstream"] for ws in sockets}
    assert all(len(daphnes) == 1 for daphnes in landed.values()), landed
    assert set().union(*landed.values()) == set(prod.daphnes)
