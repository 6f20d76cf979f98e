"""The live room's one way to the database from the event loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from channels.db import DatabaseSyncToAsync

T = TypeVar("T")


def in_pool(func: Callable[..., T]) -> Callable[..., Any]:
    """``func`` run in the thread pool, stale database connections closed around it, as
    ``database_sync_to_async`` does, but not on the one thread that queues every call of
    the process (``thread_sensitive=False``): the sockets of a process wait on each
    other's reads no more than on the pool's size."""
    return DatabaseSyncToAsync(func, thread_sensitive=False)
