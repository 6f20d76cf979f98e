"""Who is online: a user seen within ``ONLINE_WINDOW``.

A signed-in user is seen on each request (``social.middleware.LastSeenMiddleware``) and
while his ``/ws/me/`` socket is open (every page of a signed-in user holds one). The
time lands in the cache, at most once per ``SEEN_EVERY`` per user and process, so a
busy page costs no cache write per request.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

from django.core.cache import cache

logger = logging.getLogger(__name__)

ONLINE_WINDOW = 120.0  # seconds since a user was last seen that still count as online
SEEN_EVERY = 60.0  # seconds between two writes of one user's time, per process
_BOOK_LIMIT = 50_000  # users remembered per process before the book starts again


def seen_key(user_id: int) -> str:
    return f"seen:{user_id}"


def mark_seen(user_id: int, *, now: float) -> None:
    """Write that ``user_id`` was seen at ``now`` (seconds since the epoch)."""
    cache.set(seen_key(user_id), now, timeout=int(ONLINE_WINDOW + SEEN_EVERY))


def online_ids(user_ids: Iterable[int], *, now: float) -> set[int]:
    """The users among ``user_ids`` seen within ``ONLINE_WINDOW`` before ``now``."""
    ids = list(user_ids)
    if not ids:
        return set()
    found = cache.get_many([seen_key(uid) for uid in ids])
    return {
        uid
        for uid in ids
        if (seen := found.get(seen_key(uid))) is not None and now - float(seen) < ONLINE_WINDOW
    }


class SeenBook:
    """When this process last wrote each user's time: a write only every ``SEEN_EVERY``."""

    def __init__(self) -> None:
        self._written: dict[int, float] = {}
        self._lock = threading.Lock()

    def seen(self, user_id: int, *, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self._lock:
            last = self._written.get(user_id)
            if last is not None and now - last < SEEN_EVERY:
                return
            if len(self._written) >= _BOOK_LIMIT:
                self._written.clear()
            self._written[user_id] = now
        try:
            mark_seen(user_id, now=now)
        except Exception:  # presence is a nicety: a cache outage must not fail the page
            logger.warning("could not record that user %s was seen", user_id, exc_info=True)
            with self._lock:
                self._written.pop(user_id, None)


SEEN = SeenBook()
