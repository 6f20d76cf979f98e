"""The cache's Redis from the event loop: a socket's one-command writes (its budget, its
presence mark) without a trip through the thread pool.

After a restart every page's sockets come back at once, and each trip through the pool
waits for a thread and then for the interpreter's lock; a command awaited on the loop
waits for neither. Keys are the cache's own (``cache.make_key``) and values what
Django's Redis cache stores for a whole number (its digits), so the cache reads them as
it reads its own.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncGenerator

import redis.asyncio
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from core.loops import until_loop_shutdown

# Per event loop: its client, and what closes it with the loop.
_clients: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, tuple[redis.asyncio.Redis, AsyncGenerator[None, None]]
] = weakref.WeakKeyDictionary()

UNREACHABLE = (redis.ConnectionError, redis.TimeoutError, OSError)

# A command is one short round trip, so a few connections carry a whole restart's
# handshakes; more commands at once wait for one of them. redis-py's own pool opens a
# connection per command in flight up to 100 and fails the rest: a thousand sockets
# coming back at once opened 100 connections and 900 went uncounted.
CONNECTIONS = 8
CONNECTION_WAIT = 5.0  # seconds a command waits for a connection before it fails


def loop_client() -> redis.asyncio.Redis | None:
    """The running loop's client of the cache's Redis; None when the cache is not Redis
    (the embedded site's cache lives in the process: use it as it is)."""
    if not isinstance(caches["default"], RedisCache):
        return None
    loop = asyncio.get_running_loop()
    entry = _clients.get(loop)
    if entry is None:
        location = settings.CACHES["default"]["LOCATION"]
        url = location[0] if isinstance(location, list | tuple) else location.split(",")[0]
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            url,
            max_connections=CONNECTIONS,
            timeout=CONNECTION_WAIT,
            client_name=f"pan-live-cache-{os.getpid()}",
        )
        client = redis.asyncio.Redis.from_pool(pool)  # closing the client closes its pool
        entry = _clients[loop] = (client, until_loop_shutdown(client.aclose))
    return entry[0]
