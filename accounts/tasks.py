"""Celery tasks of the accounts app: thin wrappers that call one service each."""

from __future__ import annotations

from accounts import services
from core.tasks import periodic_task


@periodic_task("accounts.forget_sightings")
def forget_sightings() -> int:
    """Beat's sweep: the sightings older than 30 days and the salts no longer used go."""
    return services.sightings_forget()
