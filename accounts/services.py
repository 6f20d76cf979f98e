"""Changes to a user's own account."""

from __future__ import annotations

from django.db import transaction

from accounts.models import User


def user_set_language(*, user: User, language: str) -> None:
    """Save the display language ('' follows the browser). Raises ValueError for an unknown one."""
    if language and language not in User.Language.values:
        raise ValueError(f"unknown language {language!r}")
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(language=language)
    user.language = language


def user_set_sounds(*, user: User, on: bool) -> None:
    """Save whether the table plays its sounds for this user."""
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(sounds_on=on)
    user.sounds_on = on
