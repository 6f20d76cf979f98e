"""The websocket's user, read in the thread pool.

Channels' ``AuthMiddleware`` reads the session and its user with
``database_sync_to_async``, which runs every such call of a process on one thread: in a
storm of connects (everybody back after a restart, a tournament's round starting) the
handshakes queue behind each other there until daphne drops them. Here the same
reading runs in the loop's pool, several at once, as the consumers' own
database work does (``games.consumers.in_pool``).
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddleware, get_user
from channels.db import DatabaseSyncToAsync
from channels.sessions import CookieMiddleware, SessionMiddleware

_get_user_in_pool = DatabaseSyncToAsync(get_user.func, thread_sensitive=False)


class PooledAuthMiddleware(AuthMiddleware):
    """``AuthMiddleware`` reading the user in the pool, not on the one sync thread."""

    async def resolve_scope(self, scope: dict[str, Any]) -> None:
        scope["user"]._wrapped = await _get_user_in_pool(scope)


def PooledAuthMiddlewareStack(inner: Any) -> CookieMiddleware:
    """``AuthMiddlewareStack`` with ``PooledAuthMiddleware``."""
    return CookieMiddleware(SessionMiddleware(PooledAuthMiddleware(inner)))
