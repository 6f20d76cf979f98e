"""The arithmetic of a tournament's tables: seating at the start, balancing, places.

Pure Python, no Django: the services pass in counts and get back decisions.
The rules (the tournaments issue):

* At the start the players sit at as few tables as hold them, as evenly as possible
  (10 players at tables of 4: 4, 3, 3).
* Between hands, when the players left fit at one table fewer, the smallest table
  breaks and its players fill the open seats; otherwise, when two tables differ by
  two or more players, one player moves from the largest to the smallest.
* A player eliminated is placed one more than the number of players still in;
  players eliminated at the same moment share that place.
* Two linked accounts (fair play: one device, or one connection lately) sit at different
  tables wherever a seating allows it: at the start players swap tables until no table
  holds a linked pair (``keep_apart``), and a player who moves goes where nobody linked
  to him sits (``movers_apart``, ``destinations_apart``). Where no seating keeps them
  apart (one table left), they sit together and the tournament goes on.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations, product
from typing import Generic, TypeVar

__all__ = [
    "MAX_PLAYERS",
    "MAX_SEATS",
    "MIN_PLAYERS",
    "MIN_SEATS",
    "Break",
    "Move",
    "balance_plan",
    "clashes",
    "destinations_apart",
    "elimination_place",
    "keep_apart",
    "movers_apart",
    "table_count",
    "table_sizes",
]

MIN_PLAYERS, MAX_PLAYERS = 3, 512
MIN_SEATS, MAX_SEATS = 2, 4

K = TypeVar("K", bound=Hashable)
T = TypeVar("T", bound=Hashable)


def table_count(players: int, seats: int) -> int:
    """How many tables of ``seats`` hold ``players``: as few as possible."""
    _check(players, seats)
    return -(-players // seats)


def table_sizes(players: int, seats: int) -> list[int]:
    """The players at each table when ``players`` sit at as few tables as hold them,
    as evenly as possible, largest first: ``table_sizes(10, 4) == [4, 3, 3]``."""
    tables = table_count(players, seats)
    base, extra = divmod(players, tables)
    return [base + 1] * extra + [base] * (tables - extra)


@dataclass(frozen=True)
class Break(Generic[K]):
    """The table ``source`` breaks; its players go, one each, to ``destinations``
    (a table appears as often as it receives players)."""

    source: K
    destinations: tuple[K, ...]

    @property
    def tables(self) -> frozenset[K]:
        return frozenset((self.source, *self.destinations))


@dataclass(frozen=True)
class Move(Generic[K]):
    """One player moves from table ``source`` to table ``destination``."""

    source: K
    destination: K

    @property
    def tables(self) -> frozenset[K]:
        return frozenset((self.source, self.destination))


def balance_plan(tables: Sequence[tuple[K, int]], seats: int) -> Break[K] | Move[K] | None:
    """The next balancing step for tables given as ``(key, players)``, or None.

    Among equally small (or large) tables the one listed first is chosen, so the
    caller lists first the tables it prefers to touch (those between hands). One step
    at a time: apply it and ask again until None.
    """
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
    live = [(key, count) for key, count in tables if count > 0]
    if any(count > seats for _key, count in live):
        raise ValueError(f"a table of {seats} seats cannot hold more players: {live}")
    if len(live) < 2:
        return None
    total = sum(count for _key, count in live)
    smallest = min(live, key=lambda kc: kc[1])
    if total <= (len(live) - 1) * seats:
        counts = {key: count for key, count in live if key != smallest[0]}
        order = [key for key, _count in live if key != smallest[0]]
        destinations = []
        for _ in range(smallest[1]):
            # Fill the emptiest table first, so that the tables stay as even as they can.
            target = min((k for k in order if counts[k] < seats), key=lambda k: counts[k])
            counts[target] += 1
            destinations.append(target)
        return Break(source=smallest[0], destinations=tuple(destinations))
    largest = max(live, key=lambda kc: kc[1])
    if largest[1] - smallest[1] >= 2:
        return Move(source=largest[0], destination=smallest[0])
    return None


def clashes(players: Iterable[K], apart: Collection[frozenset[K]]) -> int:
    """How many pairs of ``apart`` sit among ``players`` (one table)."""
    if not apart:
        return 0
    return sum(frozenset(pair) in apart for pair in combinations(players, 2))


def keep_apart(tables: Sequence[Sequence[K]], apart: Collection[frozenset[K]]) -> list[list[K]]:
    """``tables`` (the players at each) with players swapped between tables, sizes kept,
    until no swap of two players lowers the linked pairs of ``apart`` sitting together:
    none left wherever swaps can part them all. Without a linked pair at one table,
    nobody moves."""
    seating = [list(table) for table in tables]
    if not apart:
        return seating
    while True:
        swapped = False
        for here, table in enumerate(seating):
            if not clashes(table, apart):
                continue
            swapped = _one_better_swap(seating, here, apart)
            if swapped:
                break
        if not swapped:
            return seating


def _one_better_swap(seating: list[list[K]], here: int, apart: Collection[frozenset[K]]) -> bool:
    """Swap one player of table ``here`` with one of another table if that lowers the
    linked pairs sitting together (in place); whether it could."""
    table = seating[here]
    for there, other in enumerate(seating):
        if there == here:
            continue
        before = clashes(table, apart) + clashes(other, apart)
        for i, j in product(range(len(table)), range(len(other))):
            table[i], other[j] = other[j], table[i]
            if clashes(table, apart) + clashes(other, apart) < before:
                return True
            table[i], other[j] = other[j], table[i]
    return False


def movers_apart(
    candidates: Sequence[K], seated: Collection[K], apart: Collection[frozenset[K]]
) -> list[K]:
    """Those of ``candidates`` who may move to a table where ``seated`` sit without
    sitting beside an account linked to theirs; all of them if none may."""
    fine = [c for c in candidates if not any(frozenset((c, s)) in apart for s in seated)]
    return fine or list(candidates)


def destinations_apart(
    movers: Sequence[K],
    destinations: Sequence[T],
    seated: Mapping[T, Collection[K]],
    apart: Collection[frozenset[K]],
) -> list[T]:
    """Where each of ``movers`` goes (a table as often as ``destinations`` names it), so
    that the fewest linked pairs sit together where they arrive; among equals the order
    given."""
    best, fewest = list(destinations), None
    for order in dict.fromkeys(permutations(destinations)):
        arriving: dict[T, list[K]] = {}
        for mover, table in zip(movers, order, strict=True):
            arriving.setdefault(table, []).append(mover)
        count = sum(
            clashes([*seated.get(table, ()), *those], apart) - clashes(seated.get(table, ()), apart)
            for table, those in arriving.items()
        )
        if fewest is None or count < fewest:
            best, fewest = list(order), count
        if count == 0:
            break
    return best


def elimination_place(players_still_in: int) -> int:
    """The place of a player eliminated now: one more than the players still in (counted
    after everyone eliminated at the same moment has left, so that they share it)."""
    if players_still_in < 0:
        raise ValueError("players still in cannot be negative")
    return players_still_in + 1


def _check(players: int, seats: int) -> None:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"a table has {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
    if players < 1:
        raise ValueError(f"nobody to seat: {players} players")
