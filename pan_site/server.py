"""The daphne server the site runs (``manage.py serve``): daphne's, with the access log
masking secrets (``redaction``) and a restart that pages come back from by themselves.

A deploy or systemd stops a daphne with SIGTERM. daphne alone then cancels every
application and lets Twisted cut the connections: each page sees its socket drop
without a close frame (1006). Here, before that, the server

1. stops listening, so that no new socket lands on a process about to go (nginx passes
   the refused handshake to another daphne);
2. closes every open websocket with 1012 ("service restart"), which htmx's ws
   extension and the site's own sockets answer by reconnecting after a jittered pause,
   in ``SHUTDOWN_BATCHES`` batches over ``SHUTDOWN_SPREAD`` seconds (a table's sockets
   together): the daphnes that take the reconnects meet a stream, not one storm, and
   the sockets not yet closed play on meanwhile;
3. waits, at most ``SHUTDOWN_GRACE`` seconds, until those sockets' applications have
   heard their ``websocket.disconnect`` and finished (they leave their groups and
   presence as on any close);

and only then cancels what is left (a socket still opening, a request in flight), as
daphne does, and exits.

While it runs, the server watches the other daphnes of ``DAPHNE_UPSTREAMS`` and, once
every one listens again after a restart, hands the tables that nginx now sends to
another daphne over to it (``pan_site.spread``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from daphne.ws_protocol import WebSocketProtocol
from django.conf import settings
from twisted.internet import defer

from pan_site.redaction import RedactingServer
from pan_site.spread import Spreader

logger = logging.getLogger(__name__)

CLOSE_SERVICE_RESTART = 1012
SHUTDOWN_SPREAD, SHUTDOWN_BATCHES = 5.0, 10  # seconds over which the sockets are closed
SHUTDOWN_GRACE = 10.0  # seconds after that; systemd's TimeoutStopSec (deploy/systemd) is longer
GRACE_POLL = 0.05


class SiteServer(RedactingServer):
    """daphne's server, closing its websockets with 1012 when it is stopped."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ports: list[Any] = []
        self.spreader: asyncio.Task | None = None

    def listen_success(self, port: Any) -> None:
        """Keep the listening port, to stop listening first when the server stops; on
        the first, start watching the other daphnes."""
        self.ports.append(port)
        super().listen_success(port)
        if len(self.ports) == 1:  # daphne listens before its loop runs: start it then
            from twisted.internet import reactor  # daphne's, installed by now

            reactor.callWhenRunning(self.start_spreading, port)

    def start_spreading(self, port: Any) -> None:
        """The other daphnes' watch (``pan_site.spread``), when ``DAPHNE_UPSTREAMS``
        names this daphne among others."""
        upstreams = settings.DAPHNE_UPSTREAMS
        address = port.getHost() if hasattr(port, "getHost") else None
        me = f"{address.host}:{address.port}" if address is not None else ""
        if len(upstreams) < 2:
            return
        if me not in upstreams:
            logger.warning(
                "DAPHNE_UPSTREAMS (%s) does not name this daphne (%s): it does not hand "
                "tables over after a restart",
                ", ".join(upstreams),
                me,
            )
            return
        spreader = Spreader(upstreams, me, sockets=self.open_websockets, close=self.close_websocket)
        self.spreader = asyncio.ensure_future(spreader.run())

    @staticmethod
    def close_websocket(protocol: WebSocketProtocol, code: int) -> None:
        """Close an open websocket with ``code`` (any code: autobahn's ``sendClose``
        takes only the application's, 1000 and 3000-4999)."""
        if protocol.state == protocol.STATE_OPEN:
            protocol.sendCloseFrame(code=code, isReply=False)

    def kill_all_applications(self) -> defer.Deferred:
        """Run by the reactor before it shuts down (daphne registers it): stop listening,
        close the open websockets with 1012 over ``SHUTDOWN_SPREAD`` s, wait for their
        applications (at most ``SHUTDOWN_GRACE`` s more), then cancel whatever still
        runs."""
        for port in self.ports:
            port.stopListening()
        if self.spreader is not None:
            self.spreader.cancel()
        waited = defer.Deferred.fromFuture(
            asyncio.ensure_future(
                self.drain(
                    CLOSE_SERVICE_RESTART,
                    spread=SHUTDOWN_SPREAD,
                    batches=SHUTDOWN_BATCHES,
                    grace=SHUTDOWN_GRACE,
                )
            )
        )
        waited.addErrback(lambda failure: logger.warning("Stopping: %s", failure.value))
        waited.addCallback(lambda _: self.cancel_applications())
        return waited

    def cancel_applications(self) -> defer.Deferred:
        """daphne's last step: cancel every application still running, and wait for them.
        (daphne's own assumes every connection still holds its application, which one
        that finished while its connection lingers no longer does.)"""
        running = [
            application
            for details in self.connections.values()
            if (application := details.get("application_instance")) is not None
            and not application.done()
        ]
        for application in running:
            application.cancel()
        logger.info("Stopping: cancelled %d applications", len(running))
        return defer.Deferred.fromFuture(asyncio.gather(*running, return_exceptions=True))

    def open_websockets(self) -> list[WebSocketProtocol]:
        """The open websockets, those of one path (a table's) next to each other."""
        return sorted(
            (
                protocol
                for protocol in self.connections
                if isinstance(protocol, WebSocketProtocol) and protocol.state == protocol.STATE_OPEN
            ),
            key=lambda protocol: protocol.path,
        )

    async def drain(self, code: int, *, spread: float, batches: int, grace: float) -> None:
        """Close every open websocket with ``code``, in ``batches`` batches over ``spread``
        seconds, then wait for their applications at most ``grace`` seconds, closing at
        once every socket whose handshake completes meanwhile (it was under way when
        the server stopped listening). (autobahn's ``sendClose`` takes only the
        application's codes, 1000 and 3000-4999; its ``sendCloseFrame``, which daphne
        uses for 1011, takes any.)"""
        sockets = self.open_websockets()
        logger.info("Stopping: closing %d websockets with %d", len(sockets), code)
        size = max(1, -(-len(sockets) // batches))
        for start in range(0, len(sockets), size):
            if start:
                await asyncio.sleep(spread / batches)
            for protocol in sockets[start : start + size]:
                self.close_websocket(protocol, code)
        await self.applications_finished(sockets, grace, code=code)

    async def applications_finished(
        self, protocols: list[Any], grace: float, *, code: int = CLOSE_SERVICE_RESTART
    ) -> None:
        """Return when the applications of ``protocols`` and of every websocket still
        opening have all finished (or their connections are gone from the server), or
        after ``grace`` seconds; a websocket that opens meanwhile (its handshake was
        under way) is closed with ``code`` and waited for too."""
        closed = set(protocols)
        late = 0
        give_up = time.monotonic() + grace
        while time.monotonic() < give_up:
            for protocol in self.open_websockets():
                if protocol not in closed:
                    self.close_websocket(protocol, code)
                    closed.add(protocol)
                    late += 1
            running = sum(
                1
                for protocol, details in self.connections.items()
                if isinstance(protocol, WebSocketProtocol)
                and (application := details.get("application_instance")) is not None
                and not application.done()
            )
            if not running:
                if late:
                    logger.info("Stopping: closed %d websockets opened meanwhile", late)
                return
            await asyncio.sleep(GRACE_POLL)
        logger.warning("Stopping: websockets still closing after %.0f s", grace)
