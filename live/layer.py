"""The site's channel layer: Channels' layer interface on Redis pub/sub, written on
redis-py's public asyncio API.

A message to a channel or a group is one PUBLISH. Each event loop (each daphne, and each
short-lived loop of ``async_to_sync``) holds one subscriber connection per Redis, takes
every message of its channels and groups there once and puts it in the queues of its
channels. A sender that runs no event loop (a Celery worker's thread, the clock ticker)
publishes through the process's one sending loop (``group_send_blocking``). Nothing
waits in Redis: a message to a channel or group nobody listens to is dropped, as with
channels_redis's pub/sub layer (``capacity`` and ``expiry`` are accepted for the same
configuration and not enforced; a channel's queue is unbounded).

Why the project's own: channels_redis's pub/sub layer as it comes costs a move as much CPU
(docs/performance.md), but after Redis restarts it receives nothing again (in
``bench_faults --scenarios redis`` every table stopped), where this one reconnects and
subscribes again. What the live room needs beyond that, and why this layer is not a
subclass of channels_redis's (which would have to override its private methods):

- A group's message reaches the group's channels in the sending event loop at once, not
  on its way back from Redis. Redis carries it to the other loops marked with the
  sender's origin, which the sender's own subscriber skips: nobody has it twice.
- Publishes go out on one connection per Redis and loop, in the order they were made,
  pipelined: what was published while the last batch was on its way leaves in one
  write, and its replies are read together (a PUBLISH per round trip, through the
  pool, cost a busy daphne more than the move it carried). Subscriptions are written
  in order on the one subscriber connection, and ``new_channel`` and ``group_add``
  return once Redis has confirmed them.
- A group's message for the sending loop's own channels is never encoded for them: each
  takes the sender's message as a dict of its own (the values inside are shared). The
  channels of a loop that take the same message from Redis share one decoding
  (``deserialize`` of the same bytes object), each with its own top-level dict.
- A loop's channels share one subscription, as channels_redis's process-local channels
  do: ``new_channel`` names a channel ``<prefix>specific.<loop>!<id>``, and a message to
  it is published on ``<prefix>specific.<loop>!`` with its ``<id>`` in front. Opening
  a socket's channel costs no trip to Redis once its loop has subscribed, and Redis
  holds one subscription per loop rather than one per socket.
- A consumer's channel is forgotten, with its groups, when the consumer ends: its
  ``receive`` cancelled, or ``drop_channel``; a sender in the server's loop need not wait
  for Redis (``announce``).

State (queues, groups, connections) is per running event loop, in a
``weakref.WeakKeyDictionary``: asyncio connections belong to the loop that opened them.
A loop's connections are closed when the loop shuts down its async generators
(``asyncio.run``, ``async_to_sync``, pytest-asyncio all do), and the state of a loop
closed without that is dropped, never reused. If Redis goes away, the subscriber
reconnects with backoff and subscribes again to every channel and group it holds.
"""

from __future__ import annotations

import asyncio
import binascii
import concurrent.futures
import contextlib
import functools
import logging
import os
import threading
import uuid
import weakref
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Coroutine, Iterable
from typing import Any

import msgpack
from channels.layers import BaseChannelLayer
from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.connection import AbstractConnection

from core.loops import until_loop_shutdown

logger = logging.getLogger(__name__)

BATCH = 256  # publishes written to Redis in one go, at most
RECENT = 64  # decodings kept per loop: every channel of a group takes its copy within moments
ORIGIN_MARK = b"\xc1"  # starts a group message with its origin; never the first byte of msgpack
ORIGIN_SIZE = 16
BACKOFF_FIRST = 0.1  # seconds before the subscriber's first reconnection attempt
BACKOFF_MAX = 5.0
BLOCKING_TIMEOUT = 10.0  # seconds a sender without a loop waits for Redis to take a message
LOCAL = "!"  # ends the Redis name a loop's channels share: ``<prefix>specific.<loop>!``
TARGET_END = b" "  # after the channel's ``<id>`` in a message on that name (never in a name)

# Tasks left running (announced publishes, background unsubscriptions): asyncio keeps only
# weak references to tasks.
_BACKGROUND: set[asyncio.Future] = set()


def _in_background(coroutine: Coroutine[Any, Any, Any], failure: str) -> asyncio.Future:
    task = asyncio.ensure_future(coroutine)
    _BACKGROUND.add(task)
    task.add_done_callback(functools.partial(_finished, failure))
    return task


