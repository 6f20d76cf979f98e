"""PostgreSQL from the event loop, for the live room's hot path (a player's move).

Django's ORM is synchronous: a daphne process runs it in threads, and a move made in a
thread waits on the event loop's share of the GIL at every round trip to the database
(and again to publish its event), which under load is many times the move's own work.
A move made here, with psycopg's async connection, waits on nothing but the database,
and the loop serves other sockets meanwhile.

The connections come from psycopg_pool's ``AsyncConnectionPool``, one pool per event
loop (a connection belongs to the loop that opened it: daphne has one, tests several),
opened with Django's own parameters (``get_connection_params``: the same database,
adapters and time zone). A connection is not checked before each loan (the check is a
round trip: under load it doubled the time a move holds its connection); a connection
found broken (a database restart leaves every kept one dead) is dropped by the pool when
given back, and the pool's ``check()`` then drops the other dead ones it holds and opens
new ones, so a restart costs one refused move, not one per kept connection. The pool
replaces connections after ``MAX_LIFETIME`` and lets the unused ones go after
``MAX_IDLE``; a loop's pool is closed when the loop shuts down. Only PostgreSQL:
``available()`` is false elsewhere (the embedded SQLite mode), where callers use the
synchronous services.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg_pool import AsyncConnectionPool

from core.loops import until_loop_shutdown

logger = logging.getLogger(__name__)

# Connections per event loop. A move holds one for a round trip (services.moves), but
# under load a round trip waits on a busy core now and then: with only a few, moves
# queue for a connection.
POOL_SIZE = 10
MIN_SIZE = 2  # kept open while the loop's room is quiet
MAX_LIFETIME = 30 * 60.0  # seconds: a connection is replaced after this (server memory)
MAX_IDLE = 60.0  # seconds: a connection above MIN_SIZE unused this long is closed
# Seconds a move waits for a connection: with the database down the pool retries in the
# background and the move is refused (PoolTimeout, an OperationalError) after this. Under
# load a move waits for a connection seconds now and then: not much less than this.
TIMEOUT = 10.0


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


def _connect_kwargs() -> dict[str, Any]:
    params: dict[str, Any] = wrapper().get_connection_params()
    params.pop("cursor_factory", None)  # Django's server-side binding choice; ours binds
    return {**params, "autocommit": True}


class _LoopPool:
    """A loop's pool and every connection it opened (to close them without the loop)."""

    def __init__(self, size: int, name: str, *, check: bool) -> None:
        self.opened: weakref.WeakSet[psycopg.AsyncConnection] = weakref.WeakSet()
        self.pool = AsyncConnectionPool(
            kwargs=_connect_kwargs(),
            min_size=min(MIN_SIZE, size),
            max_size=size,
            open=False,
            name=name,
            check=AsyncConnectionPool.check_connection if check else None,
            configure=self._opened,
            max_lifetime=MAX_LIFETIME,
            max_idle=MAX_IDLE,
            timeout=TIMEOUT,
        )
        self.lifetime: Any = None

    async def _opened(self, conn: psycopg.AsyncConnection) -> None:
        self.opened.add(conn)

    def finish(self) -> None:
        """Close the sockets of the pool's connections, from any thread, without the loop
        that owns them (a test's loop, closed with its sockets)."""
        for conn in list(self.opened):
            if not conn.closed:
                conn.pgconn.finish()
        self.opened.clear()


