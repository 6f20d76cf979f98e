"""A fresh web process meets everybody at once: after a deploy every player's page opens
its socket within the same seconds, on a daphne that has served nothing yet."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from bench.processes import free_port, running, serve_args, site_env, wait_for_port
from games import services
from tests.factories import make_table, seated_users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

TABLES = 50  # of four players: 200 sockets
SHOWN_WITHIN = 120  # seconds: a bound for a broken server, never a figure of speed


def players_cookies() -> list[tuple[int, str]]:
    """For each seat of ``TABLES`` tables in play: the table's id and its player's
    session cookie."""
    seats = []
    for _ in range(TABLES):
        table = make_table(players=4, base_seconds=600)
        services.match_start(table_id=table.pk, by=table.owner)
        for user in seated_users(table):
            client = Client()
            client.force_login(user)
            cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
            seats.append((table.pk, f"{settings.SESSION_COOKIE_NAME}={cookie}"))
    return seats


async def open_and_see_table(port: int, table_id: int, cookie: str) -> str:
    """Open a player's socket; what it came to: "table" (shown his table and his hand),
    or how it failed."""
    try:
        async with connect(
            f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": cookie},
            open_timeout=SHOWN_WITHIN,
        ) as ws:
            seen = ""
            async with asyncio.timeout(SHOWN_WITHIN):
                while not ('id="table-status"' in seen and 'id="my-hand"' in seen):
                    seen += str(await ws.recv())
            notice = re.search(r'id="notice"[^>]*>([^<]+)<', seen)
            return f"refused: {notice.group(1)}" if notice else "table"
    except InvalidStatus as exc:
        return f"HTTP {exc.response.status_code}"
    except Exception as exc:  # counted by kind: the assertion shows what went wrong
        return type(exc).__name__


def test_two_hundred_players_opening_at_once_on_a_fresh_process_all_see_their_table(tmp_path):
    seats = players_cookies()
    port, log = free_port(), tmp_path / "server.log"
    with running(serve_args(port), env=site_env(tmp_path), log=log) as proc:
        wait_for_port(port, proc=proc, log=log, timeout=60)

        async def everybody() -> list[str]:
            return await asyncio.gather(
                *(open_and_see_table(port, table_id, cookie) for table_id, cookie in seats)
            )

        outcomes = asyncio.run(everybody())
    failed = [outcome for outcome in outcomes if outcome != "table"]
    assert not failed, f"{len(failed)} of {len(seats)}: {sorted(set(failed))}"
    assert "Traceback" not in Path(log).read_text(errors="replace")


def test_a_fresh_process_has_its_urls_and_views_loaded_before_it_listens():
    """The first link a fresh process draws (in the first socket's table) does not import
    the URL configuration and every view while the other sockets wait."""
    script = (
        "import sys, django; django.setup(set_prefix=False); "
        "loaded = lambda: sorted(m for m in ('pan_site.urls', 'games.views') if m in sys.modules); "
        "before = loaded(); "
        "from pan_site.warmup import warm_up; warm_up(); "
        "print(before, loaded())"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["[]", "['games.views',", "'pan_site.urls']"]
