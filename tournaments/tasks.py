"""Celery tasks of the tournaments app: thin wrappers that call one service each.

A tournament is driven by three kinds of work, all safe to repeat: its start (a task
with ``eta`` = the start time), the next step after each hand (``tournament_advance``
after the pause between hands), and a beat sweep every few seconds that starts what
is due and advances every running tournament, whatever happened to the other tasks.
"""

from __future__ import annotations

import logging
from dataclasses import asdict

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from core.tasks import periodic_task
from tournaments import calendar, services
from tournaments.models import Tournament

logger = logging.getLogger(__name__)


@shared_task(name="tournaments.start")
def tournament_start_task(tournament_id: int) -> str:
    return services.tournament_start(tournament_id=tournament_id).status


@shared_task(name="tournaments.advance")
def tournament_advance_task(tournament_id: int) -> dict[str, int]:
    return asdict(services.tournament_advance(tournament_id=tournament_id))


@periodic_task("tournaments.sweep")
def tournament_sweep() -> dict[str, int]:
    """Start the tournaments that are due; advance the running ones and close the tables
    of those that are over (a lost task or a killed worker costs seconds, nothing more)."""
    now = timezone.now()
    started = advanced = 0
    due = Tournament.objects.filter(status=Tournament.Status.SCHEDULED, starts_at__lte=now)
    for tournament_id in due.values_list("pk", flat=True):
        services.tournament_start(tournament_id=tournament_id, now=now)
        started += 1
    live = Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True)
    unclosed = (
        Tournament.objects.filter(
            status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED],
            tables__closed_at__isnull=True,
        )
        .values_list("pk", flat=True)
        .distinct()
    )
    for tournament_id in [*live, *unclosed]:
        services.tournament_advance(tournament_id=tournament_id, now=now)
        advanced += 1
    return {"started": started, "advanced": advanced}


@periodic_task("tournaments.create_scheduled")
def tournament_create_scheduled() -> int:
    """Create the tournaments of the schedules (the staff's, and the site's calendar of
    arenas) that fall within their horizon."""
    if settings.ARENA_CALENDAR:
        calendar.calendar_ensure()
    return len(services.schedule_create_due(now=timezone.now()))


@periodic_task("tournaments.remind")
def tournament_remind_sweep() -> int:
    """Remind the players of the tournaments that start within the minute (once each)."""
    return services.tournament_remind_due(now=timezone.now())
