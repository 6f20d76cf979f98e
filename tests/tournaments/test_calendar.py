"""The site's calendar of arenas: hourly bullet, blitz and rapid and a daily one, made by
the beat's task ahead of their starts, once each however often it runs."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from itertools import pairwise

import pytest

from tournaments import calendar, services
from tournaments.models import Format, Tournament, TournamentSchedule
from tournaments.occurrences import ALL_DAYS, occurrences_between
from tournaments.selectors import schedule_repeats

NOON = datetime(2026, 3, 28, 11, 30, tzinfo=UTC)  # the day before summer time in Warsaw


def test_hourly_occurrences_fall_every_hour_across_the_change_of_the_clocks():
    starts = list(
        occurrences_between(
            weekdays=ALL_DAYS,
            at=time(0, 0),
            zone="Europe/Warsaw",
            after=NOON,
            until=NOON + timedelta(hours=24),
            every_hour=True,
        )
    )
    assert len(starts) == 24
    assert starts[0] == datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    assert all(b - a == timedelta(hours=1) for a, b in pairwise(starts))


@pytest.mark.django_db
def test_the_calendar_makes_its_arenas_ahead_once_after_any_number_of_runs():
    assert calendar.calendar_ensure() == len(calendar.CALENDAR)
    assert calendar.calendar_ensure() == 0  # a restarted beat makes nothing twice
    schedules = TournamentSchedule.objects.exclude(calendar_key="")
    assert {s.calendar_key for s in schedules} == {a.key for a in calendar.CALENDAR}
    assert all(s.format == Format.ARENA and s.minutes for s in schedules)
    first = services.schedule_create_due(now=NOON)
    again = services.schedule_create_due(now=NOON + timedelta(seconds=30))
    assert again == []
    arenas = Tournament.objects.filter(format=Format.ARENA)
    # Two hours ahead: 12:00 and 13:00 UTC for each of the three hourly arenas, and the
    # daily one at 20:00 in Warsaw (19:00 UTC) within its day ahead.
    assert len(first) == arenas.count() == 3 * 2 + 1
    hourly_blitz = arenas.filter(name__startswith="Arena blitz 2026").order_by("starts_at")
    assert [t.starts_at for t in hourly_blitz] == [
        datetime(2026, 3, 28, 12, 0, tzinfo=UTC),
        datetime(2026, 3, 28, 13, 0, tzinfo=UTC),
    ]
    assert all(t.minutes == 57 and t.rated and t.base_seconds == 180 for t in hourly_blitz)
    daily = arenas.get(name__startswith="Arena blitz 20:00")
    assert daily.starts_at == datetime(2026, 3, 28, 19, 0, tzinfo=UTC) and daily.minutes == 120
    assert schedule_repeats(schedules.get(calendar_key="hourly-rapid")) == "Every hour at :00"
    assert not calendar.organiser().has_usable_password()
