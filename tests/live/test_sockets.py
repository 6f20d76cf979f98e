"""What every socket of the site has from the live room (``live.LiveSocket``), met on
a table's socket on the real Redis layer: the limits on frames and open sockets, said in
the viewer's language, a client gone while its socket opens, and a closed socket's
subscription gone."""

from __future__ import annotations

import asyncio

import pytest
from autobahn.exception import Disconnected
from channels.db import database_sync_to_async

from games import events
from live import CLOSE_LIMITED, COMMAND_BURST, FLOOD_CLOSE, SOCKETS_PER_USER
from tests.factories import make_table, make_user
from tests.games.ws import connect, frames_until

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


async def test_pongs_and_garbage_count_against_the_frame_limit_and_a_flood_is_closed():
    table = await database_sync_to_async(make_table)(players=1)
    ws = await connect(f"/ws/tables/{table.pk}/", table.owner)
    await frames_until(ws, 'id="seats"')
    for _ in range(COMMAND_BURST):
        await ws.send_json_to({"action": "pong", "t": "1.0"})
    await ws.send_to(text_data="not json")
    assert "Too many commands" in (await frames_until(ws, 'id="notice"'))[-1]
    for _ in range(FLOOD_CLOSE):
        await ws.send_to(text_data="x")
    closed = await ws.receive_output(timeout=5)
    while closed["type"] != "websocket.close":
        closed = await ws.receive_output(timeout=5)
    assert closed["code"] == CLOSE_LIMITED


async def test_a_user_may_hold_only_so_many_sockets_open_at_once():
    from channels.testing import WebsocketCommunicator

    from pan_site.asgi import application
    from tests.games.ws import ORIGIN, session_cookie

    table = await database_sync_to_async(make_table)(players=1)
    path = f"/ws/tables/{table.pk}/"
    user = table.owner
    held = [await connect(path, user) for _ in range(SOCKETS_PER_USER)]
    cookie = await session_cookie(user)
    extra = WebsocketCommunicator(application, path, headers=[ORIGIN, (b"cookie", cookie)])
    connected, code = await extra.connect(timeout=10)
    assert not connected and code == CLOSE_LIMITED
    await held[0].disconnect()
    again = WebsocketCommunicator(application, path, headers=[ORIGIN, (b"cookie", cookie)])
    assert (await again.connect(timeout=10))[0]
    for ws in [*held[1:], again]:
        await ws.disconnect()


async def test_a_client_gone_while_its_socket_opens_ends_the_socket_without_an_error():
    """Daphne refuses a frame once the client has hung up (autobahn's Disconnected) and
    then delivers the disconnect: the socket ends as for any client that left."""
    from pan_site.asgi import application
    from tests.games.ws import ORIGIN

    table = await database_sync_to_async(make_table)(players=2)
    incoming: asyncio.Queue = asyncio.Queue()
    await incoming.put({"type": "websocket.connect"})
    sent: list[str] = []

    async def send(message: dict) -> None:
        sent.append(message["type"])
        if message["type"] == "websocket.send":  # the client is gone by its first frame
            if sent.count("websocket.send") == 1:
                await incoming.put({"type": "websocket.disconnect", "code": 1006})
            raise Disconnected("Attempt to send on a closed protocol")

    scope = {
        "type": "websocket",
        "path": f"/ws/tables/{table.pk}/",
        "headers": [ORIGIN],
        "query_string": b"",
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "subprotocols": [],
    }
    await asyncio.wait_for(application(scope, incoming.get, send), 10)
    assert sent[0] == "websocket.accept" and "websocket.send" in sent


@pytest.mark.parametrize(
    ("saved", "browser", "expected"),
    [
        ("en", "pl", "Too many commands; slow down."),  # his saved language beats the browser
        ("pl", "en", "Za dużo poleceń; zwolnij."),
        ("", "en-GB,en;q=0.9", "Too many commands; slow down."),  # none saved: the browser's
        ("", "pl-PL,pl;q=0.9", "Za dużo poleceń; zwolnij."),
    ],
)
async def test_too_many_commands_is_said_in_the_viewers_language(saved, browser, expected):
    """Not in the site's default language (Polish) to an English reader (#14)."""
    from channels.testing import WebsocketCommunicator

    from pan_site.asgi import application
    from tests.games.ws import ORIGIN, session_cookie

    user = await database_sync_to_async(make_user)(language=saved)
    table = await database_sync_to_async(make_table)(user, players=1)
    headers = [ORIGIN, (b"cookie", await session_cookie(user))]
    headers.append((b"accept-language", browser.encode()))
    ws = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=headers)
    assert (await ws.connect(timeout=10))[0]
    await frames_until(ws, 'id="seats"')
    for _ in range(COMMAND_BURST + 1):
        await ws.send_json_to({"action": "pong", "t": "1.0"})
    notice = (await frames_until(ws, 'id="notice"'))[-1]
    assert expected in notice
    await ws.disconnect()


