"""The websocket edge accepts only this site's origins and answers pings."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator

from pan_site.asgi import application

pytestmark = pytest.mark.asyncio


async def test_websocket_from_the_sites_origin_answers_pings():
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://127.0.0.1:8000")]
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_json_to({"type": "ping", "t": 42})
    assert await communicator.receive_json_from() == {"type": "pong", "t": 42}
    await communicator.send_json_to({"type": "dance"})
    assert (await communicator.receive_json_from())["type"] == "refused"
    await communicator.disconnect()


async def test_websocket_from_a_foreign_origin_is_refused():
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://evil.example.com")]
    )
    connected, _ = await communicator.connect()
    assert not connected
