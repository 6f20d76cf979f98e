"""The site's channel layer on the real Redis: a group message reaches every socket of
the process, decoded once for them all (core.layers)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from channels.layers import get_channel_layer

from core.layers import PubSubChannelLayer

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]


async def test_a_group_message_is_decoded_once_for_every_socket_of_the_process():
    layer = get_channel_layer()
    assert isinstance(layer, PubSubChannelLayer)
    group = f"layers-{uuid.uuid4().hex}"
    channels = [await layer.new_channel() for _ in range(4)]
    for channel in channels:
        await layer.group_add(group, channel)
    try:
        before = layer.decodings
        event = {"type": "table.changed", "change": {"state": {"history": list(range(50))}}}
        await layer.group_send(group, event)
        received = [
            await asyncio.wait_for(layer.receive(channel), timeout=5) for channel in channels
        ]
        assert received == [event] * 4
        assert layer.decodings - before == 1
        # Each socket has its own event: one handler's key does not show in another's.
        received[0]["seen"] = True
        assert "seen" not in received[1]
    finally:
        for channel in channels:
            await layer.group_discard(group, channel)


async def test_two_messages_each_reach_every_socket_in_order():
    layer = get_channel_layer()
    group = f"layers-{uuid.uuid4().hex}"
    channels = [await layer.new_channel() for _ in range(2)]
    for channel in channels:
        await layer.group_add(group, channel)
    try:
        await layer.group_send(group, {"type": "a", "n": 1})
        await layer.group_send(group, {"type": "a", "n": 2})
        for channel in channels:
            first = await asyncio.wait_for(layer.receive(channel), timeout=5)
            second = await asyncio.wait_for(layer.receive(channel), timeout=5)
            assert (first["n"], second["n"]) == (1, 2)
    finally:
        for channel in channels:
            await layer.group_discard(group, channel)


async def test_a_publish_does_not_wait_for_a_subscription_or_another_publish_in_flight():
    layer = get_channel_layer()
    group = f"layers-{uuid.uuid4().hex}"
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    shard = layer._get_shard(layer._get_group_channel_name(group))
    try:
        # A socket's subscription (or anything else that takes the Redis's lock) is on its
        # way: a move's event goes out meanwhile, and many go out together.
        async with shard._lock:
            await asyncio.wait_for(layer.group_send(group, {"type": "a", "n": 0}), timeout=2)
            await asyncio.wait_for(
                asyncio.gather(
                    *(layer.group_send(group, {"type": "a", "n": n}) for n in range(1, 21))
                ),
                timeout=5,
            )
        received = [await asyncio.wait_for(layer.receive(channel), timeout=5) for _ in range(21)]
        assert sorted(m["n"] for m in received) == list(range(21))
    finally:
        await layer.group_discard(group, channel)


async def test_a_group_message_reaches_each_process_once_its_own_without_redis():
    """Two daphnes (two layers on the same Redis): the sender's sockets have the message
    as it is sent, the other's through Redis, and nobody has it twice."""
    from django.conf import settings

    config = settings.CHANNEL_LAYERS["default"]["CONFIG"]
    here, there = get_channel_layer(), PubSubChannelLayer(**config)
    group = f"layers-{uuid.uuid4().hex}"
    mine, theirs = await here.new_channel(), await there.new_channel()
    await here.group_add(group, mine)
    await there.group_add(group, theirs)
    try:
        sending = asyncio.ensure_future(here.group_send(group, {"type": "a", "n": 1}))
        await asyncio.sleep(0)  # one step of the send: no answer from Redis yet
        assert here._get_layer().channels[mine].qsize() == 1
        await sending
        for n, layer in ((2, there), (3, here)):
            await layer.group_send(group, {"type": "a", "n": n})
        for layer, channel in ((here, mine), (there, theirs)):
            await _settled(layer)
            queue = layer._get_layer().channels[channel]
            assert queue.qsize() == 3  # no message twice
            got = [await asyncio.wait_for(layer.receive(channel), timeout=5) for _ in range(3)]
            assert sorted(m["n"] for m in got) == [1, 2, 3]
    finally:
        await here.group_discard(group, mine)
        await there.group_discard(group, theirs)
        await there.flush()


async def _settled(layer: PubSubChannelLayer) -> None:
    """A round trip through Redis: whatever Redis sent this layer before has arrived (one
    connection carries all its subscriptions, in order)."""
    probe = await layer.new_channel()
    await layer.send(probe, {"type": "probe"})
    assert (await asyncio.wait_for(layer.receive(probe), timeout=5))["type"] == "probe"


async def test_a_storm_of_publishes_waits_for_connections_rather_than_failing():
    # A thousand sockets closing at once each tell their table: more publishes at once
    # than the Redis client's pool has connections (100).
    layer = get_channel_layer()
    group = f"layers-{uuid.uuid4().hex}"
    channel = await layer.new_channel()
    await layer.group_add(group, channel)
    try:
        await asyncio.gather(*(layer.group_send(group, {"type": "a", "n": n}) for n in range(400)))
        received = [await asyncio.wait_for(layer.receive(channel), timeout=5) for _ in range(400)]
        assert sorted(m["n"] for m in received) == list(range(400))
    finally:
        await layer.group_discard(group, channel)
