"""The daphne server the site runs (``manage.py serve``): daphne's, with the access log
masking secrets (``redaction``) and a restart that pages come back from by themselves.

A deploy or systemd stops a daphne with SIGTERM. daphne alone then cancels every
application and lets Twisted cut the connections: each page sees its socket drop
without a close frame (1006). Here, before that, the server

1. stops listening, so that no new socket lands on a process about to go (nginx passes
   the refused handshake to another daphne);
2. closes every open websocket with 1012 ("service restart"), which htmx's ws
   extension and the site's own sockets answer by reconnecting after a jittered pause;
3. waits, at most ``SHUTDOWN_GRACE`` seconds, until those sockets' applications have
   heard their ``websocket.disconnect`` and finished (they leave their groups and
   presence as on any close);

and only then cancels what is left (a socket still opening, a request in flight), as
daphne does, and exits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from daphne.ws_protocol import WebSocketProtocol
from twisted.internet import defer

from pan_site.redaction import RedactingServer

logger = logging.getLogger(__name__)

CLOSE_SERVICE_RESTART = 1012
SHUTDOWN_GRACE = 10.0  # seconds; systemd's TimeoutStopSec (deploy/systemd) is longer
GRACE_POLL = 0.05


class SiteServer(RedactingServer):
    """daphne's server, closing its websockets with 1012 when it is stopped."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ports: list[Any] = []

    def listen_success(self, port: Any) -> None:
        """Keep the listening port, to stop listening first when the server stops."""
        self.ports.append(port)
        super().listen_success(port)

    def kill_all_applications(self) -> defer.Deferred:
        """Run by the reactor before it shuts down (daphne registers it): stop listening,
        close the open websockets with 1012, wait for their applications (at most
        ``SHUTDOWN_GRACE`` s), then daphne's own: cancel whatever still runs."""
        for port in self.ports:
            port.stopListening()
        closed = self.close_websockets(CLOSE_SERVICE_RESTART)
        logger.info("Stopping: closed %d websockets with %d", len(closed), CLOSE_SERVICE_RESTART)
        waited = defer.Deferred.fromFuture(
            asyncio.ensure_future(self.applications_finished(closed, SHUTDOWN_GRACE))
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

    def close_websockets(self, code: int) -> list[WebSocketProtocol]:
        """Send a close frame with ``code`` to every open websocket; the ones closed.
        (autobahn's ``sendClose`` takes only the application's codes, 1000 and
        3000-4999; its ``sendCloseFrame``, which daphne uses for 1011, takes any.)"""
        closing = [
            protocol
            for protocol in self.connections
            if isinstance(protocol, WebSocketProtocol) and protocol.state == protocol.STATE_OPEN
        ]
        for protocol in closing:
            protocol.sendCloseFrame(code=code, isReply=False)
        return closing

    async def applications_finished(self, protocols: list[Any], grace: float) -> None:
        """Return when the applications of ``protocols`` have all finished (or their
        connections are gone from the server), or after ``grace`` seconds."""
        give_up = time.monotonic() + grace
        while time.monotonic() < give_up:
            running = 0
            for protocol in protocols:
                application = self.connections.get(protocol, {}).get("application_instance")
                if application is not None and not application.done():
                    running += 1
            if not running:
                return
            await asyncio.sleep(GRACE_POLL)
        logger.warning("Stopping: websockets still closing after %.0f s", grace)
