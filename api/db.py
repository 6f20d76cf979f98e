"""Database work from the API's async views and streams."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from channels.db import DatabaseSyncToAsync


def in_pool(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` in the thread pool, stale database connections closed around it (as
    ``database_sync_to_async``, but not queued on the one thread that serves every such
    call of the process): the requests and streams of a process wait on each other's
    reads no more than on the pool's size, and its threads keep their connections."""
    return DatabaseSyncToAsync(func, thread_sensitive=False)
