"""Reads about users, as plain data for pages."""

from __future__ import annotations

from django.shortcuts import get_object_or_404

from accounts.models import User


def user_public_profile(*, username: str) -> User:
    """The active user shown on /u/<username>/ (404 for unknown or deactivated names)."""
    return get_object_or_404(User, username__iexact=username, is_active=True)