def _finished(failure: str, task: asyncio.Future) -> None:
    _BACKGROUND.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.error("%s: %r", failure, task.exception())


def _fail(batch: Iterable[tuple[str, bytes, asyncio.Future | None]], error: BaseException) -> None:
    """Give ``error`` to whoever waits on a publish of ``batch``."""
    for _name, _data, waiter in batch:
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)


def decode_hosts(hosts: Any) -> list[dict[str, Any]]:
    """The ``hosts`` setting as channels_redis reads it: URLs, ``(host, port)`` pairs or
    dicts of connection arguments (``address`` for a URL); one Redis each."""
    if not hosts:
        return [{"address": "redis://localhost:6379"}]
    if isinstance(hosts, str | bytes):
        raise ValueError("hosts must be a list of Redis hosts, even if there is only one")
    decoded = []
    for entry in hosts:
        if isinstance(entry, dict):
            decoded.append(dict(entry))
        elif isinstance(entry, tuple | list):
            decoded.append({"host": entry[0], "port": entry[1]})
        else:
            decoded.append({"address": entry})
    return decoded


def redis_name(channel: str) -> str:
    """The Redis channel that carries ``channel``'s messages: a loop's channel (with
    ``!``) shares its loop's, up to the ``!``; any other name is its own."""
    local = channel.find(LOCAL)
    return channel if local < 0 else channel[: local + 1]


def _client(host: dict[str, Any], client_name: str) -> Redis:
    """A client with a pool of its own; its connections are named ``client_name`` (in
    Redis's CLIENT LIST) unless the host's arguments name them."""
    arguments = {"client_name": client_name, **host}
    address = arguments.pop("address", None)
    if address is not None:
        pool = ConnectionPool.from_url(address, **arguments)
    else:
        pool = ConnectionPool(**arguments)
    return Redis(connection_pool=pool)


async def _close_client(client: Redis | None) -> None:
    if client is not None:
        try:
            await client.aclose(close_connection_pool=True)
        except Exception:
            logger.exception("closing a Redis client failed")


