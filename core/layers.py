"""The channel layer: channels_redis's pub/sub layer, each message decoded once, its
publishes side by side.

The pub/sub layer hands a group's message to every socket of the group in the process
as the same bytes, and each socket's ``receive`` would decode them again: a move's
event would be decoded once per player and spectator. Here the sockets of a process
that take the same message share one decoding; each gets its own top-level dict
(the values inside are shared: a handler reads an event, never edits it).

channels_redis takes one lock per Redis for every publish, subscribe and unsubscribe
of the process, held across the round trip, so a move's event would wait for every
publish before it and for the subscriptions of sockets that are opening. A publish
needs no lock: the client takes a connection of its own from the pool for it; the
lock still orders the subscriptions, which share one connection.

A group's message reaches the group's sockets in the process that sends it at once,
not on its way back from Redis: the move's own process (every socket of its table, on
one daphne or where a proxy routes by table) saves a Redis round trip and two turns of
the event loop per event. Redis still carries it to the other processes, marked with
the sending layer's origin, which that layer's receiver skips. A move's event is
``announce``d: its sender (the mover's own socket) goes on without waiting for Redis,
and takes the event from its queue with the table's other sockets, rather than
showing the move a Redis round trip after the rest of its table.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import OrderedDict
from typing import Any

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close

logger = logging.getLogger(__name__)

RECENT = 64  # messages whose decoding is kept: every socket takes one within moments
# Starts a group message sent with its origin: 0xC1 is never the first byte of msgpack.
ORIGIN_MARK = b"\xc1"
ORIGIN_SIZE = 16


_UNSUBSCRIBING: set[asyncio.Future] = set()


_PUBLISHING: set[asyncio.Future] = set()


def _published(task: asyncio.Future) -> None:
    _PUBLISHING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("publishing an announced message failed: %r", task.exception())


def _unsubscribed(task: asyncio.Future) -> None:
    _UNSUBSCRIBING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.warning("unsubscribing a closed socket's channel failed: %r", task.exception())


# Publishes in flight at once per Redis and event loop. The client's pool holds 100
# connections and refuses the 101st ("Too many connections"): in a close storm (many
# sockets leaving at once, each telling its table) the publishes, and the presence they
# carry, wait for a connection here instead of failing.
PUBLISHING = 50


class _Shard(RedisSingleShardConnection):
    """One Redis: publishes side by side, each on a connection of the pool (at most
    ``PUBLISHING`` at once); a group's message from this layer itself is skipped (its
    sockets had it when it was sent)."""

    channel_layer: _LoopLayer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._publishing = asyncio.Semaphore(PUBLISHING)

    async def publish(self, channel: str, message: bytes) -> None:
        self._ensure_redis()
        async with self._publishing:
            await self._redis.publish(channel, message)

    def _receive_message(self, message: dict[str, Any] | None) -> None:
        if message is not None:
            data = message["data"]
            if data[:1] == ORIGIN_MARK:
                if data[1 : 1 + ORIGIN_SIZE] == self.channel_layer.origin:
                    return
                message = {**message, "data": data[1 + ORIGIN_SIZE :]}
        super()._receive_message(message)


class _LoopLayer(RedisPubSubLoopLayer):
    """The pub/sub layer of one event loop, handing a group's message to its own
    sockets of the group directly."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.origin = uuid.uuid4().bytes
        self._shards = [_Shard(shard.host, self) for shard in self._shards]

    def inbox(self, channel: str) -> asyncio.Queue:
        """The queue of ``channel``'s messages (serialized), for a consumer that takes
        them itself (``games.consumers.LimitedSocketMixin``)."""
        return self.channels[channel]

    def adopt(self, channel: str, queue: asyncio.Queue) -> asyncio.Queue:
        """Put ``channel``'s messages (serialized) in ``queue`` from now on, with any
        already waiting: the consumer's one queue, which the server puts the websocket's
        messages in (ASGI dicts beside the layer's bytes)."""
        old = self.channels.get(channel)
        self.channels[channel] = queue
        while old is not None and not old.empty():
            queue.put_nowait(old.get_nowait())
        return queue

    def drop_channel(self, channel: str) -> None:
        """``channel``'s consumer is gone: forget its queue and unsubscribe, in the
        background (a closing socket does not wait for Redis, nor fails on it)."""
        if self.channels.pop(channel, None) is None:
            return
        task = asyncio.ensure_future(self._get_shard(channel).unsubscribe(channel))
        _UNSUBSCRIBING.add(task)
        task.add_done_callback(_unsubscribed)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        group_channel, data = self._deliver_here(group, message)
        shard = self._get_shard(group_channel)
        await shard.publish(group_channel, ORIGIN_MARK + self.origin + data)

    def announce(self, group: str, message: dict[str, Any]) -> None:
        """``group_send`` that does not wait for Redis: the process's own sockets of the
        group have the message now, the other processes' once the publish, left running,
        is done (a failed one is logged). For a sender in the server's own event loop,
        which outlives its publishes."""
        group_channel, data = self._deliver_here(group, message)
        shard = self._get_shard(group_channel)
        task = asyncio.ensure_future(shard.publish(group_channel, ORIGIN_MARK + self.origin + data))
        _PUBLISHING.add(task)
        task.add_done_callback(_published)

    def _deliver_here(self, group: str, message: dict[str, Any]) -> tuple[str, bytes]:
        """Put ``message`` in the queue of each of the process's sockets of ``group``; its
        Redis channel and its bytes, to publish."""
        group_channel = self._get_group_channel_name(group)
        data = self.channel_layer.serialize(message)
        for name in self.groups.get(group_channel, ()):
            queue = self.channels.get(name)
            if queue is not None:
                queue.put_nowait(data)  # the same bytes: decoded once for them all
        return group_channel, data


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` decoding the same message once for all its sockets,
    and publishing without waiting for the process's other publishes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id of the bytes -> (the bytes, kept so that the id is not reused; decoded)
        self._decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self.decodings = 0

    def _get_layer(self) -> RedisPubSubLoopLayer:
        """The layer of the running event loop (``_LoopLayer``)."""
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)
        return layer

    def announce(self, group: str, message: dict[str, Any]) -> None:
        """``_LoopLayer.announce`` in the running event loop's layer."""
        self._get_layer().announce(group, message)

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
