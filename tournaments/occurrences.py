"""When a recurring tournament schedule falls: pure arithmetic of dates, no Django.

A schedule says "these weekdays at this local time in this zone" (our players are
Polish: Europe/Warsaw by default). Each occurrence is computed in the zone, on its own
day, and returned in UTC, so 20:00 stays 20:00 in Warsaw across the change to and from
summer time (19:00 UTC in winter, 18:00 UTC in summer).

A local time that does not exist (the hour skipped in spring) is read with the offset
before the change, so 02:30 becomes 03:30 summer time; a local time that happens twice
(the hour repeated in autumn) is its first happening. Either way each day has exactly
one occurrence.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

__all__ = ["ALL_DAYS", "WEEKDAY_BITS", "occurrences_between", "weekdays_of"]

# Monday is bit 0, Sunday bit 6 (date.weekday()'s numbering).
WEEKDAY_BITS = tuple(1 << day for day in range(7))
ALL_DAYS = sum(WEEKDAY_BITS)


def weekdays_of(mask: int) -> list[int]:
    """The weekdays (0 Monday .. 6 Sunday) a bit mask holds."""
    return [day for day, bit in enumerate(WEEKDAY_BITS) if mask & bit]


def occurrences_between(
    *,
    weekdays: int,
    at: time,
    zone: str,
    after: datetime,
    until: datetime,
    every_hour: bool = False,
) -> Iterator[datetime]:
    """Every occurrence (in UTC, in order) with ``after < occurrence <= until``.

    ``after`` and ``until`` are aware datetimes; ``at`` is a naive local time of day in
    ``zone`` (an IANA name); ``weekdays`` a mask of ``WEEKDAY_BITS``. With
    ``every_hour``, every hour of those days at ``at``'s minute (in UTC, so an hour is
    never skipped nor repeated when the clocks change).
    """
    tz = ZoneInfo(zone)
    if every_hour:
        moment = after.astimezone(UTC).replace(minute=at.minute, second=at.second, microsecond=0)
        while moment <= until:
            if after < moment and weekdays & WEEKDAY_BITS[moment.astimezone(tz).weekday()]:
                yield moment
            moment += timedelta(hours=1)
        return
    first = after.astimezone(tz).date() - timedelta(days=1)
    last = until.astimezone(tz).date() + timedelta(days=1)
    day = first
    while day <= last:
        if weekdays & WEEKDAY_BITS[day.weekday()]:
            occurrence = _in_utc(day, at, tz)
            if after < occurrence <= until:
                yield occurrence
        day += timedelta(days=1)


def _in_utc(day: date, at: time, tz: ZoneInfo) -> datetime:
    local = datetime.combine(day, at.replace(tzinfo=None, fold=0), tzinfo=tz)
    return local.astimezone(UTC)
