"""Websocket edge of the games app: parse, call a service, relay events.

``TableConsumer`` speaks htmx's ws extension: the browser sends form values as JSON
(``ws-send``), the server answers with HTML fragments that htmx swaps in by id
(out-of-band). Every command is checked for who is asking; a refused one gets a
refusal fragment and changes nothing.

The live room's budget (DESIGN.md): on a group event the consumers of one process read
the table once (``selectors.table_snapshot``, shared through ``LIVE``), render what
every viewer sees alike once per kind of view, and each renders only his own hand, and
only when it changed; a move re-reads only its hand and is rendered in the event loop.
Presence travels as its own small event. Database work runs in a pool of threads (never
the one thread ``database_sync_to_async`` queues everything on), with persistent
connections.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from channels.consumer import get_handler_name
from channels.db import DatabaseSyncToAsync
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.utils import timezone, translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from core.channel_layer import PubSubChannelLayer
from games import commands, events, renderers, selectors, services
from games.commands import (
    AddBot,
    Asker,
    Chat,
    Command,
    Leave,
    PickUp,
    Play,
    Pong,
    Rematch,
    RemoveBot,
    Resync,
    Sit,
    Start,
)
from games.consumers_moderation import MODERATOR_HANDLERS, UserSocketMixin, user_is_banned
from games.models import Hand, MatchPlayer, Table, to_instant

logger = logging.getLogger(__name__)

T = TypeVar("T")
V = TypeVar("V")

# The page measures its lag with these (daphne pings every 20 s too, to keep the socket
# open): a ping and its pong are two frames per socket, so pinging more often costs
# as many frames as a busy room's moves.
PING_EVERY = 15.0
PRESENCE_TTL = 40  # a pong renews it; a socket that closes deletes it
# A pong refreshes presence and lag at most this often (written in one batch per process).
PONG_RECORD_EVERY = 10.0
LAG_REFRESH = 20.0  # the live room reads the players' lags again this often per table
PRESENCE_BATCH = 0.5  # seconds: the tables due for it within this are read together
PONG_FLUSH_EVERY = 2.0  # the process writes the pongs it collected in one call this often
COMMAND_BURST, COMMAND_WINDOW = 20, 5.0  # at most 20 frames in 5 seconds per socket
FLOOD_CLOSE = 5 * COMMAND_BURST  # a socket that keeps sending far past the limit is closed
MAX_FRAME = 4096  # characters: no command of ours is longer
CONNECTIONS_PER_MINUTE = 60  # per user (or per address for visitors)
SOCKETS_PER_USER, SOCKETS_PER_ADDRESS = 12, 40  # open at once, in one process
CLOSE_LIMITED = 4429
LOG_IN = gettext_lazy("Log in to play or chat.")
SLOW_DOWN = gettext_lazy("Too many commands; slow down.")


def in_pool(func: Callable[..., T]) -> Callable[..., Any]:
    """Run ``func`` in the thread pool, closing stale database connections around it
    (``database_sync_to_async`` would queue every call of the process on one thread)."""
    return DatabaseSyncToAsync(func, thread_sensitive=False)


class Recent(Generic[V]):
    """A few recent values per table, for the ``tables`` tables used last."""

    def __init__(self, *, tables: int, per_table: int) -> None:
        self.tables, self.per_table = tables, per_table
        self._by_table: OrderedDict[Hashable, OrderedDict[Hashable, V]] = OrderedDict()

    def get(self, table: Hashable, key: Hashable) -> V | None:
        entries = self._by_table.get(table)
        return None if entries is None else entries.get(key)

    def put(self, table: Hashable, key: Hashable, value: V) -> None:
        entries = self._by_table.get(table)
        if entries is None:
            entries = self._by_table[table] = OrderedDict()
            while len(self._by_table) > self.tables:
                self._by_table.popitem(last=False)
        else:
            self._by_table.move_to_end(table)
        entries[key] = value
        while len(entries) > self.per_table:
            entries.popitem(last=False)

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._by_table.values())


class LiveTables:
    """The live room's memory in one daphne process.

    An event reaches every socket of a table together: its snapshot is built once (the
    sockets await the same task in the event loop, holding no thread), and what viewers
    of a kind see alike is rendered once. The last snapshot of each table is kept as the
    frame the next move is applied to: a move's event carries what it changed on the
    hand (``events.hand_change``), so the process applies it to the frame without a
    query (``selectors.snapshot_after_change``); when the frame is not the version just
    before (an event missed, another hand), or was last read from the database more
    than ``frame_ttl`` seconds ago, the table is read again, in the pool: only its hand
    when the frame allows it (``selectors.table_snapshot``). Presence changes with its own
    events, applied to the frame; players' lags are read again every ``presence_ttl``
    seconds, in the background, for the moves after. Only the latest events are kept.
    A socket that opens reads the whole table, in one read with the sockets that open
    with it (``fresh``).
    """

    def __init__(
        self,
        size: int = 2048,
        frame_ttl: float = 120.0,
        presence_ttl: float = LAG_REFRESH,
    ) -> None:
        self.size = size  # tables remembered
        self.frame_ttl = frame_ttl
        self.presence_ttl = presence_ttl
        self.hits = 0
        self.applied = 0  # snapshots built from an event's change, without a read
        self.reads = 0  # reads of a table from the database
        # Per table, the snapshots of its last few events: every socket of a table takes
        # an event within milliseconds, so older ones are garbage (kept longer, they
        # would fill the heap and lengthen the collector's full passes).
        self._snapshots: Recent[asyncio.Future] = Recent(tables=size, per_table=2)
        # table id -> the last fresh read and when its thread started it (empty: waiting)
        self._fresh: dict[int, tuple[asyncio.Future, list[float]]] = {}
        # table id -> (snapshot, when it was read, when its presence was read)
        self._frames: dict[int, tuple[selectors.TableSnapshot, float, float]] = {}
        self._renders: Recent[str] = Recent(tables=size, per_table=16)
        self._lock = threading.Lock()  # renders are shared with the pool's threads
        self._due: dict[int, selectors.TableSnapshot] = {}  # presence to read again
        self._presence_reader: asyncio.Task | None = None

    async def snapshot(
        self,
        table_id: int,
        *,
        event: str | None,
        hand_id: int | None = None,
        version: int | None = None,
        change: dict[str, Any] | None = None,
        since: float | None = None,
    ) -> selectors.TableSnapshot:
        """The table at ``event``; without one, a fresh read of everything that started
        after ``since`` (``fresh``)."""
        if event is None:
            return await self.fresh(table_id, since=time.monotonic() if since is None else since)
        task = self._snapshots.get(table_id, event)
        if task is None:
            # A move's change applied to the frame here and now: no task, no turn of the
            # loop between the event and its render (one turn is milliseconds under load).
            applied = self._apply(table_id, hand_id, version, change)
            if applied is not None:
                task = asyncio.get_running_loop().create_future()
                task.set_result(applied)
                self._snapshots.put(table_id, event, task)
                return applied
            entry = self._frame(table_id) if hand_id is not None else None
            frame = entry[0] if entry is not None else None
            task = asyncio.ensure_future(self._read(table_id, hand_id, frame))
            self._snapshots.put(table_id, event, task)
        else:
            self.hits += 1
        return await asyncio.shield(task)  # a socket that closes does not cancel the read

    def _apply(
        self,
        table_id: int,
        hand_id: int | None,
        version: int | None,
        change: dict[str, Any] | None,
    ) -> selectors.TableSnapshot | None:
        """The table after ``change``, from the frame; None when the frame cannot take it
        (the table is then read)."""
        if hand_id is None or change is None or version is None:
            return None
        entry = self._frame(table_id)
        if entry is None:
            return None
        frame, read_at, presence_at = entry
        snapshot = selectors.snapshot_after_change(
            frame, hand_id=hand_id, version=version, change=change
        )
        if snapshot is None:
            return None
        self.applied += 1
        self._frames[table_id] = (snapshot, read_at, presence_at)
        if time.monotonic() - presence_at > self.presence_ttl:
            self._frames[table_id] = (snapshot, read_at, time.monotonic())
            self._presence_due(table_id, snapshot)
        return snapshot

    async def fresh(self, table_id: int, *, since: float) -> selectors.TableSnapshot:
        """A read of the whole table that started after ``since`` (a monotonic time).

        A socket that joined the table's group at ``since`` gets every change after such
        a read from events, so the sockets connecting to a table together (a page load,
        everybody coming back after a restart) share one read: one that is waiting for
        a thread, or that started after they joined, is theirs too.
        """
        entry = self._fresh.get(table_id)
        if entry is not None:
            task, started = entry
            failed = task.done() and (task.cancelled() or task.exception() is not None)
            if not failed and (not started or started[0] >= since):
                self.hits += 1
                return await asyncio.shield(task)
        started = []  # the thread that reads notes when it starts
        task = asyncio.ensure_future(self._read(table_id, None, started=started))
        self._fresh[table_id] = (task, started)
        while len(self._fresh) > self.size:
            self._fresh.pop(next(iter(self._fresh)))
        return await asyncio.shield(task)

    async def _read(
        self,
        table_id: int,
        hand_id: int | None,
        frame: selectors.TableSnapshot | None = None,
        *,
        started: list[float] | None = None,
    ) -> selectors.TableSnapshot:
        self.reads += 1

        def read() -> selectors.TableSnapshot:
            if started is not None:
                started.append(time.monotonic())
            return selectors.table_snapshot(table_id=table_id, frame=frame, hand_id=hand_id)

        snapshot = await in_pool(read)()
        now = time.monotonic()
        self._frames[table_id] = (snapshot, now, now)
        return snapshot

    def known(self, table_id: int) -> tuple[Hand, list[MatchPlayer], int] | None:
        """The table's hand as this process last showed it, with its match's players and
        the table's id: what a move is judged on without a read (``hand_act_in_loop``,
        which writes it only if the row is still at the hand's version)."""
        entry = self._frame(table_id)
        if entry is None or entry[0].hand is None:
            return None
        return entry[0].hand, entry[0].match_players, table_id

    def _frame(self, table_id: int) -> tuple[selectors.TableSnapshot, float, float] | None:
        entry = self._frames.get(table_id)
        now = time.monotonic()
        if len(self._frames) > self.size:
            self._frames = {k: v for k, v in self._frames.items() if now - v[1] < self.frame_ttl}
        if entry is None or now - entry[1] > self.frame_ttl:
            return None
        return entry

    def _presence_due(self, table_id: int, snapshot: selectors.TableSnapshot) -> None:
        """Read the players' lags of the table again for the moves to come (this one shows
        the last), with the other tables due within ``PRESENCE_BATCH`` seconds: in one
        read of the cache, in one trip to the pool. The tables whose sockets opened
        together (a restart, the evening's start) are due together, and one read each
        would be a burst of hundreds in the pool, holding up the event loop."""
        self._due[table_id] = snapshot
        loop = asyncio.get_running_loop()
        reader = self._presence_reader
        if reader is None or reader.done() or reader.get_loop() is not loop:
            self._presence_reader = loop.create_task(self._read_presence_soon())

    async def _read_presence_soon(self) -> None:
        await asyncio.sleep(PRESENCE_BATCH)
        due, self._due = self._due, {}
        try:
            found = await in_pool(selectors.tables_presence)(
                [(snapshot.table, snapshot.match_players) for snapshot in due.values()]
            )
        except Exception:
            logger.exception("reading the presence of %d tables failed", len(due))
            return
        for table_id, presence in found.items():
            entry = self._frames.get(table_id)
            if entry is not None:
                frame, read_at, presence_at = entry
                self._frames[table_id] = (frame.evolve(presence=presence), read_at, presence_at)

    def shows_presence(self, table_id: int, user_id: int) -> bool:
        """Whether the table, as this process last read it, shows ``user_id``'s presence
        mark (``TableSnapshot.presence_marks``); True when it has no read of the table."""
        entry = self._frames.get(table_id)
        return entry is None or user_id in entry[0].presence_marks

    def presence_seen(self, table_id: int, user_id: int, *, connected: bool) -> None:
        """A player's socket came or went: the frame shows it from now on."""
        entry = self._frames.get(table_id)
        if entry is None:
            return
        snapshot, read_at, presence_at = entry
        if user_id not in snapshot.presence:
            return
        lag = snapshot.presence[user_id][1] if connected else None
        presence = {**snapshot.presence, user_id: (connected, lag)}
        self._frames[table_id] = (snapshot.evolve(presence=presence), read_at, presence_at)

    def shared(self, key: tuple, render: Callable[[], str]) -> str:
        """A fragment rendered once for every viewer who sees it alike (``key``: the table
        first, then the event and the kind of view)."""
        with self._lock:
            html = self._renders.get(key[0], key[1:])
            if html is not None:
                self.hits += 1
                return html
        html = render()
        with self._lock:
            self._renders.put(key[0], key[1:], html)
        return html


