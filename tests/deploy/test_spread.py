"""Tables spread over the daphnes again after a restart (``pan_site.spread``), against a
real nginx: the ring the daphnes predict is the one nginx uses, and a table's sockets
that landed on the wrong daphne while its own was down go back to it once it listens."""

from __future__ import annotations

import signal
import time
import urllib.error
import urllib.request
from contextlib import ExitStack

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from bench.processes import free_port, running, serve_args, site_env, wait_for_port
from deploy.nginx import write_local
from games import services
from pan_site.spread import HANDOVER_SPREAD, PROBE_EVERY, SETTLE, NginxRing
from tests.factories import make_table
from tests.games.test_live_server import Server, frames_until, open_socket

SERVICE_RESTART = 1012


def free_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        if (port := free_port()) not in ports:
            ports.append(port)
    return ports


def tried(url: str) -> list[str]:
    """The daphnes nginx tried for ``url``, in order (its X-Upstream header)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            header = answer.headers["X-Upstream"]
    except urllib.error.HTTPError as error:
        header = error.headers["X-Upstream"]
    return [address.strip() for address in header.split(",")]


@pytest.mark.nginx
def test_the_ring_the_daphnes_predict_is_the_one_nginx_uses(tmp_path):
    # Three daphnes, none listening: nginx tries each table's own first, then the next
    # ones on the ring, and says so in X-Upstream.
    daphnes = [f"127.0.0.1:{port}" for port in free_ports(3)]
    port = free_port()
    nginx = write_local(
        tmp_path / "nginx", port=port, daphnes=daphnes, static_root=tmp_path, worker_processes="1"
    )
    ring = NginxRing(daphnes)
    with running(nginx.command(), env={}, log=tmp_path / "nginx.out") as proc:
        wait_for_port(port, proc=proc, log=tmp_path / "nginx.out")
        first = {t: tried(f"{nginx.url}/ws/tables/{t}/")[0] for t in range(1, 121)}
    assert set(first.values()) == set(daphnes)
    assert first == {t: ring.server_for(f"/ws/tables/{t}/") for t in first}


def through(nginx_url: str, path: str, user=None, *, stack: ExitStack) -> ClientConnection:
    server = Server(url=nginx_url, ws=nginx_url.replace("http", "ws", 1), log=None)
    return open_socket(server, path, user, stack=stack)


def upstream(ws: ClientConnection) -> str:
    """The daphne that took the socket (the last nginx tried)."""
    return ws.response.headers["X-Upstream"].rsplit(",", 1)[-1].strip()


def closed_with(ws: ClientConnection, timeout: float) -> int | None:
    """The close code the server sends within ``timeout`` s (answering pings meanwhile),
    or None when the socket stays open."""
    give_up = time.monotonic() + timeout
    while (remaining := give_up - time.monotonic()) > 0:
        try:
            frames_until(ws, r"\Z.", timeout=remaining)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None
        except AssertionError:
            return None
    return None


@pytest.mark.nginx
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_tables_sockets_go_back_to_its_own_daphne_once_it_listens_again(tmp_path):
    a_port, b_port, nginx_port = free_ports(3)
    a, b = f"127.0.0.1:{a_port}", f"127.0.0.1:{b_port}"
    ring = NginxRing([a, b])
    tables = {}
    while len(tables) < 2:  # one table of each daphne
        table = make_table(players=2, base_seconds=600)
        tables.setdefault(ring.server_for(f"/ws/tables/{table.pk}/"), table)
    for table in tables.values():
        services.match_start(table_id=table.pk, by=table.owner)
    env = site_env(tmp_path, DAPHNE_UPSTREAMS=f"{a},{b}")
    nginx = write_local(
        tmp_path / "nginx",
        port=nginx_port,
        daphnes=[a, b],
        static_root=tmp_path,
        worker_processes="1",
    )
    with ExitStack() as stack:
        proc = stack.enter_context(running(nginx.command(), env={}, log=tmp_path / "nginx.out"))
        wait_for_port(nginx_port, proc=proc, log=tmp_path / "nginx.out")
        logs = {port: tmp_path / f"daphne-{port}.log" for port in (a_port, b_port)}
        daphne_a = stack.enter_context(running(serve_args(a_port), env=env, log=logs[a_port]))
        wait_for_port(a_port, proc=daphne_a, log=logs[a_port])
        daphne_b = running(serve_args(b_port), env=env, log=logs[b_port])
        proc_b = daphne_b.__enter__()
        wait_for_port(b_port, proc=proc_b, log=logs[b_port])
        path_a, path_b = (f"/ws/tables/{tables[name].pk}/" for name in (a, b))
        on_a = through(nginx.url, path_a, stack=stack)
        frames_until(on_a, 'id="seats"')
        assert upstream(on_a) == a

        # B stops as a deploy stops it: its table's page comes back through nginx to A.
        proc_b.send_signal(signal.SIGTERM)
        assert proc_b.wait(30) == 0
        daphne_b.__exit__(None, None, None)
        moved = through(nginx.url, path_b, stack=stack)
        frames_until(moved, 'id="seats"')
        assert upstream(moved) == a

        # B listens again: A hands B's table back (1012), and only it; the page comes
        # back to B.
        proc_b = stack.enter_context(running(serve_args(b_port), env=env, log=logs[b_port]))
        wait_for_port(b_port, proc=proc_b, log=logs[b_port])
        assert closed_with(moved, SETTLE + HANDOVER_SPREAD + 4 * PROBE_EVERY + 10) == (
            SERVICE_RESTART
        )
        back = through(nginx.url, path_b, stack=stack)
        frames_until(back, 'id="seats"')
        assert upstream(back) == b
        assert closed_with(on_a, 1.0) is None  # A's own table stays where it is
    for log in logs.values():
        text = log.read_text(errors="replace")
        assert "Traceback" not in text, text[-3000:]
    assert "Spreading the tables: handing 1 over" in logs[a_port].read_text()
