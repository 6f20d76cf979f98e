"""A real daphne (``manage.py serve``, as systemd and ``make run-prod`` run it) stopped
with SIGTERM, as a deploy stops it: its pages are told to come back (1012)."""

from __future__ import annotations

import signal
from contextlib import ExitStack

import pytest
from websockets.exceptions import ConnectionClosed

from bench.processes import free_port, running, serve_args, site_env, wait_for_port
from games import services
from tests.factories import make_table, seated_users
from tests.games.test_live_server import Server, frames_until, open_socket

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

SERVICE_RESTART = 1012  # htmx's ws extension reconnects on it


def test_sigterm_closes_every_table_socket_with_service_restart_then_exits(tmp_path):
    table = make_table(players=2, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    path = f"/ws/tables/{table.pk}/"
    port, log = free_port(), tmp_path / "server.log"
    with ExitStack() as stack:
        proc = stack.enter_context(running(serve_args(port), env=site_env(tmp_path), log=log))
        wait_for_port(port, proc=proc, log=log)
        server = Server(url=f"http://127.0.0.1:{port}", ws=f"ws://127.0.0.1:{port}", log=log)
        sockets = [open_socket(server, path, user, stack=stack) for user in seated_users(table)]
        sockets.append(open_socket(server, path, stack=stack))  # a spectator
        for ws in sockets:
            frames_until(ws, 'id="seats"')

        proc.send_signal(signal.SIGTERM)

        for ws in sockets:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=15)
            assert closed.value.rcvd is not None, "the socket dropped without a close frame"
            assert closed.value.rcvd.code == SERVICE_RESTART
        assert proc.wait(20) == 0
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-4000:]