class AsyncConnections:
    """A pool of connections per event loop, each lent for one transaction at a time.
    ``check``: each connection checked before it is lent (one round trip more; for
    ``bench.bench_pool``)."""

    def __init__(self, size: int = POOL_SIZE, *, check: bool = False) -> None:
        self.size, self.check = size, check
        self._pools: dict[asyncio.AbstractEventLoop, _LoopPool] = {}
        self._lock = threading.Lock()
        self._checks: set[asyncio.Task] = set()

    async def _pool(self) -> AsyncConnectionPool:
        loop = asyncio.get_running_loop()
        loop_pool = self._pools.get(loop)
        if loop_pool is None:
            with self._lock:
                for old in [other for other in self._pools if other.is_closed()]:
                    self._pools.pop(old).finish()
                loop_pool = self._pools.setdefault(
                    loop, _LoopPool(self.size, f"adb-{len(self._pools)}", check=self.check)
                )
            if loop_pool.lifetime is None:

                async def close(loop_pool: _LoopPool = loop_pool) -> None:
                    self.forget_loop(loop, loop_pool)
                    await _close(loop_pool)

                loop_pool.lifetime = until_loop_shutdown(close)  # closed with the loop
        if loop_pool.pool.closed:
            await loop_pool.pool.open()
        return loop_pool.pool

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[psycopg.AsyncConnection]:
        """A connection inside one transaction: committed when the block ends, rolled back
        when it raises. A connection that broke is closed, never given back.

        The connection is in pipeline mode: statements are sent without waiting, and the
        client waits only to read a result (all those queued come back together) and at
        the end. A move's BEGIN and two reads are one round trip, its two writes and the
        COMMIT another: each round trip is a wait in the loop, a reader added to and
        taken from it, and a few system calls."""
        async with self.connection() as conn, conn.pipeline(), conn.transaction():
            yield conn

    @contextlib.asynccontextmanager
    async def connection(self, *, pipeline: bool = False) -> AsyncIterator[psycopg.AsyncConnection]:
        """A connection in autocommit (each statement its own transaction), for the
        block; ``pipeline``: in pipeline mode (statements sent without waiting, their
        results read together). A connection that broke, or was left inside a
        statement (cancelled), is closed by the pool, never lent again. Raises
        ``psycopg_pool.PoolTimeout`` (an ``OperationalError``) when none could be had
        within ``TIMEOUT``."""
        pool = await self._pool()
        async with pool.connection() as conn:
            try:
                if pipeline:
                    async with conn.pipeline():
                        yield conn
                else:
                    yield conn
            except psycopg.OperationalError:
                if conn.broken:
                    self._check_soon(pool)
                raise

    def _check_soon(self, pool: AsyncConnectionPool) -> None:
        """Drop every dead connection ``pool`` holds (one was found broken: the database
        restarted, or dropped them all), in the background."""
        task = asyncio.get_running_loop().create_task(pool.check())
        self._checks.add(task)
        task.add_done_callback(self._checks.discard)

    def stats(self) -> dict[str, int]:
        """The pools' counters summed over the loops (``AsyncConnectionPool.get_stats``:
        ``pool_size``, ``pool_available``, ``requests_waiting``, ``requests_num``,
        ``requests_wait_ms``, ``connections_lost``, ...), without resetting them."""
        total: dict[str, int] = {}
        with self._lock:
            pools = list(self._pools.values())
        for loop_pool in pools:
            for key, value in loop_pool.pool.get_stats().items():
                total[key] = total.get(key, 0) + value
        return total

    async def close(self) -> None:
        """Close the running loop's pool (its connections closed, its workers stopped)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            loop_pool = self._pools.pop(loop, None)
        if loop_pool is not None:
            await _close(loop_pool)

    def forget_loop(self, loop: asyncio.AbstractEventLoop, loop_pool: _LoopPool) -> None:
        """Drop ``loop``'s pool (it is being closed)."""
        with self._lock:
            if self._pools.get(loop) is loop_pool:
                del self._pools[loop]

    def close_all(self) -> None:
        """Close every connection of every loop, from any thread (the test database is
        dropped after this)."""
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for loop_pool in pools:
            loop_pool.finish()


async def _close(loop_pool: _LoopPool) -> None:
    logger.info("closing %s: %s", loop_pool.pool.name, loop_pool.pool.get_stats())
    await loop_pool.pool.close()
    loop_pool.finish()


CONNECTIONS = AsyncConnections()
