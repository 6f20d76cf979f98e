"""When a schedule falls: each occurrence computed in its zone, stored in UTC (no database)."""

from __future__ import annotations

from datetime import UTC, datetime, time

from tournaments.occurrences import ALL_DAYS, WEEKDAY_BITS, occurrences_between, weekdays_of

WARSAW = "Europe/Warsaw"


def between(after: datetime, until: datetime, *, at: time, weekdays: int = ALL_DAYS) -> list:
    return list(
        occurrences_between(weekdays=weekdays, at=at, zone=WARSAW, after=after, until=until)
    )


def test_twenty_hundred_in_warsaw_stays_twenty_hundred_across_the_spring_change():
    # Summer time begins on Sunday 2026-03-29 at 02:00 (UTC+1 -> UTC+2).
    found = between(
        datetime(2026, 3, 27, 12, tzinfo=UTC), datetime(2026, 3, 31, 12, tzinfo=UTC), at=time(20)
    )
    assert found == [
        datetime(2026, 3, 27, 19, tzinfo=UTC),
        datetime(2026, 3, 28, 19, tzinfo=UTC),
        datetime(2026, 3, 29, 18, tzinfo=UTC),
        datetime(2026, 3, 30, 18, tzinfo=UTC),
    ]


def test_and_across_the_autumn_change():
    # Winter time begins on Sunday 2026-10-25 at 03:00 (UTC+2 -> UTC+1).
    found = between(
        datetime(2026, 10, 24, 0, tzinfo=UTC), datetime(2026, 10, 26, 0, tzinfo=UTC), at=time(20)
    )
    assert found == [datetime(2026, 10, 24, 18, tzinfo=UTC), datetime(2026, 10, 25, 19, tzinfo=UTC)]


def test_a_skipped_local_time_falls_after_the_gap_and_a_repeated_one_happens_once():
    spring = between(
        datetime(2026, 3, 29, 0, tzinfo=UTC), datetime(2026, 3, 29, 12, tzinfo=UTC), at=time(2, 30)
    )
    assert spring == [datetime(2026, 3, 29, 1, 30, tzinfo=UTC)]  # 03:30 summer time
    autumn = between(
        datetime(2026, 10, 24, 12, tzinfo=UTC),
        datetime(2026, 10, 25, 12, tzinfo=UTC),
        at=time(2, 30),
    )
    assert autumn == [datetime(2026, 10, 25, 0, 30, tzinfo=UTC)]  # the first 02:30 only


def test_only_the_chosen_weekdays_and_only_inside_the_window():
    mask = WEEKDAY_BITS[0] | WEEKDAY_BITS[4]  # Monday and Friday
    assert weekdays_of(mask) == [0, 4]
    # 2026-12-07 is a Monday.
    found = between(
        datetime(2026, 12, 7, 19, tzinfo=UTC),  # Monday's 20:00 in Warsaw: not after it
        datetime(2026, 12, 14, 19, tzinfo=UTC),  # next Monday's: included
        at=time(20),
        weekdays=mask,
    )
    assert found == [datetime(2026, 12, 11, 19, tzinfo=UTC), datetime(2026, 12, 14, 19, tzinfo=UTC)]