async def test_a_closed_socket_leaves_no_subscription_behind():
    """A table's sockets take their group's messages and their own from Redis on the
    process's subscriptions: one for the group, one for all the process's sockets' own
    channels (not one per socket). Closed, the table's group is no longer subscribed."""
    import redis.asyncio as redis_asyncio
    from django.conf import settings

    table = await database_sync_to_async(make_table)(players=1)
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    redis = redis_asyncio.Redis.from_url(settings.REDIS_URL)
    group = f"{prefix}__group__{events.table_group(table.pk)}"

    async def subscribed() -> set[str]:
        return {c.decode() for c in await redis.pubsub_channels(f"{prefix}specific.*")}

    try:
        before = await subscribed()
        sockets = [await connect(f"/ws/tables/{table.pk}/", None) for _ in range(3)]
        for ws in sockets:
            await frames_until(ws, 'id="my-hand"')
        (mine,) = await subscribed() - before  # one for the three
        assert [n for _, n in await redis.pubsub_numsub(mine, group)] == [1, 1]
        for ws in sockets:
            await ws.disconnect()
        for _ in range(100):  # unsubscribing goes on in the background
            if [n for _, n in await redis.pubsub_numsub(group)] == [0]:
                break
            await asyncio.sleep(0.05)
        assert [n for _, n in await redis.pubsub_numsub(group)] == [0]
    finally:
        await redis.aclose()


async def test_a_user_may_open_only_so_many_sockets_a_minute_across_the_site(monkeypatch):
    """The budget per minute is counted in the cache's Redis, where every process of the
    site counts together: past it a socket is refused (4429), the next minute it opens
    again, and the count does not outlive its minute by much."""
    import redis.asyncio as redis_asyncio
    from channels.testing import WebsocketCommunicator
    from django.conf import settings
    from django.core.cache import cache

    import live.budgets as budgets
    from pan_site.asgi import application
    from tests.games.ws import ORIGIN, session_cookie

    minute = 29_000_000 * 60.0  # a minute of 2025, whatever the hour of the run
    monkeypatch.setattr(budgets, "clock", lambda: minute + 30)
    monkeypatch.setattr(budgets, "CONNECTIONS_PER_MINUTE", 3)
    table = await database_sync_to_async(make_table)(players=1)
    path, user = f"/ws/tables/{table.pk}/", table.owner
    key = cache.make_key(f"ws-connects:u{user.pk}:{int(minute // 60)}")
    redis = redis_asyncio.Redis.from_url(settings.REDIS_URL)
    await redis.delete(key)
    try:
        for _ in range(3):
            ws = await connect(path, user)
            await ws.disconnect()
        cookie = await session_cookie(user)
        over = WebsocketCommunicator(application, path, headers=[ORIGIN, (b"cookie", cookie)])
        assert await over.connect(timeout=10) == (False, CLOSE_LIMITED)
        assert 0 < await redis.ttl(key) <= 70
        monkeypatch.setattr(budgets, "clock", lambda: minute + 90)
        await (await connect(path, user)).disconnect()
    finally:
        await redis.delete(key, cache.make_key(f"ws-connects:u{user.pk}:{int(minute // 60) + 1}"))
        await redis.aclose()


async def test_a_crowd_of_sockets_opening_at_once_is_counted_every_one(monkeypatch):
    """After a restart every page's sockets come back at once: each counts against its
    budget (none let in uncounted because the cache was busy), and the loop's client
    carries them on its few connections rather than opening one per socket."""
    import os

    import redis.asyncio as redis_asyncio
    from django.conf import settings
    from django.core.cache import cache

    import live.budgets as budgets
    import live.cache

    minute = 29_000_000 * 60.0  # a minute of 2025, whatever the hour of the run
    monkeypatch.setattr(budgets, "clock", lambda: minute + 30)
    monkeypatch.setattr(budgets, "CONNECTIONS_PER_MINUTE", 300)
    scope = {"type": "websocket", "client": ("203.0.113.7", 40000), "user": None}
    key = cache.make_key(f"ws-connects:ip203.0.113.7:{int(minute // 60)}")
    redis = redis_asyncio.Redis.from_url(settings.REDIS_URL)
    await redis.delete(key)
    try:
        allowed = await asyncio.gather(*(budgets.connection_allowed(scope) for _ in range(1000)))
        assert allowed.count(True) == 300
        assert int(await redis.get(key)) == 1000
        name = f"pan-live-cache-{os.getpid()}"
        ours = [c for c in await redis.client_list() if c["name"] == name]
        assert 0 < len(ours) <= live.cache.CONNECTIONS
    finally:
        await redis.delete(key)
        await redis.aclose()
