"""A websocket's Django session and user, read once as it opens, in the thread pool.

Channels' session and auth middleware put lazy objects in the scope, read the user on
the one thread ``database_sync_to_async`` runs a process's calls on (in a storm of
connects, everybody back after a restart, the handshakes queued there until daphne
dropped them), and wrap every frame the socket sends to save a session no socket
changes. Here the sessions and users of the sockets that open together are read
together (``live.db.ReadTogether``): a restart's thousand handshakes make a few
queries per hundred sockets rather than three each. Each socket's scope gets its
session's data, read only (``scope["session"]``: a socket never saves it), and its
user (``scope["user"]``: the ``User``, or ``AnonymousUser``), whom Django's
``get_user`` would give a request with these cookies. When the database cannot be
reached the handshake is turned away (the page tries again), not answered with an
error page and a traceback per socket.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from importlib import import_module
from types import MappingProxyType
from typing import Any

from channels.middleware import BaseMiddleware
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts.models import User
from accounts.permissions import read_rights
from live.db import DATABASE_DOWN, ReadTogether

logger = logging.getLogger(__name__)

NO_SESSION: Mapping[str, Any] = MappingProxyType({})


def session_and_user(cookies: dict[str, str]) -> tuple[Mapping[str, Any], Any]:
    """The data of the session the cookies name (empty if none) and its signed-in user,
    as Django's ``AuthenticationMiddleware`` would give a request with these cookies,
    with whether he holds any rights read too (``holds_rights``, kept on the user)."""
    return sessions_and_users([cookies.get(settings.SESSION_COOKIE_NAME)])[0]


def sessions_and_users(keys: list[str | None]) -> list[tuple[Mapping[str, Any], Any]]:
    """``session_and_user`` for several session keys (None: no cookie), in their order,
    in one query each for the sessions, the users and their rights. A key that comes
    twice gets a user object of its own each time (a socket's user is its own)."""
    data = _sessions([key for key in keys if key])
    users = _users(data)
    read_rights(list(users.values()))
    given: set[int] = set()
    found: list[tuple[Mapping[str, Any], Any]] = []
    for key in keys:
        user = users.get(key) if key else None
        if user is None:
            found.append(
                (MappingProxyType(data.get(key, {})) if key else NO_SESSION, AnonymousUser())
            )
            continue
        if id(user) in given:
            user = copy.copy(user)  # the same session twice (two tabs): not the same object
        given.add(id(user))
        found.append((MappingProxyType(data[key]), user))
    return found


def _sessions(keys: list[str]) -> dict[str, dict[str, Any]]:
    """The unexpired sessions among ``keys``, decoded, by key: in one query where the
    session engine keeps them in the database (``db``, ``cached_db``), else each as its
    ``SessionStore`` reads it."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not keys:
        return {}
    if hasattr(store, "get_model_class"):
        rows = store.get_model_class().objects.filter(
            session_key__in=set(keys), expire_date__gt=timezone.now()
        )
        return {row.session_key: row.get_decoded() for row in rows}
    return {key: dict(store(key).items()) for key in set(keys)}


def _users(sessions: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The signed-in user of each session that has one, by session key, as
    ``django.contrib.auth.get_user`` finds him (the session's backend among the settings',
    a user who may authenticate, the session's hash his password's, with the fallback
    secrets), the users of each ``ModelBackend`` read in one query. A session that
    fails the check is left to the next request, which flushes it: a socket does not
    write."""
    wanted: dict[str, dict[Any, list[str]]] = {}
    for key, data in sessions.items():
        try:
            user_id = User._meta.pk.to_python(data[auth.SESSION_KEY])
            backend_path = data[auth.BACKEND_SESSION_KEY]
        except (KeyError, ValidationError):
            continue
        if backend_path in settings.AUTHENTICATION_BACKENDS:
            wanted.setdefault(backend_path, {}).setdefault(user_id, []).append(key)
    users: dict[str, Any] = {}
    for backend_path, by_id in wanted.items():
        backend = auth.load_backend(backend_path)
        if type(backend).get_user is ModelBackend.get_user:
            found = {
                user.pk: user
                for user in User.objects.filter(pk__in=list(by_id))
                if backend.user_can_authenticate(user)
            }
        else:
            found = {user_id: backend.get_user(user_id) for user_id in by_id}
        for user_id, keys in by_id.items():
            user = found.get(user_id)
            for key in keys:
                if user is not None and _hash_verified(user, sessions[key]):
                    users[key] = user
    return users


def _hash_verified(user: Any, session: dict[str, Any]) -> bool:
    if not hasattr(user, "get_session_auth_hash"):
        return True
    session_hash = session.get(auth.HASH_SESSION_KEY)
    if not session_hash:
        return False
    return constant_time_compare(session_hash, user.get_session_auth_hash()) or any(
        constant_time_compare(session_hash, fallback)
        for fallback in user.get_session_auth_fallback_hash()
    )


_READS: ReadTogether[str, tuple[Mapping[str, Any], Any]] = ReadTogether(sessions_and_users)


async def _session_and_user_in_pool(cookies: dict[str, str]) -> tuple[Mapping[str, Any], Any]:
    key = cookies.get(settings.SESSION_COOKIE_NAME)
    if not key:  # a visitor who never had a session: nothing to read
        return NO_SESSION, AnonymousUser()
    return await _READS.read(key)


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
