"""Who sits with whom: the pure arithmetic of the quick pairing (no database).

Among the seeks of one time control, the largest table that can be filled is filled
first (Pan is a game for a full table; a seeker of "any size" wants to play soonest, and
a full table seats the most waiting players). The player who has waited longest is
seated first, with the players nearest to him in rating when more are there than seats;
then the search starts again with whoever is left. Two seeks whose accounts are linked
(fair play: one device, or one connection lately) never sit at one table: the next
nearest sits instead, and a seeker nobody else can sit with waits on.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

SIZES_LARGEST_FIRST = (4, 3, 2)


class Seeking(Protocol):
    pk: int
    time_control: str
    size: int | None
    rating: float
    created_at: datetime


S = TypeVar("S", bound=Seeking)


def fits(seek: Seeking, size: int) -> bool:
    """A seek of ``size`` seats or of any size."""
    return seek.size is None or seek.size == size


def groups(
    seeks: Sequence[S], *, apart: Collection[frozenset[int]] = frozenset()
) -> list[tuple[int, list[S]]]:
    """The tables to seat now, as (size, seeks), the first seated player first; every seek
    is in at most one group, and no group holds both seeks of a pair in ``apart`` (pairs
    of seek pks)."""
    found: list[tuple[int, list[S]]] = []
    for time_control in dict.fromkeys(s.time_control for s in seeks):
        left = [s for s in seeks if s.time_control == time_control]
        while (group := _one_group(left, apart)) is not None:
            found.append(group)
            taken = {s.pk for s in group[1]}
            left = [s for s in left if s.pk not in taken]
    return found


def _one_group(seeks: list[S], apart: Collection[frozenset[int]]) -> tuple[int, list[S]] | None:
    for size in SIZES_LARGEST_FIRST:
        candidates = sorted((s for s in seeks if fits(s, size)), key=_waited_longest)
        if len(candidates) < size:
            continue
        # The longest waiting first; if every table he could sit at holds a seek linked
        # to his, the next.
        for first in candidates:
            nearest = sorted(
                (s for s in candidates if s is not first),
                key=lambda s, first=first: (abs(s.rating - first.rating), _waited_longest(s)),
            )
            group = [first]
            for seek in nearest:
                if len(group) == size:
                    break
                if not any(frozenset((seek.pk, other.pk)) in apart for other in group):
                    group.append(seek)
            if len(group) == size:
                return size, group
    return None


def _waited_longest(seek: Seeking) -> tuple[datetime, int]:
    return seek.created_at, seek.pk


def waiting_counts(seeks: Sequence[Seeking]) -> dict[str, int]:
    """How many wait for each size of one time control ("any" for the seeks of any size)."""
    counts = {str(size): 0 for size in sorted(SIZES_LARGEST_FIRST)} | {"any": 0}
    for seek in seeks:
        counts["any" if seek.size is None else str(seek.size)] += 1
    return counts


def waiting_for(counts: dict[str, int], size: int | None) -> int:
    """How many (the seeker too) wait for a table he could sit at."""
    if size is None:
        return sum(counts.values())
    return counts.get(str(size), 0) + counts.get("any", 0)