class _Shard:
    """One Redis, for one event loop: one connection for publishes, one subscriber
    connection."""

    def __init__(self, host: dict[str, Any], state: _LoopState) -> None:
        self.host = host
        self.state = state
        self.client: Redis | None = None
        self.subscriber: Redis | None = None
        self.pubsub: PubSub | None = None
        self.receiver: asyncio.Task | None = None
        self.lock = asyncio.Lock()  # orders the subscriptions on the subscriber connection
        # Publishes waiting for the publisher connection: (Redis channel, data, whoever
        # waits for Redis's reply, or None).
        self.outbox: deque[tuple[str, bytes, asyncio.Future | None]] = deque()
        self.publisher: AbstractConnection | None = None
        self.sender: asyncio.Task | None = None
        self.open = asyncio.Event()  # cleared while the loop's publishes are held
        self.open.set()
        self.subscribed: set[str] = set()
        self.confirming: dict[str, asyncio.Future] = {}  # name -> Redis has subscribed it

    async def publish(self, name: str, data: bytes) -> None:
        """PUBLISH ``data`` to ``name``; returns once Redis has taken it."""
        waiter = asyncio.get_running_loop().create_future()
        self.post(name, data, waiter)
        await waiter

    def post(self, name: str, data: bytes, waiter: asyncio.Future | None = None) -> None:
        """Queue a PUBLISH of ``data`` to ``name``; ``waiter`` gets Redis's answer."""
        self.outbox.append((name, data, waiter))
        if self.sender is None or self.sender.done():
            self.sender = asyncio.ensure_future(self.send_outbox())

    async def send_outbox(self) -> None:
        """Write the queued publishes in batches on the publisher connection, in order,
        until none is left. When the connection fails, what Redis has not answered is
        written once more on a new one (a table event twice is harmless: a socket skips
        a version it showed); failing again, it is dropped, as a message to nobody is,
        and whoever waits on it gets the error."""
        while self.outbox:
            await self.open.wait()
            batch = deque(self.outbox.popleft() for _ in range(min(BATCH, len(self.outbox))))
            for attempt in (1, 2):
                try:
                    await self.write(batch)
                    break
                except asyncio.CancelledError:
                    _fail(batch, ConnectionError("the channel layer closed"))
                    raise
                except Exception as error:
                    if self.publisher is not None:
                        await self.publisher.disconnect(nowait=True)
                    if attempt == 2:
                        _fail(batch, error)
                        announced = sum(1 for _name, _data, waiter in batch if waiter is None)
                        if announced:
                            logger.error(
                                "publishing %d announced messages failed: %r", announced, error
                            )

    async def write(self, batch: deque[tuple[str, bytes, asyncio.Future | None]]) -> None:
        """``batch`` in one write; each publish leaves the batch as Redis answers it."""
        connection = await self.connection()
        commands = [("PUBLISH", name, data) for name, data, _ in batch]
        await connection.send_packed_command(connection.pack_commands(commands), check_health=False)
        while batch:
            await connection.read_response()
            _name, _data, waiter = batch.popleft()
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

    async def connection(self) -> AbstractConnection:
        """The publisher connection: one of the client's pool, kept for the loop's life."""
        if self.client is None:
            self.client = _client(self.host, self.state.layer.prefix)
        if self.publisher is None:
            self.publisher = await self.client.connection_pool.get_connection()
        return self.publisher

    def connected(self) -> PubSub:
        if self.pubsub is None:
            if self.subscriber is None:
                name = f"{self.state.layer.prefix}subscriber"
                self.subscriber = _client(self.host, name)
            self.pubsub = self.subscriber.pubsub()
        return self.pubsub

    async def subscribe(self, name: str) -> None:
        async with self.lock:
            waiter = self.confirming.get(name)
            if name not in self.subscribed:
                created = waiter is None
                if created:
                    waiter = asyncio.get_running_loop().create_future()
                    self.confirming[name] = waiter
                self.subscribed.add(name)
                try:
                    await self.connected().subscribe(name)
                except BaseException:
                    self.subscribed.discard(name)
                    if created:
                        self.confirming.pop(name, None)
                        waiter.cancel()
                    raise
                if self.receiver is None:
                    self.receiver = asyncio.ensure_future(self.receive_forever())
        if waiter is not None:
            await asyncio.shield(waiter)

    async def unsubscribe(self, name: str) -> None:
        async with self.lock:
            # A channel or group that came back while this waited for the lock stays.
            if name not in self.subscribed or self.state.wants(name):
                return
            self.subscribed.discard(name)
            # Closed meanwhile (the loop's end, a flush): nothing left to unsubscribe from.
            if self.pubsub is not None and self.pubsub.connection is not None:
                await self.pubsub.unsubscribe(name)

    async def receive_forever(self) -> None:
        delay = 0.0
        while True:
            try:
                if delay:
                    await asyncio.sleep(delay)
                    await self.reconnect()
                message = await self.connected().get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: again, after a pause
                delay = min(BACKOFF_MAX, delay * 2 or BACKOFF_FIRST)
                logger.warning(
                    "the channel layer's subscriber failed (%r); again in %ss", error, delay
                )
                continue
            delay = 0.0
            if message is not None:
                self.state.take(self, message)

    async def reconnect(self) -> None:
        """A new subscriber connection, subscribed to every channel and group held."""
        async with self.lock:
            old, self.pubsub = self.pubsub, None
            if old is not None:
                try:
                    await old.aclose()
                except Exception:
                    logger.debug("closing the broken subscriber failed", exc_info=True)
            pubsub = self.connected()
            if self.subscribed:
                await pubsub.subscribe(*sorted(self.subscribed))
            else:
                await pubsub.connect()
            # Unsubscribed while unconfirmed: nobody is to wait for these any more.
            for name in [name for name in self.confirming if name not in self.subscribed]:
                self.confirmed(name)

    def confirmed(self, name: str) -> None:
        waiter = self.confirming.pop(name, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def close(self) -> None:
        if self.sender is not None:
            self.sender.cancel()
            await asyncio.wait([self.sender])
            self.sender = None
        _fail(list(self.outbox), ConnectionError("the channel layer closed"))
        self.outbox.clear()
        if self.publisher is not None and self.client is not None:
            await self.client.connection_pool.release(self.publisher)
            self.publisher = None
        if self.receiver is not None:
            self.receiver.cancel()
            await asyncio.wait([self.receiver])
            self.receiver = None
        if self.pubsub is not None:
            try:
                await self.pubsub.aclose()
            except Exception:
                logger.exception("closing the subscriber failed")
            self.pubsub = None
        await _close_client(self.subscriber)
        await _close_client(self.client)
        self.subscriber = self.client = None
        self.subscribed = set()
        for name in list(self.confirming):
            self.confirmed(name)


class _LoopState:
    """The layer in one event loop: its channels' queues, its groups, its connections."""

    def __init__(self, layer: PubSubChannelLayer) -> None:
        self.layer = layer
        self.origin = uuid.uuid4().bytes
        self.local = self.origin.hex()[:12]  # in the names of this loop's channels
        self.channels: dict[str, asyncio.Queue] = {}
        self.groups: dict[str, set[str]] = {}  # a group's Redis channel -> its channels
        self.memberships: dict[str, set[str]] = {}  # a channel -> its groups' Redis channels
        self.shards = [_Shard(host, self) for host in layer.hosts]
        # id of the bytes -> (the bytes, kept so that the id is not reused; their decoding)
        self.decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self.lifetime: AsyncIterator[None] | None = None

    def shard(self, name: str) -> _Shard:
        if len(self.shards) == 1:
            return self.shards[0]
        # channels_redis's consistent hash: a name lives on the same Redis as there.
        ring = (binascii.crc32(name.encode()) & 0xFFF) / (4096 / len(self.shards))
        return self.shards[int(ring)]

    def wants(self, name: str) -> bool:
        return name in self.channels or name in self.groups

    async def open_channel(self, channel: str) -> asyncio.Queue:
        queue = self.channels[channel] = asyncio.Queue()
        name = redis_name(channel)
        try:
            await self.shard(name).subscribe(name)
        except BaseException:
            if self.channels.get(channel) is queue:
                del self.channels[channel]
            raise
        return queue

    def take(self, shard: _Shard, message: dict[str, Any]) -> None:
        """A message from the subscriber connection, into the queues it is for."""
        name = message["channel"]
        if isinstance(name, bytes):
            name = name.decode()
        if message["type"] == "subscribe":
            shard.confirmed(name)
            return
        if message["type"] != "message":
            return
        data = message["data"]
        if name.endswith(LOCAL):  # one of this loop's channels: its id first
            target, _, data = data.partition(TARGET_END)
            queue = self.channels.get(name + target.decode())
            if queue is not None:
                queue.put_nowait(data)
            return
        if data[:1] == ORIGIN_MARK:
            if data[1 : 1 + ORIGIN_SIZE] == self.origin:
                return  # this loop's own group message: its channels had it when it was sent
            data = data[1 + ORIGIN_SIZE :]
        queue = self.channels.get(name)
        if queue is not None:
            queue.put_nowait(data)
            return
        for channel in self.groups.get(name, ()):
            queue = self.channels.get(channel)
            if queue is not None:
                queue.put_nowait(data)  # the same bytes for all: decoded once

    def deliver_here(self, name: str, message: dict[str, Any]) -> bytes:
        """``message`` in the queue of each of this loop's channels of the group whose Redis
        channel is ``name``, as it is (nothing to decode for them: a copy of its top level,
        taken now; a sender does not change what it sent); what to publish for the others."""
        data = self.layer.serialize(message)  # a message Redis cannot carry goes nowhere
        members = self.groups.get(name)
        if members:
            sent = dict(message)
            for channel in members:
                queue = self.channels.get(channel)
                if queue is not None:
                    queue.put_nowait(sent)
        return ORIGIN_MARK + self.origin + data

    def forget_channel(self, channel: str) -> list[str]:
        """Forget ``channel`` and its memberships; the Redis channels nobody here wants now."""
        if self.channels.pop(channel, None) is None:
            return []
        gone = [] if LOCAL in channel else [channel]  # the loop's shared name stays
        for name in self.memberships.pop(channel, ()):
            members = self.groups.get(name)
            if members is not None:
                members.discard(channel)
                if not members:
                    del self.groups[name]
                    gone.append(name)
        return gone

    async def close(self) -> None:
        self.channels, self.groups, self.memberships = {}, {}, {}
        self.decoded.clear()
        for shard in self.shards:
            await shard.close()


class _SendingLoop:
    """An event loop of the process's own on a daemon thread, for senders that run none:
    ``async_to_sync`` would start a thread and a loop, and open a Redis connection, for
    every message they send. One per process (a forked child starts its own)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pid = 0

    def get(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="channel-layer-sender", daemon=True
                )
                thread.start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop


_SENDING_LOOP = _SendingLoop()


class PubSubChannelLayer(BaseChannelLayer):
    """Channels' layer on Redis pub/sub (see the module's docstring).

    Settings as channels_redis's pub/sub layer: ``hosts`` (a list of Redis URLs,
    ``(host, port)`` pairs or dicts of redis-py connection arguments with ``address``
    for the URL) and ``prefix`` of every channel's and group's Redis name; ``expiry``,
    ``capacity`` and ``channel_capacity`` are accepted and not enforced.
    """

    extensions = ["groups", "flush"]

    def __init__(
        self,
        hosts: Any = None,
        prefix: str = "asgi",
        expiry: int = 60,
        capacity: int = 100,
        channel_capacity: dict[str, int] | None = None,
    ) -> None:
        super().__init__(expiry=expiry, capacity=capacity, channel_capacity=channel_capacity)
        self.hosts = decode_hosts(hosts)
        self.prefix = prefix
        self.decodings = 0  # messages decoded, for tests and diagnostics
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )
        self._loops_lock = threading.Lock()  # async_to_sync calls come from other threads

    # The running loop's state

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._loops.get(loop)
        if state is None:
            state = self._open(loop)
        return state

    def _open(self, loop: asyncio.AbstractEventLoop) -> _LoopState:
        state = _LoopState(self)
        with self._loops_lock:
            # A loop closed without shutting down its async generators: its connections
            # are unusable; drop them with it.
            for closed in [other for other in self._loops if other.is_closed()]:
                del self._loops[closed]
            self._loops[loop] = state

        async def close() -> None:
            self.forget_loop(loop, state)
            await state.close()

        state.lifetime = until_loop_shutdown(close)  # closed with the loop
        return state

    def forget_loop(self, loop: asyncio.AbstractEventLoop, state: _LoopState) -> None:
        """Drop ``loop``'s state (its connections are being closed)."""
        with self._loops_lock:
            if self._loops.get(loop) is state:
                del self._loops[loop]

    def _group_channel(self, group: str) -> str:
        return f"{self.prefix}__group__{group}"

    @staticmethod
    def _require_message(message: Any) -> None:
        if not isinstance(message, dict):
            raise TypeError("a channel layer message must be a dict")

    # Serialization

    def serialize(self, message: dict[str, Any]) -> bytes:
        return msgpack.packb(message, use_bin_type=True)

    def deserialize(self, message: bytes) -> dict[str, Any]:
        """The message in ``message``; the same bytes object, taken by several channels of
        the running loop, is decoded once (each caller gets its own top-level dict; the
        values inside are shared: a handler reads a message, never edits it)."""
        try:
            state = self._loops.get(asyncio.get_running_loop())
        except RuntimeError:
            state = None
        if state is not None:
            known = state.decoded.get(id(message))
            if known is not None and known[0] is message:
                return dict(known[1])
        data = msgpack.unpackb(message, raw=False)
        self.decodings += 1
        if state is not None:
            state.decoded[id(message)] = (message, data)
            while len(state.decoded) > RECENT:
                state.decoded.popitem(last=False)
            return dict(data)
        return data

    def message(self, item: bytes | dict[str, Any]) -> dict[str, Any]:
        """A message as a channel's queue holds it (``receive`` reads it so): the bytes
        Redis carried, decoded (``deserialize``), or the dict a sender of the running loop
        gave, as a dict of the receiver's own."""
        if isinstance(item, bytes):
            return self.deserialize(item)
        return dict(item)

    # Channels' layer interface

    async def new_channel(self, prefix: str = "specific.") -> str:
        """A new channel of the running loop, subscribed in Redis when this returns."""
        state = self._state()
        channel = f"{self.prefix}{prefix}{state.local}{LOCAL}{uuid.uuid4().hex[:16]}"
        self.require_valid_channel_name(channel)
        await state.open_channel(channel)
        return channel

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        self.require_valid_channel_name(channel)
        self._require_message(message)
        name, data = redis_name(channel), self.serialize(message)
        if name != channel:
            data = channel[len(name) :].encode() + TARGET_END + data
        await self._state().shard(name).publish(name, data)

    async def receive(self, channel: str) -> dict[str, Any]:
        """The channel's next message. Cancelled, the channel is forgotten with its groups
        here and unsubscribed in the background (Channels cancels a consumer's ``receive``
        when the consumer ends)."""
        self.require_valid_channel_name(channel)  # a loop's channel, ``!`` and all
        state = self._state()
        queue = state.channels.get(channel)
        if queue is None:
            queue = await state.open_channel(channel)
        try:
            item = await queue.get()
        except (asyncio.CancelledError, TimeoutError, GeneratorExit):
            if state.channels.get(channel) is queue:
                for name in state.forget_channel(channel):
                    _in_background(
                        state.shard(name).unsubscribe(name),
                        "unsubscribing a cancelled receiver's channel failed",
                    )
            raise
        return self.message(item)

    async def group_add(self, group: str, channel: str) -> None:
        """Add a channel of the running loop to ``group``; subscribed when this returns."""
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        state = self._state()
        if channel not in state.channels:
            raise RuntimeError("group_add() takes a channel of this process (new_channel())")
        name = self._group_channel(group)
        state.groups.setdefault(name, set()).add(channel)
        state.memberships.setdefault(channel, set()).add(name)
        await state.shard(name).subscribe(name)

    async def group_discard(self, group: str, channel: str) -> None:
        self.require_valid_group_name(group)
        self.require_valid_channel_name(channel)
        state = self._state()
        name = self._group_channel(group)
        members = state.groups.get(name)
        if not members or channel not in members:
            return
        members.discard(channel)
        memberships = state.memberships.get(channel)
        if memberships is not None:
            memberships.discard(name)
            if not memberships:
                del state.memberships[channel]
        if not members:
            del state.groups[name]
            await state.shard(name).unsubscribe(name)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """Send to every channel of ``group``: those of the running loop have it when this
        returns (before Redis does), the others once Redis carries it."""
        self.require_valid_group_name(group)
        self._require_message(message)
        state = self._state()
        name = self._group_channel(group)
        data = state.deliver_here(name, message)
        await state.shard(name).publish(name, data)

    def group_send_blocking(
        self, group: str, message: dict[str, Any], *, timeout: float = BLOCKING_TIMEOUT
    ) -> None:
        """``group_send`` from a thread that runs no event loop, returning once Redis has
        taken the message (raising what ``group_send`` raises, or ``TimeoutError`` after
        ``timeout`` seconds). It goes out on the process's sending loop, on that loop's one
        publisher connection, in the order of the calls."""
        sending = asyncio.run_coroutine_threadsafe(
            self.group_send(group, message), _SENDING_LOOP.get()
        )
        try:
            sending.result(timeout)
        except concurrent.futures.TimeoutError:
            sending.cancel()
            raise

    async def flush(self) -> None:
        """Forget the running loop's channels and groups and close its connections; the
        layer is as new (it connects again when used)."""
        await self._state().close()

    async def close(self) -> None:
        """Close the running loop's connections and drop its state."""
        state = self._loops.get(asyncio.get_running_loop())
        if state is not None and state.lifetime is not None:
            await state.lifetime.aclose()

    # The project's own use of the layer

    def drop_channel(self, channel: str) -> None:
        """``channel``'s consumer is gone: forget its queue and its groups here, and
        unsubscribe in the background (a closing socket neither waits for Redis nor fails
        on it)."""
        state = self._state()
        for name in state.forget_channel(channel):
            _in_background(
                state.shard(name).unsubscribe(name), "unsubscribing a closed channel failed"
            )

    @contextlib.asynccontextmanager
    async def publishes_held(self) -> AsyncIterator[None]:
        """Hold every publish the running loop makes until the block ends, as a Redis that
        stalls would (for tests and fault drills): the loop's own channels still take
        its group messages at once. Those made before go out first."""
        shards = self._state().shards
        for shard in shards:
            if shard.sender is not None and not shard.sender.done():
                await asyncio.wait([shard.sender])
            shard.open.clear()
        try:
            yield
        finally:
            for shard in shards:
                shard.open.set()

    def announce(self, group: str, message: dict[str, Any]) -> None:
        """``group_send`` without waiting for Redis: the running loop's channels of the
        group have the message now, the others once the publish, queued behind the
        loop's earlier ones, is done (a failure is logged). For a sender in a loop that
        outlives its publishes (the server's)."""
        self.require_valid_group_name(group)
        self._require_message(message)
        state = self._state()
        name = self._group_channel(group)
        data = state.deliver_here(name, message)
        state.shard(name).post(name, data)