LIVE = LiveTables()


class PongBook:
    """Presence and lag from the pongs of every socket of the process, written to the
    cache together every ``PONG_FLUSH_EVERY`` seconds: one call, not one per socket."""

    def __init__(self) -> None:
        self._pending: dict[tuple[int, int], int] = {}
        self._flusher: asyncio.Task | None = None

    def record(self, table_id: int, user_id: int, lag_ms: int) -> None:
        self._pending[(table_id, user_id)] = lag_ms
        loop = asyncio.get_running_loop()
        flusher = self._flusher
        if flusher is None or flusher.done() or flusher.get_loop() is not loop:
            self._flusher = loop.create_task(self._flush_forever())

    def forget(self, table_id: int, user_id: int) -> None:
        """The socket closed: a pong still waiting must not mark him present again."""
        self._pending.pop((table_id, user_id), None)

    async def _flush_forever(self) -> None:
        while True:
            await asyncio.sleep(PONG_FLUSH_EVERY)
            if self._pending:
                batch, self._pending = self._pending, {}
                try:
                    await in_pool(_write_pongs)(batch)
                except Exception:  # the cache is down: presence shows off, play goes on
                    logger.exception("writing %d pongs failed", len(batch))


def _write_pongs(batch: dict[tuple[int, int], int]) -> None:
    values: dict[str, object] = {}
    for (table_id, user_id), lag_ms in batch.items():
        values[selectors.presence_key(table_id, user_id)] = True
        values[selectors.lag_key(table_id, user_id)] = lag_ms
    cache.set_many(values, PRESENCE_TTL)


