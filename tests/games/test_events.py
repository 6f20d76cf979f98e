"""Group events leave after a commit, whoever commits: a view, a worker, or a sync caller
that happens to run inside an event loop (a test that drives a browser)."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from redis.asyncio import Redis

from core.broadcast import group_send as _group_send
from core.broadcast import served_here
from games.events import table_group

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]


async def test_a_sync_sender_inside_a_running_loop_still_reaches_the_table() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(table_group(987654), channel)
    try:
        # Called synchronously from the loop's own thread, as a service would be.
        _group_send(table_group(987654), {"type": "table.changed", "id": "x"})
        event = await asyncio.wait_for(layer.receive(channel), timeout=5)
    finally:
        await layer.group_discard(table_group(987654), channel)
    assert event["type"] == "table.changed"
    assert event["id"] == "x"


async def test_a_sockets_thread_sends_through_its_loop_and_a_workers_through_its_own() -> None:
    """Sync code a socket or a request runs in a thread sends through the server's loop,
    in order with what the loop sends itself (both carry the loop's origin); a worker's
    thread, with no server loop behind it, through the process's sending loop."""
    layer = get_channel_layer()
    group = table_group(987655)
    redis = Redis.from_url(settings.REDIS_URL)
    pubsub = redis.pubsub()
    try:
        await pubsub.subscribe(layer._group_channel(group))
        await pubsub.get_message(timeout=5)  # the subscription's confirmation
        served_here()
        layer.announce(group, {"type": "table.changed", "n": 1})  # the loop's own
        await sync_to_async(_group_send, thread_sensitive=False)(
            group, {"type": "table.changed", "n": 2}
        )
        await asyncio.get_running_loop().run_in_executor(
            None, _group_send, group, {"type": "table.changed", "n": 3}
        )
        data = []
        async with asyncio.timeout(5):
            while len(data) < 3:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5)
                if message is not None:
                    data.append(message["data"])
    finally:
        await pubsub.aclose()
        await redis.aclose()
    origins = [item[:17] for item in data]  # the origin mark and the sending loop's origin
    assert [layer.deserialize(item[17:])["n"] for item in data] == [1, 2, 3]
    assert origins[0] == origins[1] != origins[2]
