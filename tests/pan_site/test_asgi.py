"""The websocket edge accepts only this site's origins and answers pings."""

from __future__ import annotations

import gc

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


def _connections_to_this_database() -> int:
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return cursor.fetchone()[0]
    finally:
        connection.close()  # this thread's own, for the next count to leave out


@pytest.mark.django_db(transaction=True)
async def test_pages_leave_no_database_connection_open_even_set_aside_from_the_collector():
    """Each HTTP request runs in a thread of its own. A connection it kept stayed open
    until the collector freed it; set aside from the collector while the request ran
    (core.collector, every second or so in daphne), never: PostgreSQL's connections ran
    out within minutes of browsing."""
    from asgiref.sync import sync_to_async
    from channels.testing import HttpCommunicator
    from django.core.signals import request_started

    def set_aside(**kwargs: object) -> None:  # the collector's thread, mid-request
        gc.freeze()

    count = sync_to_async(_connections_to_this_database, thread_sensitive=True)
    before = await count()
    request_started.connect(set_aside)
    try:
        for _ in range(5):
            communicator = HttpCommunicator(
                application, "GET", "/healthz", headers=[(b"host", b"127.0.0.1")]
            )
            response = await communicator.get_response(timeout=10)
            assert response["status"] in (200, 503)  # the page read the database either way
        gc.collect()
        assert await count() <= before
    finally:
        request_started.disconnect(set_aside)
        gc.unfreeze()
        gc.collect()
