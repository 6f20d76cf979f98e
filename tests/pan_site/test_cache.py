"""The cache on the real Redis: every websocket of a process shares its connections."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
import redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]


def _our_connections() -> int:
    """Connections open to Redis now on the cache's database."""
    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    try:
        database = client.connection_pool.connection_kwargs.get("db", 0)
        return sum(1 for c in client.client_list() if int(c["db"]) == database) - 1
    finally:
        client.close()


async def test_sixty_sockets_touching_the_cache_share_the_process_connections() -> None:
    """Each websocket is an async context of its own, and Django keeps a cache object per
    context: each used to open its own pool, one connection to Redis per socket."""
    settings_backend = settings.CACHES["default"]["BACKEND"]
    if not settings_backend.endswith("RedisCache"):
        pytest.fail(f"the cache is not Redis here: {settings_backend}")

    def mark_present(socket: int) -> None:
        cache.set(f"test-presence:{socket}", True, 30)

    async def socket(number: int) -> None:  # a consumer's task: a context of its own
        await sync_to_async(mark_present, thread_sensitive=False)(number)

    before = await sync_to_async(_our_connections)()
    # As daphne starts each connection's application: in a context of its own.
    sockets = [asyncio.create_task(socket(n), context=contextvars.Context()) for n in range(60)]
    await asyncio.gather(*sockets)
    after = await sync_to_async(_our_connections)()
    # At most one more per thread of the pool that ran them at once (not one per socket).
    assert after - before <= 8, f"{after - before} new connections for 60 sockets"
    assert await sync_to_async(cache.get)("test-presence:59") is True
