"""The Redis cache with one client per process.

Django keeps one cache object per thread and per async context (``caches`` is an
asgiref ``Local``), and each of Redis's cache objects opens its own connection pool: under
daphne every websocket is a context of its own, so every socket would open its own
connection to Redis (one connection per socket, and each connect spending time opening
one). redis-py's pools are thread-safe: here every cache object of a process
with the same settings shares one client and its pool.
"""

from __future__ import annotations

import os
import threading
from functools import cached_property

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_clients: dict[tuple, RedisCacheClient] = {}
_lock = threading.Lock()


class SharedRedisCache(RedisCache):
    @cached_property
    def _cache(self) -> RedisCacheClient:
        # A forked child (Celery's prefork workers) must not share its parent's sockets.
        key = (os.getpid(), tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            client = _clients.get(key)
            if client is None:
                client = _clients[key] = self._class(self._servers, **self._options)
            return client
