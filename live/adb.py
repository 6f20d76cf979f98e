"""PostgreSQL from the event loop, for the live room's hot path (a player's move).

Django's ORM is synchronous: a daphne process runs it in threads, and a move made in a
thread waits on the event loop's share of the GIL at every round trip to the database
(and again to publish its event), which under load is many times the move's own work.
A move made here, with psycopg's async connection, waits on nothing but the database,
and the loop serves other sockets meanwhile.

The connections come from psycopg_pool's ``AsyncConnectionPool``, one pool per event loop
(a connection belongs to the loop that opened it: daphne has one, tests several), opened
with Django's own parameters (``get_connection_params``: the same database, adapters and
time zone), and closed when the loop shuts down. The pool is not asked to check a
connection before lending it: a database restart costs each kept connection one failed
statement (the move is refused, the page says so and the player tries again), and the
pool closes it. A pool of the project's own measured level with this one at 250 tables
(docs/performance.md), so the library's stays. Only PostgreSQL:
``available()`` is false elsewhere (the embedded SQLite mode), where callers use the
synchronous services.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import weakref
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from core.loops import until_loop_shutdown

# Connections per event loop. A move holds one for a round trip (services.moves), but
# under load a round trip waits on a busy core now and then: with only a few, moves
# queue for a connection.
POOL_SIZE = 10
MIN_SIZE = 2  # kept open while the loop's room is quiet
MAX_LIFETIME = 30 * 60.0  # seconds: a connection is replaced after this (server memory)
MAX_IDLE = 60.0  # seconds: a connection above MIN_SIZE unused this long is closed
# Seconds a move waits for a connection: with the database down the move is refused
# (PoolTimeout, an OperationalError) after this, and the loop's pool is replaced: the
# pool's own attempts back off (1, 2, 4, 8 s...), so after a 10 s outage it reconnected
# some 4 s after the database was back, where a new pool connects at once.
TIMEOUT = 3.0


@functools.cache
def wrapper() -> BaseDatabaseWrapper:
    """The default database's Django wrapper for what needs no connection (its vendor,
    operations, field conversions, connection parameters), one per process. In the event
    loop ``django.db.connection`` is a new wrapper for every asyncio task, a dozen objects
    in reference cycles each: 460 of them waited for the collector's full pass at 250
    live tables."""
    return connections.create_connection(DEFAULT_DB_ALIAS)


def available() -> bool:
    """Whether the default database can be reached from the event loop."""
    return wrapper().vendor == "postgresql"


class _LoopPool:
    """A loop's pool, and every connection it opened (to close them without the loop)."""

    def __init__(self, size: int, name: str) -> None:
        self.opened: weakref.WeakSet[psycopg.AsyncConnection] = weakref.WeakSet()
        self.pool = AsyncConnectionPool(
            kwargs=_connect_kwargs(),
            min_size=min(MIN_SIZE, size),
            max_size=size,
            open=False,
            name=name,
            configure=self._opened,
            max_lifetime=MAX_LIFETIME,
            max_idle=MAX_IDLE,
            timeout=TIMEOUT,
        )
        self.lifetime: AsyncGenerator[None, None] | None = None
        self.opening: asyncio.Future[None]

    async def _opened(self, conn: psycopg.AsyncConnection) -> None:
        self.opened.add(conn)

    def finish(self) -> None:
        """Close the sockets of the pool's connections from any thread, without the loop
        that owns them (a test's loop, closed with its sockets)."""
        for conn in list(self.opened):
            if not conn.closed:
                conn.pgconn.finish()
        self.opened.clear()

    async def close(self) -> None:
        try:
            await self.pool.close(timeout=1.0)
        finally:
            self.finish()  # also when the loop's shutdown cancelled the pool's workers


def _connect_kwargs() -> dict[str, Any]:
    params: dict[str, Any] = wrapper().get_connection_params()
    params.pop("cursor_factory", None)  # Django's server-side binding choice; ours binds
    return {**params, "autocommit": True}


