"""Reads about users, as plain data for pages."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _

from accounts.models import User
from core import text


def active_user_named(username: str) -> User | None:
    """The active user named ``username``, in any case; None when there is none (a name
    holding what the database cannot store, ``core.text``, names nobody)."""
    if not text.is_storable(username):
        return None
    return User.objects.filter(username__iexact=username, is_active=True).first()


def user_public_profile(*, username: str) -> User:
    """The active user shown on /u/<username>/ (404 for unknown or deactivated names)."""
    user = active_user_named(username)
    if user is None:
        raise Http404(_("There is no such player."))
    return user
