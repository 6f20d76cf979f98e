"""The speeds a match is rated in, as lichess rates each speed apart.

A real-time table's speed follows the estimated duration of a hand for one player:
``base + N × increment`` seconds, N being the median number of a player's own actions
per hand (``ACTIONS_PER_HAND``, measured with ``python -m bench.bench_speed``: greedy
bots, default rules, 2 to 4 seats; the figures are in docs/architecture.md). The
boundaries are lichess's: under 3 minutes bullet, under 8 blitz, under 25 rapid, and
classical from there. A table with days per move is correspondence, whatever its
minutes. Pure: no database, no clock.
"""

from __future__ import annotations

from typing import Protocol

from django.db import models
from django.utils.translation import gettext_lazy as _

# The median own actions per hand of one player (bench.bench_speed, 2 000 hands per
# table size); lichess counts 40 moves for a chess game.
ACTIONS_PER_HAND = 18


class Speed(models.TextChoices):
    BULLET = "bullet", _("bullet")
    BLITZ = "blitz", _("blitz")
    RAPID = "rapid", _("rapid")
    CLASSICAL = "classical", _("classical")
    CORRESPONDENCE = "correspondence", _("correspondence")


# The first estimated duration (seconds) that is no longer of the speed, fastest first.
LIMITS: tuple[tuple[Speed, int], ...] = (
    (Speed.BULLET, 3 * 60),
    (Speed.BLITZ, 8 * 60),
    (Speed.RAPID, 25 * 60),
)


def estimated_seconds(*, base_seconds: int, increment_seconds: int) -> int:
    """How long a hand lasts for one player who uses his whole time, by estimate."""
    return base_seconds + ACTIONS_PER_HAND * increment_seconds


def speed_of(*, base_seconds: int, increment_seconds: int, move_days: int = 0) -> Speed:
    """The speed of a time control: correspondence with days per move (``move_days`` >
    0), otherwise by the estimated duration of a hand."""
    if move_days > 0:
        return Speed.CORRESPONDENCE
    estimate = estimated_seconds(base_seconds=base_seconds, increment_seconds=increment_seconds)
    for speed, limit in LIMITS:
        if estimate < limit:
            return speed
    return Speed.CLASSICAL


class TimeControlled(Protocol):
    """A table as far as its speed goes (a model's row, or a migration's)."""

    base_seconds: int
    increment_seconds: int
    move_days: int


def table_speed(table: TimeControlled) -> Speed:
    """The speed a table's matches are rated in: a table keeps its time control for
    life, so this is also the speed of each of its matches."""
    return speed_of(
        base_seconds=table.base_seconds,
        increment_seconds=table.increment_seconds,
        move_days=table.move_days,
    )
