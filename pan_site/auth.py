"""A websocket's Django session and user, read once as it opens, in the thread pool.

Channels' session and auth middleware put lazy objects in the scope, read the user on
the one thread ``database_sync_to_async`` runs a process's calls on (in a storm of
connects, everybody back after a restart, the handshakes queued there until daphne
dropped them), and wrap every frame the socket sends to save a session no socket
changes. Here the session and the user are read together in the loop's pool, several
sockets at once, with Django's own ``SessionStore`` and ``django.contrib.auth.get_user``,
and put in the scope as they are: ``scope["session"]`` (read only: a socket never saves
it) and ``scope["user"]`` (the ``User``, or ``AnonymousUser``). When the database cannot
be reached the handshake is turned away (the page tries again), not answered with an
error page and a traceback per socket.
"""

from __future__ import annotations

import logging
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from channels.db import DatabaseSyncToAsync
from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.base import SessionBase

from accounts.permissions import holds_rights
from live.db import DATABASE_DOWN

logger = logging.getLogger(__name__)


def session_and_user(cookies: dict[str, str]) -> tuple[SessionBase, Any]:
    """The session the cookies name (a new, empty one if none) and its signed-in user,
    as Django's ``AuthenticationMiddleware`` would give a request with these cookies,
    with whether he holds any rights read too (``holds_rights``, kept on the user)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    session = store(cookies.get(settings.SESSION_COOKIE_NAME))
    if not session.session_key:
        return session, AnonymousUser()
    user = auth.get_user(SimpleNamespace(session=session))  # reads the session
    if user.is_authenticated:
        holds_rights(user)  # kept on the user: a table's socket draws his tools without a trip
    return session, user


_session_and_user_in_pool = DatabaseSyncToAsync(session_and_user, thread_sensitive=False)


class SessionUserMiddleware(BaseMiddleware):
    """Puts the socket's session and user in its scope (under ``CookieMiddleware``)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        try:
            session, user = await _session_and_user_in_pool(scope.get("cookies") or {})
        except DATABASE_DOWN:
            if scope["type"] != "websocket":
                raise
            logger.warning("a socket turned away: the database is unreachable")
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1013})
            return None
        return await super().__call__({**scope, "session": session, "user": user}, receive, send)


def SessionUserMiddlewareStack(inner: Any) -> CookieMiddleware:
    """The cookies parsed, then the session and the user read (``SessionUserMiddleware``)."""
    return CookieMiddleware(SessionUserMiddleware(inner))
