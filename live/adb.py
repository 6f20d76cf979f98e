"""PostgreSQL from the event loop, for the live room's hot path (a player's move).

Django's ORM is synchronous: a daphne process runs it in threads, and a move made in a
thread waits on the event loop's share of the GIL at every round trip to the database
(and again to publish its event), which under load is many times the move's own work.
A move made here, with psycopg's async connection, waits on nothing but the database,
and the loop serves other sockets meanwhile.

The connections are opened with Django's own parameters (``get_connection_params``: the
same database, adapters and time zone) and kept, a few per event loop. Only PostgreSQL:
``available()`` is false elsewhere (the embedded SQLite mode), where callers use the
synchronous services.

The pool is the project's own: psycopg_pool's ``AsyncConnectionPool`` costs a move the same
CPU, but its workers swallow a cancellation that comes while they reconnect, so a loop
that ends then waits forever, and after a database restart its retries back off for
seconds (docs/performance.md).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from psycopg.pq import TransactionStatus

# Connections per event loop. A move holds one for a round trip (services.moves), but
# under load a round trip waits on a busy core now and then: with only a few, moves
# queue for a connection.
POOL_SIZE = 10


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
    def __init__(self, size: int) -> None:
        self.free: list[psycopg.AsyncConnection] = []
        self.every: list[psycopg.AsyncConnection] = []
        self.slots = asyncio.Semaphore(size)


class AsyncConnections:
    """A few connections per event loop (a connection belongs to the loop that opened it),
    taken for one transaction at a time."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._pools: dict[asyncio.AbstractEventLoop, _LoopPool] = {}
        self._lock = threading.Lock()

    def _pool(self) -> _LoopPool:
        loop = asyncio.get_running_loop()
        with self._lock:
            pool = self._pools.get(loop)
            if pool is None:
                for old in [other for other in self._pools if other.is_closed()]:
                    _finish(self._pools.pop(old))  # a test's loop, gone with its sockets
                pool = self._pools[loop] = _LoopPool(self.size)
        return pool

    @asynccontextmanager
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

    @asynccontextmanager
    async def connection(self, *, pipeline: bool = False) -> AsyncIterator[psycopg.AsyncConnection]:
        """A connection in autocommit (each statement its own transaction), for the
        block; ``pipeline``: in pipeline mode (statements sent without waiting, their
        results read together). A connection that broke, or was left inside a
        transaction (cancelled mid-statement), is closed, never given back."""
        if pipeline:
            async with self.connection() as conn, conn.pipeline():
                yield conn
            return
        pool = self._pool()
        async with pool.slots:
            conn = pool.free.pop() if pool.free else await self._open(pool)
            try:
                yield conn
            except BaseException:
                if conn.closed or conn.broken:
                    pool.every.remove(conn)
                    conn = None
                raise
            finally:
                if conn is not None and conn.info.transaction_status != TransactionStatus.IDLE:
                    pool.every.remove(conn)  # cancelled mid-statement: not reusable
                    await conn.close()
                elif conn is not None:
                    pool.free.append(conn)

    async def _open(self, pool: _LoopPool) -> psycopg.AsyncConnection:
        params: dict[str, Any] = wrapper().get_connection_params()
        params.pop("cursor_factory", None)  # Django's server-side binding choice; ours binds
        conn = await psycopg.AsyncConnection.connect(**params, autocommit=True)
        pool.every.append(conn)
        return conn

    def close_all(self) -> None:
        """Close every connection of every loop, from any thread (the test database is
        dropped after this)."""
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            _finish(pool)


def _finish(pool: _LoopPool) -> None:
    for conn in pool.every:
        if not conn.closed:
            conn.pgconn.finish()  # the socket, without the loop that owns the connection
    pool.every.clear()
    pool.free.clear()


CONNECTIONS = AsyncConnections()
