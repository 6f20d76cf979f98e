"""Small values every page of a signed-in user reads (the header's bell, his count of
games waiting), kept in Django's cache until the change that alters them forgets them.

The cache is an economy, never the truth: a value the cache cannot give (Redis down) is
read from the database, and each is kept for a bounded time, so that a change no hook
forgets is seen by then."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TypeVar

from django.core.cache import cache
from django.db import transaction

logger = logging.getLogger(__name__)

T = TypeVar("T")


def cached(key: str, compute: Callable[[], T], *, timeout: int) -> T:
    """The value kept under ``key``, or ``compute()``'s, then kept for ``timeout`` seconds.
    ``compute`` must not return None (the cache's word for "nothing kept")."""
    try:
        found = cache.get(key)
    except Exception:  # the cache is an economy: a page is read from the database instead
        logger.warning("the cache could not be read: %s computed", key)
        return compute()
    if found is not None:
        return found
    value = compute()
    try:
        cache.set(key, value, timeout)
    except Exception:
        logger.warning("the cache could not be written: %s not kept", key)
    return value


def forget(keys: Iterable[str]) -> None:
    """Drop the values kept under ``keys``: the next read computes them again."""
    keys = list(keys)
    try:
        cache.delete_many(keys)
    except Exception:  # kept values expire by themselves (``cached``'s timeout)
        logger.warning("the cache could not forget %s", keys)


def forget_on_commit(keys: Iterable[str]) -> None:
    """``forget`` now, and again once the transaction commits: a page read between the
    change and its commit keeps the value of before once more."""
    keys = list(keys)
    forget(keys)
    transaction.on_commit(lambda: forget(keys))
