"""How unusual a fair-play statistic is beside honest play.

The honest play is the simulation's (``bench/bench_fairplay.py --write-reference``): bots
of every level playing rated matches as honest people through the site's services, each
player's and pair's statistics written to ``reference.json`` beside this module, with a
line saying how it was made (``source``). A value is then said two ways: the share of
the honest players (or pairs) of the reference it is higher than, and its tail beside a
normal law fitted to them (``Tail.chance``: the signals are standardised sums, close to
normal over honest play), which still says "1 in N" beyond the reference's highest value.

The signals of a case are put together into one chance (:func:`combined`): the smallest
chance times the number of signals (Bonferroni), which holds however the signals hang
together. (Fisher's method, which adds them up, took an honest pair with three signals
at 1 in 60 each for a case: feeding and knowledge come from the same estimates, and the
simulation's honest pairs are not independent draws of the three.)
"""

from __future__ import annotations

import bisect
import functools
import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "PAIR_SIGNALS",
    "PLAYER_SIGNALS",
    "REFERENCE_PATH",
    "Reference",
    "Tail",
    "combined",
    "load_reference",
]

REFERENCE_PATH = Path(__file__).with_name("reference.json")
PLAYER_SIGNALS = ("assistance", "timing")
PAIR_SIGNALS = ("feeding", "knowledge", "dumping")
# Rating bands of the strong bot's honest match rate: a player is compared with players
# of his rating (shown rating, by hundreds).
BAND_WIDTH = 100
DEFAULT_MATCH_RATE = 0.5


@dataclass(frozen=True)
class Tail:
    """How unusual ``value`` is: ``above`` the share of the reference's honest values it
    is higher than (None: no reference), ``chance`` of an honest one as high by the
    normal fit, ``count`` the reference's values."""

    value: float
    above: float | None
    chance: float
    count: int

    @property
    def one_in(self) -> int:
        return max(1, round(1 / max(self.chance, 1e-12)))

    def to_json(self) -> dict[str, Any]:
        return {
            "value": round(self.value, 3),
            "above": None if self.above is None else round(self.above, 4),
            "chance": self.chance,
            "count": self.count,
        }


@dataclass(frozen=True)
class Reference:
    """The honest values of each signal (sorted) and the strong bot's honest match rate by
    rating band."""

    source: str
    values: dict[str, tuple[float, ...]]
    match_rates: dict[int, float]

    def match_rate(self, rating: int) -> float:
        """The honest rate of matching the strong bot at ``rating`` (the nearest band the
        reference has; one half without a reference)."""
        if not self.match_rates:
            return DEFAULT_MATCH_RATE
        band = rating // BAND_WIDTH * BAND_WIDTH
        nearest = min(self.match_rates, key=lambda b: (abs(b - band), b))
        return self.match_rates[nearest]

    def tail(self, signal: str, value: float, *, sampling: float = 0.0) -> Tail:
        """How unusual ``value`` is. ``sampling``: the variance of the value's own
        sampling error, where it is larger than the reference's (a statistic of fewer
        decisions than the reference's players made): added to the fitted spread, so
        that a player judged on little is not taken for an unusual one."""
        honest = self.values.get(signal, ())
        if len(honest) >= 2:
            mean = statistics.fmean(honest)
            spread = statistics.stdev(honest) or 1.0
        else:
            mean, spread = 0.0, 1.0
        spread = math.sqrt(spread * spread + sampling)
        chance = 0.5 * math.erfc((value - mean) / spread / math.sqrt(2))
        above = bisect.bisect_left(honest, value) / len(honest) if honest else None
        return Tail(value, above, chance, len(honest))


def combined(tails: Sequence[Tail]) -> float:
    """One chance for several signals of one case (module docstring)."""
    if not tails:
        return 1.0
    return min(1.0, min(t.chance for t in tails) * len(tails))


@functools.cache
def load_reference(path: Path = REFERENCE_PATH) -> Reference:
    """The reference in ``path`` (read once per process); an empty one if there is none."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return Reference(source="", values={}, match_rates={})
    return Reference(
        source=data.get("source", ""),
        values={k: tuple(sorted(v)) for k, v in data.get("values", {}).items()},
        match_rates={int(k): float(v) for k, v in data.get("match_rates", {}).items()},
    )
