"""A real daphne process on the real Redis layer: what idle sockets and a health check
meet in production (the consumer tests run the application in-process)."""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bench.processes import free_port, running, serve_args, site_env, wait_for_port
from games import services
from games.models import Hand
from tests.factories import make_table, seated_users

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

HANDSHAKES_GIVEN_UP = 20
DAPHNE_REAPS_EVERY = 1  # second: its application checker
IDLE_SECONDS = 30  # six times channels_redis's 5 s blocking read, where sockets used to die


@dataclass(frozen=True)
class Server:
    url: str
    ws: str
    log: Path


@pytest.fixture
def server(tmp_path) -> Iterator[Server]:
    port = free_port()
    log = tmp_path / "server.log"
    with running(serve_args(port), env=site_env(tmp_path), log=log) as proc:
        wait_for_port(port, proc=proc, log=log)
        yield Server(url=f"http://127.0.0.1:{port}", ws=f"ws://127.0.0.1:{port}", log=log)


def open_socket(server: Server, path: str, user=None, *, stack: ExitStack) -> ClientConnection:
    headers = {}
    if user is not None:
        client = Client()
        client.force_login(user)
        headers["Cookie"] = f"sessionid={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return stack.enter_context(
        connect(
            f"{server.ws}{path}", origin=server.url, additional_headers=headers, open_timeout=10
        )
    )


def frames_until(ws: ClientConnection, pattern: str, timeout: float = 10) -> list[str]:
    """Frames until one matches ``pattern``, answering pings as the page does."""
    frames, give_up = [], time.monotonic() + timeout
    while True:
        remaining = give_up - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no frame matched {pattern!r}")
        try:
            frame = ws.recv(timeout=remaining)
        except TimeoutError:
            raise AssertionError(f"no frame matched {pattern!r}: {frames!r}"[:3000]) from None
        ping = re.search(r'data-ping="([^"]+)"', frame)
        if ping:
            ws.send(json.dumps({"action": "pong", "t": ping.group(1)}))
            continue
        frames.append(frame)
        if re.search(pattern, frame):
            return frames


def test_idle_sockets_stay_open_the_health_check_stays_green_and_moves_still_arrive(server):
    with ExitStack() as stack:
        _idle_then_move(server, stack)


def _idle_then_move(server: Server, stack: ExitStack) -> None:
    table = make_table(players=2, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    path = f"/ws/tables/{table.pk}/"
    players = {u.pk: open_socket(server, path, u, stack=stack) for u in seated_users(table)}
    spectator = open_socket(server, path, stack=stack)
    for ws in (*players.values(), spectator):
        frames_until(ws, 'id="seats"')

    # Idle but for the page's own pings and pongs, as a player thinking.
    give_up = time.monotonic() + IDLE_SECONDS
    while time.monotonic() < give_up:
        for ws in (*players.values(), spectator):
            try:
                frame = ws.recv(timeout=0.2)
            except TimeoutError:
                continue
            except ConnectionClosed as closed:
                raise AssertionError(f"the server closed an idle socket: {closed}") from None
            ping = re.search(r'data-ping="([^"]+)"', frame)
            if ping:
                ws.send(json.dumps({"action": "pong", "t": ping.group(1)}))

    with urllib.request.urlopen(f"{server.url}/healthz", timeout=10) as response:
        assert response.status == 200
        assert json.loads(response.read())["ok"] is True

    mover = hand.match.players.get(seat=hand.engine_state.to_move).user
    players[mover.pk].send(json.dumps({"action": "play", "cards": "9H", "version": "1"}))
    for ws in (*players.values(), spectator):
        frames_until(ws, f'data-hand="{hand.pk}" data-version="2"')


def upgrade_then_hang_up(server: Server, path: str) -> None:
    """A client that sends a websocket upgrade and hangs up before the server accepts it
    (a page closed while its socket opened)."""
    host, port = server.url.removeprefix("http://").split(":")
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Sec-WebSocket-Version: 13\r\nOrigin: {server.url}\r\n\r\n"
    )
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(request.encode())


def test_clients_that_hang_up_during_the_handshake_leave_no_traceback(server):
    table = make_table(players=2, base_seconds=600)
    path = f"/ws/tables/{table.pk}/"
    for _ in range(HANDSHAKES_GIVEN_UP):
        upgrade_then_hang_up(server, path)
    with ExitStack() as stack:  # the server still serves
        frames_until(open_socket(server, path, stack=stack), 'id="seats"')
    # Daphne reaps ended sockets, and logs their exceptions, once a second.
    time.sleep(DAPHNE_REAPS_EVERY * 2)
    log = server.log.read_text(errors="replace")
    assert "Exception inside application" not in log, log[-4000:]
    assert "Traceback" not in log, log[-4000:]
