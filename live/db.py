"""The live room's one way to the database from the event loop, and what a lost
database raises on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import django.db
import psycopg
from channels.db import DatabaseSyncToAsync

T = TypeVar("T")


def in_pool(func: Callable[..., T]) -> Callable[..., Any]:
    """``func`` run in the thread pool, stale database connections closed around it, as
    ``database_sync_to_async`` does, but not on the one thread that queues every call of
    the process (``thread_sensitive=False``): the sockets of a process wait on each
    other's reads no more than on the pool's size."""
    return DatabaseSyncToAsync(func, thread_sensitive=False)


# What a lost database looks like, on Django's connection (in the pool) and on the live
# room's own asyncio one (core.adb): the socket says so and goes on (LiveSocket).
DATABASE_DOWN: tuple[type[BaseException], ...] = (
    django.db.OperationalError,
    django.db.InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
)
