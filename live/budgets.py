"""What one person may hold of the live room: sockets open at once in a process,
sockets opened per minute across the site, frames per socket."""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from django.core.cache import cache

from live.cache import UNREACHABLE, loop_client

logger = logging.getLogger(__name__)

COMMAND_BURST, COMMAND_WINDOW = 20, 5.0  # at most 20 frames in 5 seconds per socket
FLOOD_CLOSE = 5 * COMMAND_BURST  # a socket that keeps sending far past the limit is closed
MAX_FRAME = 4096  # characters: no command of ours is longer
CONNECTIONS_PER_MINUTE = 120  # per user (or address): a page opens two (/ws/me/ and its own)
SOCKETS_PER_USER, SOCKETS_PER_ADDRESS = 12, 40  # open at once, in one process

clock = time.time  # the minute a connection counts in (tests set it)


class OpenSockets:
    """Sockets open at once in this process, per user (or per address for visitors)."""

    def __init__(self) -> None:
        self._open: Counter[str] = Counter()

    def take(self, who: str, limit: int) -> bool:
        if self._open[who] >= limit:
            return False
        self._open[who] += 1
        return True

    def give_back(self, who: str) -> None:
        self._open[who] -= 1
        if self._open[who] <= 0:
            del self._open[who]


OPEN_SOCKETS = OpenSockets()


def who(scope: dict[str, Any]) -> tuple[str, int]:
    """Whom a socket counts against, and how many he may hold open at once."""
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return f"u{user.pk}", SOCKETS_PER_USER
    client = scope.get("client") or ("unknown", 0)
    return f"ip{client[0]}", SOCKETS_PER_ADDRESS


async def connection_allowed(scope: dict[str, Any]) -> bool:
    """Count a new socket against its user's (or address's) budget per minute, in the
    cache: every process of the site counts together. On the cache's Redis this is one
    round trip from the event loop (``INCR`` and ``EXPIRE NX`` in one pipeline,
    ``live.cache``), not two from a thread of the pool. When Redis cannot be reached the
    socket is let in (the per-process limit still holds) rather than the whole room
    turned away."""
    owner, _limit = who(scope)
    name = f"ws-connects:{owner}:{int(clock() // 60)}"
    client = loop_client()
    if client is None:  # a cache in the process (the embedded site): no trip at all
        cache.add(name, 0, 70)
        try:
            return cache.incr(name) <= CONNECTIONS_PER_MINUTE
        except ValueError:
            return True
    key = cache.make_key(name)
    try:
        async with client.pipeline(transaction=False) as pipe:
            pipe.incr(key)
            pipe.expire(key, 70, nx=True)
            count, _set = await pipe.execute()
    except UNREACHABLE:
        logger.warning("the connection budget is not counted: the cache is unreachable")
        return True
    return int(count) <= CONNECTIONS_PER_MINUTE


class FrameWindow:
    """The frames one socket sent within the last ``COMMAND_WINDOW`` seconds."""

    __slots__ = ("times",)

    def __init__(self) -> None:
        self.times: list[float] = []

    def count(self) -> int:
        """Count one frame (of any kind: commands, pongs, garbage); how many the window
        holds with it."""
        now = time.monotonic()
        self.times = [t for t in self.times if now - t < COMMAND_WINDOW]
        self.times.append(now)
        return len(self.times)
