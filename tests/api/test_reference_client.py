"""The reference client (``python -m pan_bot``) plays a whole match through the HTTP API
against a built-in bot, on the real stack: daphne, a Celery worker (the built-in bot's
moves, the next hands), PostgreSQL and Redis."""

from __future__ import annotations

import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

from games import services
from games.engine import Rules
from games.models import Action, Match, MatchPlayer
from tests.api.helpers import bot_account, token_for
from tests.processes import (
    base_env,
    celery_worker_args,
    database_url_for_processes,
    free_port,
    running,
    wait_for_log,
    wait_for_port,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

MATCH_SECONDS = 600  # an upper bound; a match of these short hands takes about a minute
# Hands end at their tenth action (most cards lose): a match is a few hands long, not the
# many minutes of full hands at the built-in bot's human-like pace.
SHORT_HANDS = Rules(max_actions=10, max_actions_result="most_cards")


@dataclass(frozen=True)
class Site:
    url: str
    env: dict[str, str]
    logs: Path


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    port = free_port()
    env = base_env(
        DATABASE_URL=database_url_for_processes(),
        DEBUG="false",
        HTTPS="false",
        PAN_VAR_DIR=str(tmp_path),
        SECRET_KEY=settings.SECRET_KEY,
    )
    serve = [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]
    server_log, worker_log = tmp_path / "server.log", tmp_path / "worker.log"
    with (
        running(serve, env=env, log=server_log) as server,
        running(celery_worker_args(), env=env, log=worker_log) as worker,
    ):
        wait_for_port(port, proc=server, log=server_log)
        wait_for_log(worker_log, "ready.", proc=worker)
        yield Site(url=f"http://127.0.0.1:{port}", env=env, logs=tmp_path)


def test_the_reference_client_plays_a_whole_match_against_a_built_in_bot(site: Site):
    bot = bot_account("refbot")
    token = token_for(bot)
    table = services.table_create(
        owner=bot, name="", rules=SHORT_HANDS, seats=2, base_seconds=300, increment_seconds=5
    )
    services.table_add_bot(table_id=table.pk, by=bot, position=1, level="greedy")

    client_log = site.logs / "pan_bot.log"
    command = [
        sys.executable,
        "-m",
        "pan_bot",
        *("--token", token, "--url", site.url, "--strategy", "greedy", "--games", "1"),
    ]
    with running(command, env=site.env, log=client_log) as client:
        wait_for_log(client_log, "playing as refbot", proc=client)
        services.match_start(table_id=table.pk, by=bot)
        client.wait(MATCH_SECONDS)
    log = client_log.read_text()
    assert client.returncode == 0, log[-3000:]

    match = Match.objects.get(table=table)
    assert match.status == Match.Status.FINISHED, log[-3000:]
    seat = MatchPlayer.objects.get(match=match, user=bot).seat
    moves = Action.objects.filter(hand__match=match, seat=seat)
    # The client made every move of its seat: it never ran out of time.
    assert moves.exists()
    assert not moves.filter(move__type="timeout").exists()
    assert "moves played, 1 matches over" in log
    # The API's docs and schema are served by the same server.
    with urllib.request.urlopen(f"{site.url}/api/openapi.json", timeout=10) as response:
        assert b"/api/bot/game/{table_id}/move" in response.read()