PONGS = PongBook()


class OpenSockets:
    """Sockets open at once in this process, per user (or per address for visitors)."""

    def __init__(self) -> None:
        self._open: Counter[str] = Counter()

    def take(self, who: str, limit: int) -> bool:
        if self._open[who] >= limit:
            return False
        self._open[who] += 1
        return True

    def give_back(self, who: str) -> None:
        self._open[who] -= 1
        if self._open[who] <= 0:
            del self._open[who]


OPEN_SOCKETS = OpenSockets()


def _who(scope: dict[str, Any]) -> tuple[str, int]:
    """Whom a socket counts against, and how many he may hold open at once."""
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return f"u{user.pk}", SOCKETS_PER_USER
    client = scope.get("client") or ("unknown", 0)
    return f"ip{client[0]}", SOCKETS_PER_ADDRESS


def connection_allowed(scope: dict[str, Any]) -> bool:
    """Count a new socket against its user's (or address's) budget per minute."""
    who, _limit = _who(scope)
    key = f"ws-connects:{who}:{int(time.time() // 60)}"
    cache.add(key, 0, 70)
    try:
        return cache.incr(key) <= CONNECTIONS_PER_MINUTE
    except ValueError:
        return True


class _Frame:
    """A message from the websocket, in the queue of the channel layer's messages."""

    __slots__ = ("error", "message")

    def __init__(self, message: dict[str, Any] | None, error: BaseException | None = None) -> None:
        self.message, self.error = message, error


