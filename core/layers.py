"""The channel layer: channels_redis's pub/sub layer, each message decoded once, its
publishes side by side.

The pub/sub layer hands a group's message to every socket of the group in the process
as the same bytes, and each socket's ``receive`` decoded them again: a move's event
(the hand's whole state, a few kilobytes of msgpack for a long hand) was decoded four
times at a table of four, and more with spectators. Here the sockets of a process
that take the same message share one decoding; each gets its own top-level dict
(the values inside are shared: a handler reads an event, never edits it).

channels_redis also takes one lock per Redis for every publish, subscribe and
unsubscribe of the process, held across the round trip: a move's event waited for every
publish before it and for the subscriptions of sockets that were opening. At 250 tables
on one daphne the moves that took longest spent 24 ms on average publishing (make
bench-load). A publish needs no lock: the client takes a connection of its own from
the pool for it; the lock still orders the subscriptions, which share one connection.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)

RECENT = 64  # messages whose decoding is kept: every socket takes one within moments


class _Shard(RedisSingleShardConnection):
    """One Redis: publishes side by side, each on a connection of the pool."""

    async def publish(self, channel: str, message: bytes) -> None:
        self._ensure_redis()
        await self._redis.publish(channel, message)


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` decoding the same message once for all its sockets,
    and publishing without waiting for the process's other publishes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id of the bytes -> (the bytes, kept so that the id is not reused; decoded)
        self._decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self.decodings = 0

    def _get_layer(self) -> RedisPubSubLoopLayer:
        """The layer of the running event loop, its Redis connections ours (``_Shard``)."""
        fresh = asyncio.get_running_loop() not in self._layers
        layer = super()._get_layer()
        if fresh:
            layer._shards = [_Shard(shard.host, layer) for shard in layer._shards]
        return layer

    def deserialize(self, message: bytes) -> dict[str, Any]:
        known = self._decoded.get(id(message))
        if known is not None and known[0] is message:
            return dict(known[1])
        data = super().deserialize(message)
        self.decodings += 1
        self._decoded[id(message)] = (message, data)
        while len(self._decoded) > RECENT:
            self._decoded.popitem(last=False)
        return dict(data)
