"""One Redis connection pool per process for Django's Redis cache.

Django keeps one cache object per thread and per async context (``caches`` is an
asgiref ``Local``), and each of Redis's cache objects opens its own connection pool:
under daphne every websocket is a context of its own, so every socket would open its own
connection to Redis. redis-py's pools are thread-safe: the cache's documented
``pool_class`` option names this one, whose ``from_url`` gives every cache object of a
process with the same settings the same pool.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis

_pools: dict[tuple, redis.ConnectionPool] = {}
_lock = threading.Lock()


class SharedConnectionPool(redis.ConnectionPool):
    """``ConnectionPool.from_url`` that returns the process's pool for the same address
    and options, made once."""

    @classmethod
    def from_url(cls, url: str, **options: Any) -> redis.ConnectionPool:
        # A forked child (Celery's prefork workers) must not share its parent's sockets.
        key = (os.getpid(), url, repr(sorted(options.items(), key=lambda item: item[0])))
        with _lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = redis.ConnectionPool.from_url(url, **options)
            return pool
