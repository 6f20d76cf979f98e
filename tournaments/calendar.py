"""The site's calendar of arenas: hourly ones for bullet, blitz and rapid, and a daily one.

Each is a recurring schedule (``TournamentSchedule``) that the site keeps itself, found
by its ``calendar_key``; the beat's ``schedule_create_due`` then creates each arena ahead
of its start like any schedule's tournament, once per start (the pair schedule and
start is unique), however often the beat or a restarted worker runs.

Their names read the same in English and Polish ("Arena blitz"), as the players see them
in either. The schedules belong to the site's organiser account (no usable password: nobody signs
in as it).
The staff may change a calendar schedule or make it inactive in the admin; the calendar
never overwrites what they set, it only creates a schedule that is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time

from django.contrib.auth.models import Permission
from django.db import IntegrityError, transaction

from accounts.models import User
from tournaments.models import Format, TournamentSchedule
from tournaments.occurrences import ALL_DAYS

__all__ = ["CALENDAR", "ORGANISER", "CalendarArena", "calendar_ensure"]

ORGANISER = "PanArena"


@dataclass(frozen=True)
class CalendarArena:
    key: str
    name: str
    time_control: str  # a key of games.services.TIME_PRESETS
    minutes: int
    at: time  # local time (Europe/Warsaw); with every_hour, its minute
    every_hour: bool = True
    ahead_hours: int = 2


CALENDAR: tuple[CalendarArena, ...] = (
    CalendarArena("hourly-bullet", "Arena bullet", "1+0", 27, time(0, 0)),
    CalendarArena("hourly-blitz", "Arena blitz", "3+2", 57, time(0, 0)),
    CalendarArena("hourly-rapid", "Arena rapid", "10+5", 57, time(0, 0)),
    CalendarArena(
        "daily-blitz",
        "Arena blitz 20:00",
        "3+2",
        120,
        time(20, 0),
        every_hour=False,
        ahead_hours=24,
    ),
)


def organiser() -> User:
    """The site's own account that organises the calendar's arenas: it may create
    tournaments, and nobody signs in as it (it has no usable password)."""
    user, created = User.objects.get_or_create(username=ORGANISER, defaults={"email": ""})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
        user.user_permissions.add(
            *Permission.objects.filter(
                content_type__app_label="tournaments",
                codename__in=["add_tournament", "change_tournament"],
            )
        )
    return user


def calendar_ensure() -> int:
    """Create the calendar's schedules that do not exist yet; returns how many. Safe to
    run at once in two processes: the key is unique."""
    known = set(
        TournamentSchedule.objects.exclude(calendar_key="").values_list("calendar_key", flat=True)
    )
    missing = [arena for arena in CALENDAR if arena.key not in known]
    if not missing:
        return 0
    by = organiser()
    made = 0
    for arena in missing:
        try:
            with transaction.atomic():
                TournamentSchedule.objects.create(
                    calendar_key=arena.key,
                    name=arena.name,
                    weekdays=ALL_DAYS,
                    time_of_day=arena.at,
                    every_hour=arena.every_hour,
                    time_control=arena.time_control,
                    format=Format.ARENA,
                    minutes=arena.minutes,
                    seats_per_table=4,
                    seats_min=3,
                    rated=True,
                    min_players=3,
                    max_players=512,
                    profile="tournament",
                    seconds_between_hands=3.0,
                    create_ahead_hours=arena.ahead_hours,
                    created_by=by,
                )
        except IntegrityError:
            continue  # another process made it meanwhile
        made += 1
    return made
