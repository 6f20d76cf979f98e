"""An arena's pairing wave: which of the waiting players sit together now.

Pure Python, no Django: the arena format passes the pool in and seats the tables that
come out. The rules:

* Tables form from the waiting players nearest in the arena's ranking: the pool comes
  in ranking order and is cut into consecutive groups.
* As many players sit as tables of the arena's sizes can hold, as evenly as possible;
  the players who came into the pool last wait for the next wave.
* Two linked accounts (fair play: one device, or one connection lately; pairs in
  ``apart``) never sit together: such a group swaps a player with a neighbouring
  group, or with one left waiting; where no swap parts them, the later of the two to
  come waits for the next wave and the others are seated without him.
* Nobody sits with the same opponents as in his last game while others wait: such a
  group swaps a player with a neighbouring group, or with one left waiting (never
  bringing two linked accounts together).
* Where tables of two are allowed beside bigger ones, two players alone in the pool
  wait for a third up to ``PAIR_AFTER`` seconds, and then sit at a table of two.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Generic, TypeVar

__all__ = ["PAIR_AFTER", "Waiting", "pairing_wave"]

PAIR_AFTER = 20.0  # seconds two players wait for a third before a table of two

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Waiting(Generic[K]):
    """A player in the pool: his key, since when he waits (seconds, any origin) and the
    opponents of his last game."""

    key: K
    since: float
    last_opponents: frozenset[K] = field(default_factory=frozenset)


def _repeats(group: Sequence[Waiting[K]]) -> bool:
    keys = {w.key for w in group}
    return any(w.last_opponents and w.last_opponents == keys - {w.key} for w in group)


def _linked(group: Sequence[Waiting[K]], apart: Collection[frozenset[K]]) -> bool:
    return bool(apart) and any(
        frozenset((a.key, b.key)) in apart for i, a in enumerate(group) for b in group[i + 1 :]
    )


def _sizes(players: int, smallest: int, largest: int) -> list[int]:
    """Table sizes for as many of ``players`` as can sit at tables of ``smallest`` to
    ``largest`` seats, as evenly as possible, largest first."""
    tables = -(-players // largest)
    while tables and tables * smallest > players:
        tables -= 1
    if not tables:
        return []
    seated = min(players, tables * largest)
    base, extra = divmod(seated, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def pairing_wave(
    pool: Sequence[Waiting[K]],
    *,
    smallest: int,
    largest: int,
    now: float,
    pair_after: float = PAIR_AFTER,
    apart: Collection[frozenset[K]] = frozenset(),
) -> list[tuple[K, ...]]:
    """The tables to seat now from ``pool`` (in ranking order, best first), each a tuple
    of keys in ranking order. ``smallest`` and ``largest``: the arena's table sizes
    (2 to 4 seats); ``apart``: the pairs of keys that never sit at one table."""
    if not 2 <= smallest <= largest <= 4:
        raise ValueError(
            f"table sizes must be 2 <= smallest <= largest <= 4: {smallest}, {largest}"
        )

    def linked(group: Sequence[Waiting[K]]) -> bool:
        return _linked(group, apart)

    def either(group: Sequence[Waiting[K]]) -> bool:
        return linked(group) or _repeats(group)

    waiting = list(pool)
    while True:
        groups, later = _cut(
            waiting, smallest=smallest, largest=largest, now=now, pair_after=pair_after
        )
        stuck = None
        for index, group in enumerate(groups):
            if linked(group) and not _swap_away(group, _others(groups, index, later), linked):
                stuck = group
                break
        if stuck is None:
            break
        # No swap parts them: the later of the two to come sits this wave out, and the
        # wave is cut again without him.
        waiting.remove(_the_later_linked(stuck, apart))
    for index, group in enumerate(groups):
        if _repeats(group):
            _swap_away(group, _others(groups, index, later), either)
    return [tuple(w.key for w in group) for group in groups]


def _cut(
    waiting: list[Waiting[K]], *, smallest: int, largest: int, now: float, pair_after: float
) -> tuple[list[list[Waiting[K]]], list[Waiting[K]]]:
    """The pool cut into consecutive tables, and those left waiting."""
    effective = smallest
    if smallest == 2 and largest > 2:
        two_waited = len(waiting) == 2 and all(now - w.since >= pair_after for w in waiting)
        effective = 2 if two_waited else 3
    sizes = _sizes(len(waiting), effective, largest)
    if not sizes:
        return [], []
    left = len(waiting) - sum(sizes)
    later: list[Waiting[K]] = []
    if left:
        # The last to come wait for the next wave; ties broken by the lower rank.
        order = sorted(range(len(waiting)), key=lambda i: (waiting[i].since, i))
        staying = set(order[-left:])
        later = [w for i, w in enumerate(waiting) if i in staying]
        waiting = [w for i, w in enumerate(waiting) if i not in staying]
    groups: list[list[Waiting[K]]] = []
    start = 0
    for size in sizes:
        groups.append(waiting[start : start + size])
        start += size
    return groups, later


def _others(
    groups: list[list[Waiting[K]]], index: int, later: list[Waiting[K]]
) -> list[tuple[list[Waiting[K]], bool]]:
    """Whom the group ``index`` may swap a player with: the neighbouring tables, then
    those left waiting (``is_table`` False)."""
    others = [(groups[i], True) for i in (index + 1, index - 1) if 0 <= i < len(groups)]
    if later:
        others.append((later, False))
    return others


def _swap_away(
    group: list[Waiting[K]],
    others: list[tuple[list[Waiting[K]], bool]],
    wrong: Callable[[Sequence[Waiting[K]]], bool],
) -> bool:
    """Swap one player of ``group`` with one of a neighbouring table, or of those left
    waiting (``is_table`` False), so that no table is ``wrong`` (the lists are changed
    in place); whether it could."""
    for other, is_table in others:
        for i, j in product(range(len(group)), range(len(other))):
            group[i], other[j] = other[j], group[i]
            if not wrong(group) and not (is_table and wrong(other)):
                return True
            group[i], other[j] = other[j], group[i]
    return False


def _the_later_linked(group: Sequence[Waiting[K]], apart: Collection[frozenset[K]]) -> Waiting[K]:
    """Of the players of ``group`` linked to another of it, the last to come (among
    equals the lower in the ranking)."""
    linked = [
        w for w in group if any(frozenset((w.key, v.key)) in apart for v in group if v is not w)
    ]
    return max(linked, key=lambda w: (w.since, group.index(w)))
