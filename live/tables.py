"""The live room's memory of the tables in one daphne process (``LIVE``).

The live room keeps a table's snapshot without knowing what it holds: the app that owns
the tables (games) connects a ``TableSource`` in its ``ready()``, which reads a table,
applies a move's change to a snapshot and answers for its presence marks.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

from live.db import in_pool

logger = logging.getLogger(__name__)

V = TypeVar("V")
S = TypeVar("S")  # a table's snapshot: the source's own type, opaque here

LAG_REFRESH = 20.0  # the live room reads the players' lags again this often per table
PRESENCE_BATCH = 0.5  # seconds: the tables due for it within this are read together
FRESH_BATCH = 100  # tables read together at most, when their sockets open at once


class NoSuchTable(LookupError):
    """The table a socket asked for does not exist."""


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


class TableSource(Protocol[S]):
    """What the live room asks of the app whose tables it shows (connected with
    ``LiveTables.connect``). Presence is a player's (connected, lag) by user id."""

    def read(self, table_id: int, *, frame: S | None, hand_id: int | None) -> S:
        """The table read from the database (in a thread of the pool): only its hand
        ``hand_id`` when ``frame`` allows it, else everything."""
        ...

    def read_many(self, table_ids: list[int]) -> dict[int, S]:
        """Several whole tables read together (in a thread of the pool), by id, in as many
        queries as one; a table that does not exist is left out."""
        ...

    def apply(self, frame: S, *, hand_id: int, version: int, change: dict[str, Any]) -> S | None:
        """``frame`` after a move's ``change`` (its event's), without a read; None when the
        frame cannot take it (another hand, a version missed)."""
        ...

    def read_presence(self, frames: list[S]) -> dict[int, Any]:
        """The players' presence of several tables, by table id, in one read (a thread)."""
        ...

    def with_presence(self, frame: S, presence: Any) -> S:
        """``frame`` with the presence ``read_presence`` found for its table."""
        ...

    def presence_seen(self, frame: S, user_id: int, *, connected: bool) -> S | None:
        """``frame`` with a player's socket come or gone; None when he has no place in it."""
        ...

    def shows_presence(self, frame: S, user_id: int) -> bool:
        """Whether the table shows ``user_id``'s presence mark."""
        ...

    def known(self, frame: S, table_id: int) -> Any:
        """What a move is judged on without a read (the hand as the frame shows it), or
        None."""
        ...

    def position(self, frame: S) -> tuple[int, int]:
        """Where the table stands in ``frame``: later frames stand after earlier ones."""
        ...


