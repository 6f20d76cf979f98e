"""Celery tasks of the social app: thin wrappers that call one service each."""

from __future__ import annotations

from core.tasks import periodic_task
from social import services


@periodic_task("social.expire_challenges")
def expire_challenges() -> int:
    """Beat's sweep: write "expired" on the challenges whose time has run out and tell
    both players (every reader already treats them as expired)."""
    return services.challenge_expire_due()
