"""Times for tests that fill in forms in the site's time zone, whatever the hour they run."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.utils import timezone


def local_noon(days: int) -> datetime:
    """Noon in the site's time zone (Europe/Warsaw), ``days`` after today there.

    ``timezone.localtime() + timedelta(days=n)`` keeps the hour of the run, which a day of
    a DST change may not have (2:30 on the last Sunday of March), and its date is not the
    UTC date between 22:00 and 24:00 UTC. Noon exists on every day, in every zone we use.
    """
    day = timezone.localdate() + timedelta(days=days)
    return timezone.make_aware(datetime.combine(day, time(12)))
