"""Tables spread over the daphnes again after a restart or a rolling deploy.

nginx sends a table's sockets to one daphne, chosen by the consistent hash of their
request URI (``hash $request_uri consistent``, deploy/nginx-site.conf); a handshake that
finds that daphne down goes on to the next one on the ring. So while a daphne is stopped
its tables' sockets land on the others, and they stay there after it listens again:
after a rolling deploy every socket sits on the daphne restarted first.

Each daphne therefore watches the others (``Spreader``): a TCP connect to each of
``DAPHNE_UPSTREAMS`` every ``PROBE_EVERY`` seconds, which is what nginx sees of them.
Once every daphne listens again after one was seen down, and has for ``SETTLE`` seconds
(a rolling deploy stops the next daphne as soon as the last listens again, and a table
moved then would move twice; and the daphne restarted first has just taken the last
one's sockets, a storm it should be through first), it closes with 1012 ("service
restart") the sockets of each table whose hash now names another daphne (``NginxRing``),
a table's sockets together, the tables spread over ``HANDOVER_SPREAD`` seconds. The
pages reconnect by themselves on 1012 (htmx's ws extension, after a jittered pause), and
nginx sends them to the table's own daphne: a stream of reconnects (some 25 a second for
250 tables on two daphnes), not a second storm on a daphne that has only just started.
A daphne seen down meanwhile stops the handover: the ring's choices are changing again.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import random
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

logger = logging.getLogger(__name__)

POINTS_PER_SERVER = 160  # nginx's, for a server of weight 1
PROBE_EVERY = 1.0  # seconds between two looks at the other daphnes
PROBE_TIMEOUT = 0.5  # a daphne that does not accept within this is down
SETTLE = 10.0  # seconds every daphne must have listened before tables move
HANDOVER_SPREAD = 20.0  # seconds over which the tables to move are handed over
HANDOVER_STEPS = 40
CLOSE_SERVICE_RESTART = 1012
TABLE_PATH = b"/ws/tables/"


def split_server(server: str) -> tuple[str, str]:
    """``host:port`` as nginx splits a server's name for its hash: the port is what
    follows the last colon when it is all digits, else there is none."""
    host, colon, port = server.rpartition(":")
    if colon and port.isdigit():
        return host, port
    return server, ""


class NginxRing:
    """nginx's consistent hash ring (``ngx_http_upstream_hash_module``) over ``servers``,
    named as the upstream block names them: each server has 160 points, the first
    ``crc32(host \\0 port prev)`` with ``prev`` 0, each next one chained on the last
    (four bytes, little-endian); a key goes to the first point at or after its crc32,
    round the ring."""

    def __init__(self, servers: Sequence[str]) -> None:
        if not servers:
            raise ValueError("a ring needs at least one server")
        points: dict[int, str] = {}
        for server in servers:
            host, port = split_server(server)
            base = zlib.crc32(host.encode() + b"\0" + port.encode())
            previous = 0
            for _ in range(POINTS_PER_SERVER):
                point = zlib.crc32(previous.to_bytes(4, "little"), base)
                points.setdefault(point, server)
                previous = point
        self._hashes = sorted(points)
        self._servers = [points[point] for point in self._hashes]

    def server_for(self, key: str | bytes) -> str:
        """The server nginx chooses for ``key`` while every server is up."""
        raw = key.encode() if isinstance(key, str) else key
        index = bisect.bisect_left(self._hashes, zlib.crc32(raw))
        return self._servers[index % len(self._servers)]


def request_uri(protocol: Any) -> bytes:
    """What nginx hashed for a websocket daphne holds: its path (a table's page opens
    ``/ws/tables/<id>/`` with no query string, so the path is the whole request URI)."""
    return protocol.path


def elsewhere(protocols: Iterable[Any], ring: NginxRing, me: str) -> list[list[Any]]:
    """The open table sockets that nginx now sends to another daphne than ``me``, a
    table's together."""
    tables: dict[bytes, list[Any]] = {}
    for protocol in protocols:
        path = getattr(protocol, "path", b"")
        if path.startswith(TABLE_PATH):
            tables.setdefault(request_uri(protocol), []).append(protocol)
    return [sockets for uri, sockets in tables.items() if ring.server_for(uri) != me]


async def listens(server: str, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether ``server`` (host:port) accepts a TCP connection, as nginx would try it."""
    host, port = split_server(server)
    try:
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)), timeout)
    except (OSError, TimeoutError, ValueError):
        return False
    writer.close()
    return True


class Spreader:
    """One daphne's watch over the others, and its handover of the tables that are no
    longer its own (see the module's text). ``sockets`` gives the daphne's open
    websockets; ``close`` closes one with a code."""

    def __init__(
        self,
        upstreams: Sequence[str],
        me: str,
        *,
        sockets: Callable[[], Iterable[Any]],
        close: Callable[[Any, int], None],
        probe: Callable[[str], Any] = listens,
        clock: Callable[[], float] = time.monotonic,
        settle: float = SETTLE,
        spread: float = HANDOVER_SPREAD,
        steps: int = HANDOVER_STEPS,
    ) -> None:
        self.me, self.ring = me, NginxRing(upstreams)
        self.others = [server for server in upstreams if server != me]
        self.sockets, self.close, self.probe, self.clock = sockets, close, probe, clock
        self.settle, self.spread, self.steps = settle, spread, steps
        self.one_was_down = False
        self.all_up_since: float | None = None
        self.handover: asyncio.Task | None = None
        self.handed_over = 0  # tables, since the daphne started

    async def look(self) -> None:
        """One look at the other daphnes; hands the tables over when it is time."""
        up = await asyncio.gather(*(self.probe(server) for server in self.others))
        if not all(up):
            self.one_was_down, self.all_up_since = True, None
            if self.handover is not None and not self.handover.done():
                self.handover.cancel()
                logger.info("Spreading the tables: stopped, a daphne is down again")
            return
        now = self.clock()
        if self.all_up_since is None:
            self.all_up_since = now
        if self.one_was_down and now - self.all_up_since >= self.settle:
            self.one_was_down = False
            self.handover = asyncio.ensure_future(self.hand_over())

    async def hand_over(self) -> None:
        """Close the sockets of the tables nginx now sends elsewhere, a table's
        together, in ``steps`` steps over ``spread`` seconds, in a random order."""
        tables = elsewhere(self.sockets(), self.ring, self.me)
        if not tables:
            return
        random.shuffle(tables)
        logger.info(
            "Spreading the tables: handing %d over to the other daphnes in %.0f s",
            len(tables),
            self.spread,
        )
        size = -(-len(tables) // self.steps)
        for start in range(0, len(tables), size):
            if start:
                await asyncio.sleep(self.spread / self.steps)
            for sockets in tables[start : start + size]:
                for protocol in sockets:
                    self.close(protocol, CLOSE_SERVICE_RESTART)
                self.handed_over += 1

    async def run(self) -> None:
        """Look every ``PROBE_EVERY`` seconds, until cancelled."""
        try:
            while True:
                await asyncio.sleep(PROBE_EVERY)
                try:
                    await self.look()
                except Exception:  # a look that fails is tried again at the next
                    logger.exception("Spreading the tables: a look at the daphnes failed")
        finally:
            if self.handover is not None:
                self.handover.cancel()
