"""The stopping server's drain (``pan_site.server.SiteServer``) on sockets of its own
making: a socket whose handshake completes while the server stops is told to come back
(1012) like the others, and the server waits for its application, not cutting it
(1006)."""

from __future__ import annotations

import asyncio

import pytest
from daphne.ws_protocol import WebSocketProtocol

from pan_site.server import CLOSE_SERVICE_RESTART, SiteServer


class Socket(WebSocketProtocol):
    """A websocket as daphne's server holds it: its state, its path, the close frames
    sent to it."""

    def __init__(self, path: str, *, open_: bool) -> None:  # daphne's own needs a factory
        self.path = path
        self.state = self.STATE_OPEN if open_ else self.STATE_CONNECTING
        self.closes: list[int] = []

    def sendCloseFrame(self, code: int | None = None, reason=None, isReply=False) -> None:
        self.closes.append(code)
        self.state = self.STATE_CLOSING


def server_with(connections: dict) -> SiteServer:
    server = SiteServer.__new__(SiteServer)  # only its connections: no reactor, no ports
    server.connections = connections
    return server


@pytest.mark.asyncio
async def test_a_socket_that_opens_while_the_server_stops_is_told_to_come_back_too():
    loop = asyncio.get_running_loop()
    open_app, opening_app = loop.create_future(), loop.create_future()
    playing, opening = Socket("/ws/tables/1/", open_=True), Socket("/ws/tables/2/", open_=False)
    server = server_with(
        {
            playing: {"application_instance": open_app},
            opening: {"application_instance": opening_app},
        }
    )

    async def meanwhile() -> None:
        await asyncio.sleep(0.1)
        open_app.set_result(None)  # the playing socket heard its close
        opening.state = opening.STATE_OPEN  # the other's handshake completes
        await asyncio.sleep(0.2)
        assert not opening_app.done()  # still waited for, not cancelled
        opening_app.set_result(None)

    helper = asyncio.ensure_future(meanwhile())
    await server.drain(CLOSE_SERVICE_RESTART, spread=0.0, batches=1, grace=5.0)
    await helper
    assert playing.closes == [CLOSE_SERVICE_RESTART]
    assert opening.closes == [CLOSE_SERVICE_RESTART]