class AsyncConnections:
    """A psycopg_pool ``AsyncConnectionPool`` per event loop (a connection belongs to the
    loop that opened it), each connection lent for one block at a time."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._pools: dict[asyncio.AbstractEventLoop, _LoopPool] = {}
        self._lock = threading.Lock()

    async def _pool(self) -> AsyncConnectionPool:
        loop = asyncio.get_running_loop()
        loop_pool = self._pools.get(loop)
        if loop_pool is None:
            with self._lock:
                for old in [other for other in self._pools if other.is_closed()]:
                    self._pools.pop(old).finish()  # a test's loop, gone with its sockets
                loop_pool = self._pools[loop] = _LoopPool(self.size, f"live-{id(loop):x}")
            loop_pool.lifetime = until_loop_shutdown(functools.partial(self._close, loop))
            # Its first connections opened before it lends one: psycopg_pool's workers
            # outlive a cancellation that comes while they open a connection, so a loop
            # ended then (asyncio.run cancels every task) would wait for them forever.
            loop_pool.opening = asyncio.ensure_future(
                loop_pool.pool.open(wait=True, timeout=TIMEOUT)
            )
        if not loop_pool.opening.done():
            try:
                await asyncio.shield(loop_pool.opening)
            except psycopg.OperationalError:
                await self._replace(loop, loop_pool)  # the database did not answer in time
                raise
        return loop_pool.pool

    async def _replace(self, loop: asyncio.AbstractEventLoop, loop_pool: _LoopPool) -> None:
        """Close ``loop_pool``: the loop's next caller makes a new one."""
        with self._lock:
            if self._pools.get(loop) is loop_pool:
                del self._pools[loop]
        await loop_pool.close()

    async def _close(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            loop_pool = self._pools.pop(loop, None)
        if loop_pool is not None:
            await loop_pool.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[psycopg.AsyncConnection]:
        """A connection inside one transaction: committed when the block ends, rolled back
        when it raises.

        The connection is in pipeline mode: statements are sent without waiting, and the
        client waits only to read a result (all those queued come back together) and at
        the end. A move's BEGIN and two reads are one round trip, its two writes and the
        COMMIT another: each round trip is a wait in the loop, a reader added to and
        taken from it, and a few system calls."""
        async with self.connection() as conn, conn.pipeline(), conn.transaction():
            yield conn

    @asynccontextmanager
    async def connection(self, *, pipeline: bool = False) -> AsyncIterator[psycopg.AsyncConnection]:
        """A connection in autocommit (each statement its own transaction), for the
        block; ``pipeline``: in pipeline mode (statements sent without waiting, their
        results read together). The pool closes a connection that broke, or that was left
        inside a transaction (cancelled mid-statement), and never lends it again. Raises
        ``psycopg_pool.PoolTimeout`` (an ``OperationalError``) when no connection could be
        had within ``TIMEOUT``; the loop's next caller then gets a new pool."""
        pool = await self._pool()
        try:
            conn = await pool.getconn()
        except PoolTimeout:
            loop = asyncio.get_running_loop()
            loop_pool = self._pools.get(loop)
            if loop_pool is not None and loop_pool.pool is pool:
                await self._replace(loop, loop_pool)
            raise
        try:
            if pipeline:
                async with conn.pipeline():
                    yield conn
            else:
                yield conn
        finally:
            await pool.putconn(conn)

    def stats(self) -> dict[str, int]:
        """The pools' counters (``AsyncConnectionPool.get_stats``) summed over the loops."""
        total: dict[str, int] = {}
        with self._lock:
            pools = list(self._pools.values())
        for loop_pool in pools:
            for key, value in loop_pool.pool.get_stats().items():
                total[key] = total.get(key, 0) + value
        return total

    def close_all(self) -> None:
        """Close every connection of every loop, from any thread (the test database is
        dropped after this)."""
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for loop_pool in pools:
            loop_pool.finish()


CONNECTIONS = AsyncConnections()
