"""Failed logins count against the account a login names, whichever of its names
(username or e-mail) was typed: FAILURES in WINDOW seconds, then every login to it is
refused until the window ends or a password reset lifts the lock. A login that names no
account counts against the name typed, so guesses at unknown names never lock a real one.

The project's own piece on Django's cache (allauth's "login_failed" limit keeps only its
per-address part, settings.ACCOUNT_RATE_LIMITS); accounts.adapters calls it from
allauth's documented pre_authenticate and authentication_failed hooks, and the
password_reset signal clears it (accounts.apps)."""

from __future__ import annotations

from typing import Any

from allauth.account.utils import filter_users_by_email, filter_users_by_username
from django.core.cache import cache

from accounts.models import User

FAILURES = 5
WINDOW = 300  # seconds, from the first failure


def account_named_by(credentials: dict[str, Any]) -> User | None:
    """The one account whose e-mail address or username the login names, if any."""
    if credentials.get("email"):
        users = {user.pk: user for user in filter_users_by_email(credentials["email"])}
    elif credentials.get("username"):
        users = {user.pk: user for user in filter_users_by_username(credentials["username"])}
    else:
        return None
    return next(iter(users.values())) if len(users) == 1 else None


def _account_key(pk: int) -> str:
    return f"login-failures:account:{pk}"


def key_for(credentials: dict[str, Any]) -> str:
    user = account_named_by(credentials)
    if user is not None:
        return _account_key(user.pk)
    typed = str(credentials.get("email") or credentials.get("username") or "").lower()
    return f"login-failures:name:{typed}"


def exhausted(key: str) -> bool:
    return int(cache.get(key) or 0) >= FAILURES


def spend(key: str) -> None:
    """One failure more; the window starts with the first one."""
    cache.add(key, 0, WINDOW)
    try:
        cache.incr(key)
    except ValueError:  # the window ended between the two calls
        cache.set(key, 1, WINDOW)


def clear(user: User) -> None:
    cache.delete(_account_key(user.pk))
