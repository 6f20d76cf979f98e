"""Recurring tournaments: each occurrence of a staff's schedule becomes a tournament ahead
of its start, and every registered player is reminded a minute before any start.

Both run from the beat with the time passed in (``now``), so tests drive them with a
fake clock. Creating is safe to repeat and to run twice at once: the schedule's row is
locked while its occurrences are created, and the pair (schedule, start) is unique.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games.services import TIME_PRESETS
from tournaments import events
from tournaments.models import ScheduledTournament, Tournament, TournamentSchedule
from tournaments.occurrences import ALL_DAYS, occurrences_between
from tournaments.services._common import (
    NAME_MAX,
    PERM_CREATE,
    TournamentSettings,
    _locked,
    _require,
    tournament_settings_check,
)
from tournaments.services.lifecycle import tournament_create

logger = logging.getLogger(__name__)

REMINDER_BEFORE = timedelta(minutes=1)
MAX_AHEAD_HOURS = 24 * 14  # as the model's check
DATE_SUFFIX = " %Y-%m-%d"  # after the schedule's name: which day's tournament it is
HOUR_SUFFIX = " %Y-%m-%d %H:%M"  # an hourly schedule's: which hour's


def schedule_settings(schedule: TournamentSchedule, *, starts_at: datetime) -> TournamentSettings:
    """The settings of the tournament ``schedule`` creates for the start ``starts_at``."""
    pattern = HOUR_SUFFIX if schedule.every_hour else DATE_SUFFIX
    suffix = starts_at.astimezone(ZoneInfo(schedule.time_zone)).strftime(pattern)
    base_seconds, increment_seconds = TIME_PRESETS.get(schedule.time_control, (-1, -1))
    return TournamentSettings(
        name=schedule.name.strip()[: NAME_MAX - len(suffix)] + suffix,
        starts_at=starts_at,
        description=schedule.description,
        min_players=schedule.min_players,
        max_players=schedule.max_players,
        seats_per_table=schedule.seats_per_table,
        profile=schedule.profile,
        max_actions=schedule.max_actions,
        base_seconds=base_seconds,
        increment_seconds=increment_seconds,
        seconds_between_hands=schedule.seconds_between_hands,
        bots_allowed=schedule.bots_allowed,
        format=schedule.format,
        minutes=schedule.minutes,
        seats_min=schedule.seats_min,
        rated=schedule.rated,
    )


def schedule_check(schedule: TournamentSchedule, *, now: datetime) -> None:
    """Refuse a schedule whose days, zone, horizon or settings make no valid tournament."""
    if not 1 <= schedule.weekdays <= ALL_DAYS:
        raise Refused(_("Choose at least one weekday."))
    try:
        ZoneInfo(schedule.time_zone)
    except (ValueError, ZoneInfoNotFoundError):
        raise Refused(_("Unknown time zone.")) from None
    if schedule.time_control not in TIME_PRESETS:
        raise Refused(_("Unknown time control."))
    if not 1 <= schedule.create_ahead_hours <= MAX_AHEAD_HOURS:
        raise Refused(
            _("Tournaments are created between 1 and %(n)d hours ahead.") % {"n": MAX_AHEAD_HOURS}
        )
    tournament_settings_check(
        schedule_settings(schedule, starts_at=now + timedelta(hours=1)), now=now
    )


def schedule_save(
    *, schedule: TournamentSchedule, by: User, now: datetime | None = None
) -> TournamentSchedule:
    """Staff (who may create tournaments): create or change a schedule. Its settings must
    make a valid tournament; a new schedule's author is ``by`` (the creator of its
    tournaments). Tournaments already created keep their settings."""
    now = now or timezone.now()
    _require(by, PERM_CREATE)
    schedule_check(schedule, now=now)
    if schedule.pk is None:
        schedule.created_by = by
    schedule.save()
    return schedule


def schedule_create_due(*, now: datetime | None = None) -> list[Tournament]:
    """Create the tournament of every occurrence of every active schedule that starts
    within the schedule's horizon (``create_ahead_hours``) and has none yet; registration
    is open at once and the start is scheduled as for any tournament. Returns those
    created now. Takes each schedule's row lock in turn, in its own transaction."""
    now = now or timezone.now()
    created: list[Tournament] = []
    for schedule_id in TournamentSchedule.objects.filter(active=True).values_list("pk", flat=True):
        created += _create_occurrences(schedule_id, now=now)
    return created


def _create_occurrences(schedule_id: int, *, now: datetime) -> list[Tournament]:
    created: list[Tournament] = []
    with transaction.atomic():
        schedule = (
            TournamentSchedule.objects.select_for_update()
            .select_related("created_by")
            .filter(pk=schedule_id, active=True)
            .first()
        )
        if schedule is None:
            return created
        until = now + timedelta(hours=schedule.create_ahead_hours)
        known = set(
            schedule.occurrences.filter(starts_at__gt=now).values_list("starts_at", flat=True)
        )
        for starts_at in occurrences_between(
            weekdays=schedule.weekdays,
            at=schedule.time_of_day,
            zone=schedule.time_zone,
            after=now,
            until=until,
            every_hour=schedule.every_hour,
        ):
            if starts_at in known:
                continue
            try:
                with transaction.atomic():
                    tournament = tournament_create(
                        by=schedule.created_by,
                        settings=schedule_settings(schedule, starts_at=starts_at),
                        now=now,
                    )
                    if schedule.fill_with_bots:
                        tournament.fill_bot_level = schedule.bot_level
                        tournament.save(update_fields=["fill_bot_level"])
                    ScheduledTournament.objects.create(
                        schedule=schedule, starts_at=starts_at, tournament=tournament
                    )
            except Refused as refusal:
                # The schedule's author lost the right to create, or its settings no
                # longer pass: the staff sees it in the log; the other schedules go on.
                logger.warning("schedule %s at %s: %s", schedule, starts_at, refusal.message)
                continue
            created.append(tournament)
    return created


# --- the reminder a minute before the start --------------------------------------------


def tournament_remind_due(*, now: datetime | None = None) -> int:
    """Remind the players of every tournament that starts within the next minute and has
    not reminded them yet. Returns how many tournaments sent their reminder now."""
    now = now or timezone.now()
    due = Tournament.objects.filter(
        status=Tournament.Status.SCHEDULED,
        reminded_at__isnull=True,
        starts_at__gt=now,
        starts_at__lte=now + REMINDER_BEFORE,
    ).values_list("pk", flat=True)
    return sum(tournament_remind(tournament_id=pk, now=now) for pk in due)


def tournament_remind(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Tell each registered player, once, that the tournament starts in a minute: a notice
    on every open page (over his sockets) and on every page he opens until the start.
    Only within the last minute before the start. Locks the tournament; returns whether
    the reminder went out now."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if (
            tournament.status != Tournament.Status.SCHEDULED
            or tournament.reminded_at is not None
            or not now < tournament.starts_at <= now + REMINDER_BEFORE
        ):
            return False
        tournament.reminded_at = now
        tournament.save(update_fields=["reminded_at"])
        users = tournament.entries.filter(user__isnull=False).values_list("user_id", flat=True)
        for user_id in users:
            events.user_reminder_on_commit(user_id, tournament.pk)
    return True
