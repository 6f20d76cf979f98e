"""The websocket edge accepts only this site's origins."""

from __future__ import annotations

import gc

import pytest
from channels.testing import WebsocketCommunicator

from pan_site.asgi import application

pytestmark = pytest.mark.asyncio


# The socket's disconnect closes the thread's stale database connections (Channels'
# websocket_disconnect): that may touch a connection an earlier test left in the pool.
@pytest.mark.redis
@pytest.mark.django_db
async def test_websocket_from_the_sites_origin_is_accepted():
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://127.0.0.1:8000")]
    )
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()


@pytest.mark.parametrize("path", ["/ws/lobby/", "/ws/tables/1/", "/ws/tournaments/1/"])
async def test_websocket_from_a_foreign_origin_is_refused(path: str):
    communicator = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://evil.example.com")]
    )
    connected, _ = await communicator.connect()
    assert not connected


async def test_no_socket_answers_outside_the_sites_routes():
    communicator = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"origin", b"http://127.0.0.1:8000")]
    )
    with pytest.raises(ValueError, match="No route found"):
        await communicator.connect()


def _connections_to_this_database() -> dict[int, str]:
    """Every other connection to the test database: its backend's pid and last query."""
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid, query FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            return dict(cursor.fetchall())
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

    connections = sync_to_async(_connections_to_this_database, thread_sensitive=True)
    before = await connections()
    request_started.connect(set_aside)
    try:
        for _ in range(5):
            communicator = HttpCommunicator(
                application, "GET", "/healthz", headers=[(b"host", b"127.0.0.1")]
            )
            response = await communicator.get_response(timeout=10)
            assert response["status"] in (200, 503)  # the page read the database either way
        gc.collect()
        # The requests' own: opened since, and last used for the page's check. (A task an
        # earlier test left may open one meanwhile, for its own query.)
        opened = {pid: query for pid, query in (await connections()).items() if pid not in before}
        assert [q for q in opened.values() if q.strip() == "SELECT 1"] == [], opened
    finally:
        request_started.disconnect(set_aside)
        gc.unfreeze()
        gc.collect()
