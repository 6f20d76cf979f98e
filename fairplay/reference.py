"""How unusual a fair-play statistic is beside honest play.

The honest play is the simulation's (``bench/bench_fairplay.py --write-reference``): bots
of every level playing rated matches as honest people through the site's services, each
player's and pair's statistics written to ``reference.json`` beside this module, with a
line saying how it was made (``source``). A value is then said two ways: the share of
the honest players (or pairs) of the reference it is higher than, and its tail beside a
normal law fitted to them (``Tail.chance``: the signals are standardised sums, close to
normal over honest play), which still says "1 in N" beyond the reference's highest value.

The signals of a case are put together into one chance (:func:`combined`): the smaller of
Fisher's method and of the smallest chance times the number of signals (Bonferroni),
doubled for taking the better of the two, so a case strong on one signal and one strong
on all of them both rank high.
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

    def tail(self, signal: str, value: float) -> Tail:
        honest = self.values.get(signal, ())
        if len(honest) >= 2:
            mean = statistics.fmean(honest)
            spread = statistics.stdev(honest) or 1.0
        else:
            mean, spread = 0.0, 1.0
        chance = 0.5 * math.erfc((value - mean) / spread / math.sqrt(2))
        above = bisect.bisect_left(honest, value) / len(honest) if honest else None
        return Tail(value, above, chance, len(honest))


def combined(tails: Sequence[Tail]) -> float:
    """One chance for several signals of one case (module docstring)."""
    if not tails:
        return 1.0
    chances = [max(t.chance, 1e-300) for t in tails]
    statistic = -2 * sum(math.log(c) for c in chances)
    # The chi-squared tail with 2k degrees of freedom, in closed form.
    half = statistic / 2
    term, total = 1.0, 1.0
    for i in range(1, len(chances)):
        term *= half / i
        total += term
    fisher = math.exp(-half) * total
    bonferroni = min(chances) * len(chances)
    return min(1.0, 2 * min(fisher, bonferroni))


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
