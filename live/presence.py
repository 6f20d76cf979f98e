"""Presence and lag from the pongs of every socket of the process (``PONGS``)."""

from __future__ import annotations

import asyncio
import logging

from django.core.cache import cache

from live.cache import UNREACHABLE, loop_client
from live.db import in_pool

logger = logging.getLogger(__name__)

# The page measures its lag with pings (daphne pings every 20 s too, to keep the socket
# open): a ping and its pong are two frames per socket, so pinging more often costs
# as many frames as a busy room's moves.
PING_EVERY = 15.0
PRESENCE_TTL = 40  # a pong renews it; a socket that closes deletes it
# A pong refreshes presence and lag at most this often (written in one batch per process).
PONG_RECORD_EVERY = 10.0
PONG_FLUSH_EVERY = 2.0  # the process writes the pongs it collected in one call this often


def presence_key(table_id: int, user_id: int) -> str:
    """The cache key that marks a player's socket open at a table."""
    return f"presence:{table_id}:{user_id}"


def lag_key(table_id: int, user_id: int) -> str:
    """The cache key of a player's last measured lag at a table, in milliseconds."""
    return f"lag:{table_id}:{user_id}"


class PongBook:
    """Presence and lag from the pongs of every socket of the process, written to the
    cache together every ``PONG_FLUSH_EVERY`` seconds: one call, not one per socket."""

    def __init__(self) -> None:
        self._pending: dict[tuple[int, int], int] = {}
        self._flusher: asyncio.Task | None = None

    def record(self, table_id: int, user_id: int, lag_ms: int) -> None:
        self._pending[(table_id, user_id)] = lag_ms
        loop = asyncio.get_running_loop()
        flusher = self._flusher
        if flusher is None or flusher.done() or flusher.get_loop() is not loop:
            self._flusher = loop.create_task(self._flush_forever())

    def forget(self, table_id: int, user_id: int) -> None:
        """The socket closed: a pong still waiting must not mark him present again."""
        self._pending.pop((table_id, user_id), None)

    async def _flush_forever(self) -> None:
        while True:
            await asyncio.sleep(PONG_FLUSH_EVERY)
            if self._pending:
                batch, self._pending = self._pending, {}
                try:
                    await in_pool(_write_pongs)(batch)
                except Exception:  # the cache is down: presence shows off, play goes on
                    logger.exception("writing %d pongs failed", len(batch))


def _write_pongs(batch: dict[tuple[int, int], int]) -> None:
    values: dict[str, object] = {}
    for (table_id, user_id), lag_ms in batch.items():
        values[presence_key(table_id, user_id)] = True
        values[lag_key(table_id, user_id)] = lag_ms
    cache.set_many(values, PRESENCE_TTL)


PONGS = PongBook()


async def mark_present(table_id: int, user_id: int) -> None:
    """A player's socket opened at the table: one command from the event loop
    (``live.cache``). When the cache cannot be reached his mark shows him away; play goes
    on."""
    client = loop_client()
    if client is None:
        cache.set(presence_key(table_id, user_id), 1, PRESENCE_TTL)
        return
    try:
        await client.set(cache.make_key(presence_key(table_id, user_id)), 1, ex=PRESENCE_TTL)
    except UNREACHABLE:
        logger.warning("a presence mark was not written: the cache is unreachable")


async def mark_absent(table_id: int, user_id: int) -> None:
    """A player's socket at the table closed."""
    client = loop_client()
    if client is None:
        cache.delete(presence_key(table_id, user_id))
        return
    try:
        await client.delete(cache.make_key(presence_key(table_id, user_id)))
    except UNREACHABLE:
        logger.warning("a presence mark was not deleted: the cache is unreachable")