async def _pump(receive: Callable[[], Any], inbox: asyncio.Queue) -> None:
    """The websocket's messages into ``inbox``, as they come."""
    while True:
        try:
            message = await receive()
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # the consumer raises it, as Channels' loop would
            inbox.put_nowait(_Frame(None, error))
            return
        inbox.put_nowait(_Frame(message))


class LimitedSocketMixin:
    """Caps a user's sockets open at once and the frames each socket may send; and
    dispatches without Channels' thread hop per message, from one queue.

    Channels' consumer waits on two tasks, the websocket's next message and the channel
    layer's: a message that came in woke its task, whose end woke ``asyncio.wait``,
    which woke the consumer, three turns of the event loop (each one milliseconds under
    load). Here the websocket's messages are put in the queue the channel layer
    puts the group's messages in (``core.channel_layer``), and the consumer waits on that one
    queue: a group's message wakes it in one turn.
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        layer = get_channel_layer(self.channel_layer_alias)
        if not isinstance(layer, PubSubChannelLayer):  # embedded mode: Channels' own loop
            await super().__call__(scope, receive, send)
            return
        self.scope, self.channel_layer, self.base_send = scope, layer, send
        self.channel_name = await layer.new_channel()
        queue = getattr(receive, "__self__", None)
        pump = None
        if isinstance(queue, asyncio.Queue) and receive == queue.get:
            # The server's queue of the websocket's messages (daphne's, and the tests'):
            # the layer puts the group's messages in it too, and a frame that comes in
            # wakes the consumer in one turn of the loop, not two.
            inbox = layer.adopt(self.channel_name, queue)
        else:
            inbox = layer.inbox(self.channel_name)
            pump = asyncio.ensure_future(_pump(receive, inbox))
        try:
            while True:
                item = await inbox.get()
                if isinstance(item, bytes):
                    message = layer.deserialize(item)
                elif isinstance(item, _Frame):
                    if item.error is not None:
                        raise item.error
                    message = item.message
                else:
                    message = item
                await self.dispatch(message)
        except StopConsumer:
            pass
        finally:
            if pump is not None:
                pump.cancel()
            layer.drop_channel(self.channel_name)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels closes stale database connections before every message, in a thread
        of its own: four hops per move and one per pong for each socket. Every database
        call of ours runs through ``in_pool``, which closes them around itself."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    socket_owner: str | None = None

    def take_socket(self) -> bool:
        who, limit = _who(self.scope)
        if not OPEN_SOCKETS.take(who, limit):
            return False
        self.socket_owner = who
        return True

    def give_back_socket(self) -> None:
        if self.socket_owner is not None:
            OPEN_SOCKETS.give_back(self.socket_owner)
            self.socket_owner = None

    def frame_allowed(self) -> bool:
        """Count one frame (of any kind: commands, pongs, garbage) against the window."""
        now = time.monotonic()
        times = [t for t in getattr(self, "frame_times", []) if now - t < COMMAND_WINDOW]
        times.append(now)
        self.frame_times = times
        return len(times) <= COMMAND_BURST


class TableConsumer(LimitedSocketMixin, UserSocketMixin, AsyncWebsocketConsumer):
    """One viewer of one table: a seated player or a spectator."""

    table_id: int
    # What this socket shows: (hand id, hand version) of the last table sent, and the key
    # of the last own hand sent (it is rendered again only when it changed).
    position: tuple[int, int] = (-1, -1)
    my_hand_key: tuple | None = None
    pong_recorded: float = float("-inf")

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.language = _scope_language(self.scope)
        if not self.take_socket():
            await self.close(code=CLOSE_LIMITED)
            return
        allowed = await in_pool(self._may_watch)()
        if not allowed:
            await self.close(code=4403)
            return
        self.group = events.table_group(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.joined_at = time.monotonic()  # every change after this reaches the socket
        await self.join_user_group()
        await self.accept()
        await self._send_table(full=True, since=self.joined_at, arriving=True)
        if self._has_presence_mark():
            await events.presence_changed(self.table_id, self.user.pk, connected=True)
        self.pinger = asyncio.create_task(self._ping_forever())

    def _may_watch(self) -> bool:
        if user_is_banned(self.user) or not connection_allowed(self.scope):
            return False
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return False
        session = self.scope.get("session") or {}
        return selectors.can_view_table(table, self.user, session.get("invited_tables", []))

    async def disconnect(self, code: int) -> None:
        self.give_back_socket()
        if hasattr(self, "pinger"):
            self.pinger.cancel()
        await self.leave_user_group()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            if self._is_user():
                PONGS.forget(self.table_id, self.user.pk)
                await in_pool(self._mark_absent)()
                if self._has_presence_mark():
                    await events.presence_changed(self.table_id, self.user.pk, connected=False)

    # --- presence and lag ---------------------------------------------------------------

    def _is_user(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    def _has_presence_mark(self) -> bool:
        """Only a player of the hand has a mark on the table's pages: the comings and
        goings of anyone else (a spectator) would be fragments with no place to go."""
        return self._is_user() and LIVE.shows_presence(self.table_id, self.user.pk)

    def _mark_present(self) -> None:
        cache.set(selectors.presence_key(self.table_id, self.user.pk), True, PRESENCE_TTL)

    def _mark_absent(self) -> None:
        cache.delete(selectors.presence_key(self.table_id, self.user.pk))

    async def _ping_forever(self) -> None:
        while True:
            await self.send(text_data=renderers.ping_fragment(time.monotonic()))
            await asyncio.sleep(PING_EVERY)

    async def presence_changed(self, event: dict[str, Any]) -> None:
        LIVE.presence_seen(self.table_id, int(event["user"]), connected=bool(event["on"]))
        with translation.override(self.language):
            html = renderers.presence_fragment(int(event["user"]), connected=bool(event["on"]))
        await self.send(text_data=html)

    # --- commands from the browser ----------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.frame_allowed():
            if len(self.frame_times) > FLOOD_CLOSE:
                await self.close(code=CLOSE_LIMITED)
            elif len(self.frame_times) == COMMAND_BURST + 1:
                await self._refuse(SLOW_DOWN)
            return
        try:
            command = commands.read(text_data, max_length=MAX_FRAME)
        except commands.BadCommand as bad:
            if not bad.quiet:
                visitor = bad.needs_login and not self._is_user()
                await self._refuse(LOG_IN if visitor else bad.message)
            return
        if command.anyone:
            await LOOP_HANDLERS[type(command)](self, command)
            return
        if not self._is_user():
            await self._refuse(LOG_IN)
            return
        try:
            if not await self._move_in_loop(command):
                await in_pool(self._run)(command)
        except services.Refused as refusal:
            await self._refuse(refusal.message)
            if refusal.resync:
                await self._send_table(full=True)

    async def _on_pong(self, command: Pong) -> None:
        now = time.monotonic()
        lag_ms = max(0, int((now - command.t) * 1000))
        if self._is_user() and lag_ms < 60_000 and now - self.pong_recorded >= PONG_RECORD_EVERY:
            self.pong_recorded = now
            PONGS.record(self.table_id, self.user.pk, lag_ms)

    async def _on_resync(self, command: Resync) -> None:
        await self._send_table(full=True)

    async def _move_in_loop(self, command: Command) -> bool:
        """A move, made in the event loop when it can be (``services.hand_act_in_loop``);
        False: the pool's ``hand_act`` makes it (or refuses it)."""
        if not isinstance(command, Play | PickUp) or self.position[0] <= 0:
            return False
        # Made in the consumer's own task: a task of its own, shielded, would cost two
        # turns of the event loop (its start, then waking the consumer). A socket that closes does
        # not cut it: the consumer takes the close after the move; only the server's
        # shutdown cancels a consumer mid-move, and every socket of it opens again and
        # reads the table.
        with translation.override(self.language):
            hand = await services.hand_act_in_loop(
                hand_id=self.position[0],
                move=command.move(),
                version=command.version,
                user=self.user,
                known=LIVE.known(self.table_id),
            )
        return hand is not None

    def _run(self, command: Command) -> None:
        """One signed-in user's command as one service call (every check of who may do
        it, his seat and his turn lives in the service), in the pool."""
        with translation.override(self.language):
            asker = Asker(user=self.user, table_id=self.table_id, hand_id=self.position[0])
            SERVICE_HANDLERS[type(command)](asker, command)

    async def _refuse(self, message: str | Promise) -> None:
        """Show a refusal, translated in the viewer's language (``message`` may be lazy)."""
        with translation.override(self.language):
            html = renderers.notice_fragment(str(message))
        await self.send(text_data=html)

    # --- events from the group -----------------------------------------------------------------

    async def table_changed(self, event: dict[str, Any]) -> None:
        hand, version = event.get("hand"), event.get("version")
        full = hand is None or version is None
        if not full and (hand, version) <= self.position:
            return  # an older event overtaken by a newer render: nothing new to show
        await self._send_table(
            full=full,
            event=event.get("id"),
            hand_id=hand,
            version=version,
            change=event.get("change"),
        )

    async def chat_changed(self, event: dict[str, Any]) -> None:
        html = await in_pool(self._render_chat)()
        await self.send(text_data=html)

    async def _send_table(
        self,
        *,
        full: bool,
        event: str | None = None,
        hand_id: int | None = None,
        version: int | None = None,
        change: dict[str, Any] | None = None,
        since: float | None = None,
        arriving: bool = False,
    ) -> None:
        """Send this viewer the table at ``event`` (None: as a fresh read shows it, after
        ``since``); ``arriving``: the socket just opened, and marks its user present."""
        snapshot = await LIVE.snapshot(
            self.table_id,
            event=event,
            hand_id=hand_id,
            version=version,
            change=change,
            since=since,
        )
        if snapshot.position < self.position and not full:
            return
        if full:  # the seats, whose tools depend on the viewer's rights (a query)
            html = await in_pool(self._render_full)(snapshot, event, arriving)
        else:  # a move: rendered from the snapshot alone, here in the event loop
            html = self._render_table(snapshot, full, event)
        await self.send(text_data=html)

    def _render_full(
        self, snapshot: selectors.TableSnapshot, event: str | None, arriving: bool
    ) -> str:
        """Everything of the table for this viewer, in one trip to the pool: on a fresh
        read the clock's layer 1 first (an overdue timeout is applied before the table
        is shown), and a socket that just opened marks its user present."""
        if arriving and self._is_user():
            self._mark_present()
        hand = snapshot.hand
        overdue = hand is not None and hand.clock.flagged(to_instant(timezone.now())) is not None
        if event is None and overdue and services.hand_check_deadline(hand_id=hand.pk):
            snapshot = selectors.table_snapshot(table_id=self.table_id)
        return self._render_table(snapshot, True, event)

    def _render_table(
        self, snapshot: selectors.TableSnapshot, full: bool, event: str | None
    ) -> str:
        """This viewer's fragments of the table at an event: the hand's parts shared by
        kind of view, the own hand when it changed, and on a full render the seats.

        A move at a table in play shows every viewer the same shared parts (nobody has a
        start or rematch button then); a viewer's own view is built only when his own
        hand's fragment changes (``_own_key``): at a table of four, for the player who
        moved and the one whose turn it is."""
        with translation.override(self.language):
            own_key = _own_key(snapshot, self.user if self._is_user() else None)
            if not full and snapshot.table.status == Table.Status.PLAYING:
                parts = [
                    self._shared(
                        ("hand", event, False, False),
                        lambda: renderers.hand_fragments(
                            selectors.table_view(snapshot=snapshot, viewer=None, with_chat=False)
                        ),
                    )
                ]
                if own_key != self.my_hand_key:
                    view = selectors.table_view(
                        snapshot=snapshot, viewer=self.user, with_chat=False
                    )
                    parts.append(renderers.my_hand_fragment(view))
                    self.my_hand_key = own_key
                self.position = snapshot.position
                return "".join(parts)
            view = selectors.table_view(snapshot=snapshot, viewer=self.user, with_chat=False)
            parts = [
                self._shared(
                    ("hand", event, view.can_start, view.can_rematch),
                    lambda: renderers.hand_fragments(view),
                )
            ]
            if full or own_key != self.my_hand_key:
                parts.append(renderers.my_hand_fragment(view))
                self.my_hand_key = own_key
            if full:
                seats = lambda: renderers.seats_fragment(view)  # noqa: E731
                if selectors.sees_as_spectator(self.user, snapshot.insiders):
                    parts.append(self._shared(("seats", event, self._is_user()), seats))
                else:
                    parts.append(seats())
        self.position = snapshot.position
        return "".join(parts)

    def _shared(self, key: tuple, render: Callable[[], str]) -> str:
        """A fragment shared by the viewers of this process alike at one event."""
        if key[1] is None:
            return render()
        return LIVE.shared((self.table_id, self.language, *key), render)

    def _render_chat(self) -> str:
        with translation.override(self.language):
            table = Table.objects.get(pk=self.table_id)
            return renderers.chat_fragment(table, viewer=self.user)


