"""A real daphne under a crowd of pages that give up while their sockets open: each
client sends the upgrade and hangs up at a random moment of the handshake (while the
server reads the session and the table, or as the answer arrives). None of it may
leave a traceback in daphne's log, and the server serves on."""

from __future__ import annotations

import asyncio
import random
import time
from contextlib import ExitStack, suppress

import pytest
from django.conf import settings
from django.test import Client
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection

from bench.processes import free_port, running, serve_args, site_env, wait_for_port
from games import services
from tests.factories import make_table, seated_users
from tests.games.test_live_server import Server, frames_until, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

CLIENTS = 150
AT_ONCE = 50
LONGEST_WAIT = 3.0  # s after the upgrade at most: some hear the answer before leaving
REOPEN_WITHIN = 90  # s: this busy host takes tens of seconds over the crowd's handshakes
DAPHNE_REAPS_EVERY = 1  # second: its application checker logs a failed application


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def upgrade_then_give_up(port: int, path: str, cookie: str, wait: float) -> None:
    """Send a websocket upgrade, wait for the answer at most ``wait`` s, then close the
    TCP connection without a close frame."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n"
            f"Cookie: {cookie}\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    with suppress(TimeoutError):
        await asyncio.wait_for(reader.read(1 << 16), wait)
    writer.transport.abort()


async def crowd(port: int, paths_and_cookies: list[tuple[str, str]], seed: int) -> None:
    chance = random.Random(seed)
    slots = asyncio.Semaphore(AT_ONCE)

    async def one(path: str, cookie: str) -> None:
        async with slots:
            await upgrade_then_give_up(port, path, cookie, chance.uniform(0, LONGEST_WAIT))

    await asyncio.gather(
        *(one(*chance.choice(paths_and_cookies)) for _ in range(CLIENTS)),
    )


def open_again(server: Server, path: str, stack: ExitStack) -> ClientConnection:
    """A visitor's socket, tried again as the page does while the crowd's sockets still
    count against the address's budget (their applications finish their handshakes
    before they hear that the client left)."""
    give_up = time.monotonic() + REOPEN_WITHIN
    while True:
        try:
            return open_socket(server, path, stack=stack)
        except InvalidStatus:
            if time.monotonic() > give_up:
                raise
            time.sleep(1)


def test_a_crowd_giving_up_during_the_handshake_leaves_no_traceback(tmp_path):
    tables = [make_table(players=2, base_seconds=600) for _ in range(3)]
    for table in tables:
        services.match_start(table_id=table.pk, by=table.owner)
    paths_and_cookies = [
        (f"/ws/tables/{table.pk}/", session_cookie(user))
        for table in tables
        for user in seated_users(table)
    ]
    paths_and_cookies += [(f"/ws/tables/{tables[0].pk}/", ""), ("/ws/lobby/", "")]
    port, log = free_port(), tmp_path / "server.log"
    with running(serve_args(port), env=site_env(tmp_path), log=log) as proc:
        wait_for_port(port, proc=proc, log=log)
        asyncio.run(crowd(port, paths_and_cookies, seed=41))
        server = Server(url=f"http://127.0.0.1:{port}", ws=f"ws://127.0.0.1:{port}", log=log)
        with ExitStack() as stack:  # the server still serves, once the crowd has gone
            frames_until(open_again(server, paths_and_cookies[0][0], stack), 'id="seats"')
        # daphne reaps ended applications, and logs their exceptions, once a second.
        time.sleep(DAPHNE_REAPS_EVERY * 2)
    text = log.read_text(errors="replace")
    assert "Exception inside application" not in text, text[-6000:]
    assert "Traceback" not in text, text[-6000:]
