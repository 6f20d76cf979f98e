"""The live room's one way to the database from the event loop, and what a lost
database raises on it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

import django.db
import psycopg
from channels.db import DatabaseSyncToAsync

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def in_pool(func: Callable[..., T]) -> Callable[..., Any]:
    """``func`` run in the thread pool, stale database connections closed around it, as
    ``database_sync_to_async`` does, but not on the one thread that queues every call of
    the process (``thread_sensitive=False``): the sockets of a process wait on each
    other's reads no more than on the pool's size."""
    return DatabaseSyncToAsync(func, thread_sensitive=False)


# What a lost database looks like, on Django's connection (in the pool) and on the live
# room's own asyncio one (live.adb): the socket says so and goes on (LiveSocket).
DATABASE_DOWN: tuple[type[BaseException], ...] = (
    django.db.OperationalError,
    django.db.InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
)


class ReadTogether(Generic[K, T]):
    """One kind of read that the sockets opening together (everybody back after a
    restart) make together: what is asked for while a read waits for a thread or runs
    is read in the next one, up to ``at_most`` at a time, in one trip to the pool.

    ``read_many`` gets the keys in the order they were asked for (a key asked twice
    comes twice) and gives one value for each, in that order. A failed read fails each
    asker of its batch with its error (``DATABASE_DOWN``: the socket is turned away);
    an asker that left meanwhile is skipped. One reader per event loop at a time.
    """

    def __init__(self, read_many: Callable[[list[K]], list[T]], *, at_most: int = 100) -> None:
        self.read_many, self.at_most = read_many, at_most
        self.batches = 0  # reads made (one trip to the pool each)
        self._waiting: list[tuple[K, asyncio.Future[T]]] = []
        self._reader: asyncio.Task[None] | None = None

    async def read(self, key: K) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        reader = self._reader
        if reader is None or reader.done() or reader.get_loop() is not loop:
            # Askers left by a loop that is gone (a test's) have no reader to answer them.
            self._waiting = [entry for entry in self._waiting if entry[1].get_loop() is loop]
            self._reader = loop.create_task(self._read())
        self._waiting.append((key, future))
        return await future

    async def _read(self) -> None:
        while self._waiting:
            batch = self._waiting[: self.at_most]
            del self._waiting[: self.at_most]
            self.batches += 1
            try:
                values = await in_pool(self.read_many)([key for key, _future in batch])
            except Exception as error:
                for _key, future in batch:
                    if not future.done():
                        future.set_exception(error)
                continue
            for (_key, future), value in zip(batch, values, strict=True):
                if not future.done():
                    future.set_result(value)