def _own_key(snapshot: selectors.TableSnapshot, user: User | None) -> tuple:
    """Everything one's own hand's fragment shows, read from the snapshot without
    building the view: the same key, the same fragment (``renderers.my_hand_fragment``).
    Its moves change with the version while it is his turn."""
    hand, state = snapshot.hand, snapshot.state
    if hand is None or state is None:
        return (None,)
    seat = next(
        (p.seat for p in snapshot.match_players if user is not None and p.user_id == user.pk),
        None,
    )
    if seat is None:
        return (hand.pk, None, hand.is_over)
    return (
        hand.pk,
        seat,
        state.hand(seat),
        hand.version if seat == state.to_move else None,
        hand.outcome is None and hand.clock.running == seat,
        hand.is_over,
    )


class LobbyConsumer(LimitedSocketMixin, UserSocketMixin, AsyncWebsocketConsumer):
    """The lobby's live list of open tables."""

    async def connect(self) -> None:
        if user_is_banned(self.scope.get("user")):
            await self.close(code=4403)
            return
        if not self.take_socket():
            await self.close(code=CLOSE_LIMITED)
            return
        allowed = await in_pool(connection_allowed)(self.scope)
        if not allowed:
            await self.close(code=CLOSE_LIMITED)
            return
        self.language = _scope_language(self.scope)
        await self.channel_layer.group_add(events.LOBBY_GROUP, self.channel_name)
        await self.join_user_group()
        await self.accept()

    async def disconnect(self, code: int) -> None:
        self.give_back_socket()
        await self.leave_user_group()
        await self.channel_layer.group_discard(events.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The lobby only listens; a socket that keeps talking is closed.
        if not self.frame_allowed() and len(self.frame_times) > FLOOD_CLOSE:
            await self.close(code=CLOSE_LIMITED)

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        html = await in_pool(self._render)(event.get("id"))
        await self.send(text_data=html)

    def _render(self, event: str | None) -> str:
        with translation.override(self.language):
            if event is None:
                return renderers.lobby_fragment()
            return LIVE.shared(("lobby", event, self.language), renderers.lobby_fragment)


# --- the table of commands ------------------------------------------------------------------

# Answered in the event loop, for anyone (visitors too).
LOOP_HANDLERS: dict[type[Command], Callable[[TableConsumer, Any], Any]] = {
    Pong: TableConsumer._on_pong,
    Resync: TableConsumer._on_resync,
}


def _hand_shown(asker: Asker) -> int:
    """The hand the asker's page shows: a move meant for it never lands on another (the
    service refuses a hand that has moved on, and the page resyncs)."""
    if asker.hand_id <= 0:
        raise services.Refused(_("No hand is being played here."))
    return asker.hand_id


def _play(asker: Asker, command: Play | PickUp) -> None:
    services.hand_act(
        hand_id=_hand_shown(asker), move=command.move(), version=command.version, user=asker.user
    )


def _sit(asker: Asker, command: Sit) -> None:
    services.table_sit(table_id=asker.table_id, user=asker.user, position=command.position)


def _leave(asker: Asker, command: Leave) -> None:
    services.table_leave(table_id=asker.table_id, user=asker.user)


def _add_bot(asker: Asker, command: AddBot) -> None:
    services.table_add_bot(
        table_id=asker.table_id, by=asker.user, position=command.position, level=command.level
    )


def _remove_bot(asker: Asker, command: RemoveBot) -> None:
    services.table_remove_bot(table_id=asker.table_id, by=asker.user, position=command.position)


def _start(asker: Asker, command: Start) -> None:
    services.match_start(table_id=asker.table_id, by=asker.user)


def _rematch(asker: Asker, command: Rematch) -> None:
    services.match_rematch(table_id=asker.table_id, by=asker.user)


def _chat(asker: Asker, command: Chat) -> None:
    services.chat_post(table_id=asker.table_id, user=asker.user, text=command.text)


# A signed-in user's commands: each one service call, run in the pool (TableConsumer._run).
SERVICE_HANDLERS: dict[type[Command], Callable[[Asker, Any], None]] = {
    Play: _play,
    PickUp: _play,
    Sit: _sit,
    Leave: _leave,
    AddBot: _add_bot,
    RemoveBot: _remove_bot,
    Start: _start,
    Rematch: _rematch,
    Chat: _chat,
    **MODERATOR_HANDLERS,
}


def _scope_language(scope: dict[str, Any]) -> str:
    """The language to render in: the user's, else the language cookie's, else the browser's."""
    from django.conf import settings
    from django.utils.translation.trans_real import parse_accept_lang_header

    supported = dict(settings.LANGUAGES)
    user = scope.get("user")
    if user is not None and user.is_authenticated and user.language in supported:
        return user.language
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME, "")
    if cookie in supported:
        return cookie
    for name, value in scope.get("headers", []):
        if name == b"accept-language":
            for code, _quality in parse_accept_lang_header(value.decode("latin-1")):
                if code[:2] in supported:
                    return code[:2]
    return settings.LANGUAGE_CODE