class LiveTables(Generic[S]):
    """The live room's memory in one daphne process.

    An event reaches every socket of a table together: its snapshot is built once (the
    sockets await the same task in the event loop, holding no thread), and what viewers
    of a kind see alike is rendered once. The last snapshot of each table is kept as the
    frame the next move is applied to: a move's event carries what it changed on the
    hand, so the process applies it to the frame without a query (``TableSource.apply``);
    when the frame is not the version just before (an event missed, another hand), or
    was last read from the database more than ``frame_ttl`` seconds ago, the table is
    read again, in the pool: only its hand when the frame allows it
    (``TableSource.read``). What only a read shows (a player's rating after a match at
    another table) is read again before that, in the background: a move on a frame read
    more than ``refresh_after`` seconds ago is shown from its change at once, and the
    table is read for the moves after it, with the other tables due meanwhile
    (``_refresh_soon``). Presence changes with its own
    events, applied to the frame; players' lags are read again every ``presence_ttl``
    seconds, in the background, for the moves after. Only the latest events are kept.
    A socket that opens reads the whole table, in one read with the sockets that open
    with it, and with the other tables asked for while a read was under way (``fresh``).
    """

    def __init__(
        self,
        size: int = 2048,
        frame_ttl: float = 120.0,
        presence_ttl: float = LAG_REFRESH,
        refresh_after: float = 90.0,
    ) -> None:
        self.size = size  # tables remembered
        self.frame_ttl = frame_ttl
        self.refresh_after = refresh_after
        self.refreshes = 0  # tables read again in the background
        self.presence_ttl = presence_ttl
        self.hits = 0
        self.applied = 0  # snapshots built from an event's change, without a read
        self.reads = 0  # reads of a table from the database
        self.source: TableSource[S] | None = None
        # Per table, the snapshots of its last few events: every socket of a table takes
        # an event within milliseconds, so older ones are garbage (kept longer, they
        # would fill the heap and lengthen the collector's full passes).
        self._snapshots: Recent[asyncio.Future] = Recent(tables=size, per_table=2)
        # table id -> the last fresh read and when its thread started it (empty: waiting)
        self._fresh: dict[int, tuple[asyncio.Future, list[float]]] = {}
        self._fresh_waiting: dict[int, tuple[asyncio.Future, list[float]]] = {}
        self._fresh_reader: asyncio.Task | None = None
        # table id -> (snapshot, when it was read, when its presence was read)
        self._frames: dict[int, tuple[S, float, float]] = {}
        self._renders: Recent[str] = Recent(tables=size, per_table=16)
        # Per table, what a page shows once it took one of its last shared renders, by
        # language and render: a page that took one is sent only what changed since.
        self._shown: Recent[Any] = Recent(tables=size, per_table=8)
        self._lock = threading.Lock()  # renders are shared with the pool's threads
        self._due: dict[int, S] = {}  # presence to read again
        self._presence_reader: asyncio.Task | None = None
        self._refreshing: set[int] = set()  # tables to read again, or being read
        self._refresh_waiting: list[int] = []
        self._refresh_reader: asyncio.Task | None = None

    def connect(self, source: TableSource[S]) -> None:
        """The app that owns the tables says how to read and update them (in ``ready()``)."""
        self.source = source

    def _source(self) -> TableSource[S]:
        if self.source is None:
            raise RuntimeError("no TableSource connected to the live room (LiveTables.connect)")
        return self.source

    async def snapshot(
        self,
        table_id: int,
        *,
        event: str | None,
        hand_id: int | None = None,
        version: int | None = None,
        change: dict[str, Any] | None = None,
        since: float | None = None,
    ) -> S:
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
    ) -> S | None:
        """The table after ``change``, from the frame; None when the frame cannot take it
        (the table is then read)."""
        if hand_id is None or change is None or version is None:
            return None
        entry = self._frame(table_id)
        if entry is None:
            return None
        frame, read_at, presence_at = entry
        snapshot = self._source().apply(frame, hand_id=hand_id, version=version, change=change)
        if snapshot is None:
            return None
        self.applied += 1
        self._frames[table_id] = (snapshot, read_at, presence_at)
        now = time.monotonic()
        if now - read_at > self.refresh_after:
            self._refresh_soon(table_id)
        elif now - presence_at > self.presence_ttl:
            self._frames[table_id] = (snapshot, read_at, now)
            self._presence_due(table_id, snapshot)
        return snapshot

    async def fresh(self, table_id: int, *, since: float) -> S:
        """A read of the whole table that started after ``since`` (a monotonic time);
        ``NoSuchTable`` when there is none.

        A socket that joined the table's group at ``since`` gets every change after such
        a read from events, so the sockets connecting to a table together (a page load,
        everybody coming back after a restart) share one read: one that is waiting for
        a thread, or that started after they joined, is theirs too. The tables asked for
        while a read is under way are read together next, in one trip to the pool and
        as many queries as one table (``TableSource.read_many``): a restart's thousand
        sockets cost tens of reads, not hundreds.
        """
        entry = self._fresh.get(table_id)
        if entry is not None:
            task, started = entry
            failed = task.done() and (task.cancelled() or task.exception() is not None)
            if not failed and (not started or started[0] >= since):
                self.hits += 1
                return await asyncio.shield(task)
        self._source()  # none connected: said here, not in the reader
        loop = asyncio.get_running_loop()
        entry = (loop.create_future(), [])  # the thread that reads notes when it starts
        self._fresh[table_id] = self._fresh_waiting[table_id] = entry
        while len(self._fresh) > self.size:
            self._fresh.pop(next(iter(self._fresh)))
        reader = self._fresh_reader
        if reader is None or reader.done() or reader.get_loop() is not loop:
            self._fresh_reader = loop.create_task(self._read_fresh())
        return await asyncio.shield(entry[0])

    async def _read_fresh(self) -> None:
        """Read the tables waiting for a fresh read, up to ``FRESH_BATCH`` at a time, until
        none waits."""
        source = self._source()
        while self._fresh_waiting:
            ids = list(self._fresh_waiting)[:FRESH_BATCH]
            batch = {table_id: self._fresh_waiting.pop(table_id) for table_id in ids}

            def read(batch: dict[int, tuple[asyncio.Future, list[float]]] = batch) -> dict[int, S]:
                now = time.monotonic()
                for _future, started in batch.values():
                    started.append(now)
                return source.read_many(list(batch))

            self.reads += len(batch)
            failure: Exception | None = None
            try:
                snapshots = await in_pool(read)()
            except Exception as error:  # each socket says so (DATABASE_DOWN, ...)
                snapshots, failure = {}, error
            now = time.monotonic()
            for table_id, (future, _started) in batch.items():
                snapshot = snapshots.get(table_id)
                if snapshot is not None:
                    self._frames[table_id] = (snapshot, now, now)
                    future.set_result(snapshot)
                else:
                    future.set_exception(failure or NoSuchTable(table_id))
                    future.exception()  # retrieved: a socket that left need not log it

    async def _read(self, table_id: int, hand_id: int | None, frame: S | None = None) -> S:
        self.reads += 1
        source = self._source()
        snapshot = await in_pool(source.read)(table_id, frame=frame, hand_id=hand_id)
        now = time.monotonic()
        self._frames[table_id] = (snapshot, now, now)
        return snapshot

    def known(self, table_id: int) -> Any:
        """What a move is judged on without a read, as this process last showed the table
        (``TableSource.known``), or None."""
        entry = self._frame(table_id)
        if entry is None:
            return None
        return self._source().known(entry[0], table_id)

    def _frame(self, table_id: int) -> tuple[S, float, float] | None:
        entry = self._frames.get(table_id)
        now = time.monotonic()
        if len(self._frames) > self.size:
            self._frames = {k: v for k, v in self._frames.items() if now - v[1] < self.frame_ttl}
        if entry is None or now - entry[1] > self.frame_ttl:
            return None
        return entry

    def _refresh_soon(self, table_id: int) -> None:
        """Read the whole table again in the background for the moves after this one, with
        the other tables due within ``PRESENCE_BATCH`` seconds (in one trip to the pool,
        up to ``FRESH_BATCH`` tables): the tables whose sockets opened together were read
        together and come due together. A move meanwhile is shown from its change as
        ever; a read that a move overtook is dropped (the next move asks again)."""
        if table_id in self._refreshing:
            return
        self._refreshing.add(table_id)
        self._refresh_waiting.append(table_id)
        loop = asyncio.get_running_loop()
        reader = self._refresh_reader
        if reader is None or reader.done() or reader.get_loop() is not loop:
            self._refresh_reader = loop.create_task(self._refresh())

    async def _refresh(self) -> None:
        await asyncio.sleep(PRESENCE_BATCH)
        source = self._source()
        while self._refresh_waiting:
            ids = self._refresh_waiting[:FRESH_BATCH]
            del self._refresh_waiting[:FRESH_BATCH]
            started = time.monotonic()
            self.reads += len(ids)
            try:
                found = await in_pool(source.read_many)(ids)
            except Exception:
                logger.exception("reading %d tables again failed", len(ids))
                found = {}
            for table_id in ids:
                self._refreshing.discard(table_id)
                snapshot, entry = found.get(table_id), self._frames.get(table_id)
                if snapshot is None or entry is None:
                    continue
                if source.position(snapshot) >= source.position(entry[0]):
                    self._frames[table_id] = (snapshot, started, started)
                    self.refreshes += 1

    def _presence_due(self, table_id: int, snapshot: S) -> None:
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
        source = self._source()
        try:
            found = await in_pool(source.read_presence)(list(due.values()))
        except Exception:
            logger.exception("reading the presence of %d tables failed", len(due))
            return
        for table_id, presence in found.items():
            entry = self._frames.get(table_id)
            if entry is not None:
                frame, read_at, presence_at = entry
                frame = source.with_presence(frame, presence)
                self._frames[table_id] = (frame, read_at, presence_at)

    def shows_presence(self, table_id: int, user_id: int) -> bool:
        """Whether the table, as this process last read it, shows ``user_id``'s presence
        mark (``TableSource.shows_presence``); True when it has no read of the table."""
        entry = self._frames.get(table_id)
        return entry is None or self._source().shows_presence(entry[0], user_id)

    def presence_seen(self, table_id: int, user_id: int, *, connected: bool) -> None:
        """A player's socket came or went: the frame shows it from now on."""
        entry = self._frames.get(table_id)
        if entry is None:
            return
        snapshot, read_at, presence_at = entry
        seen = self._source().presence_seen(snapshot, user_id, connected=connected)
        if seen is not None:
            self._frames[table_id] = (seen, read_at, presence_at)

    def keep_shown(self, table_id: int, language: str, drawn: Hashable, shown: Any) -> None:
        """Keep what a page shows of the table's shared parts once it took the shared
        render ``drawn`` in ``language`` (opaque here: the app's own)."""
        with self._lock:
            self._shown.put(table_id, (language, drawn), shown)

    def shown(self, table_id: int, language: str, drawn: Hashable) -> Any:
        """What a page shows once it took the shared render ``drawn`` (``keep_shown``);
        None when it is no longer kept."""
        with self._lock:
            return self._shown.get(table_id, (language, drawn))

    def shared_at(self, table_id: int, language: str, key: tuple, render: Callable[[], str]) -> str:
        """A fragment of a table rendered once for the viewers of this process who see it
        alike in ``language``: ``key`` is the kind of view, its event second (a fresh
        read's render is named by the read; one without a name is this viewer's alone)."""
        if key[1] is None:
            return render()
        return self.shared((table_id, language, *key), render)

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


LIVE: LiveTables[Any] = LiveTables()
