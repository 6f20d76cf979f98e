"""Group events leave after a commit, whoever commits: a view, a worker, or a sync caller
that happens to run inside an event loop (a test that drives a browser)."""

from __future__ import annotations

import asyncio

import pytest
from channels.layers import get_channel_layer

from core.broadcast import group_send as _group_send
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
