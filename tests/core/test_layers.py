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
