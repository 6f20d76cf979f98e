"""An arena's pairing wave (tournaments.arena_pairing), pure."""

from __future__ import annotations

from itertools import combinations

import pytest

from tournaments.arena_pairing import PAIR_AFTER, Waiting, pairing_wave


def pool(n: int, *, since: float = 0.0) -> list[Waiting[int]]:
    return [Waiting(key=i, since=since) for i in range(n)]


def test_neighbours_in_the_ranking_sit_together_as_evenly_as_the_sizes_allow():
    assert pairing_wave(pool(8), smallest=4, largest=4, now=1) == [(0, 1, 2, 3), (4, 5, 6, 7)]
    assert pairing_wave(pool(10), smallest=3, largest=4, now=1) == [
        (0, 1, 2, 3),
        (4, 5, 6),
        (7, 8, 9),
    ]
    assert pairing_wave(pool(2), smallest=3, largest=4, now=1000) == []


def test_those_who_came_last_wait_when_not_everyone_fits():
    waiting = [Waiting(key=i, since=float(10 - i)) for i in range(6)]  # 5 came first
    groups = pairing_wave(waiting, smallest=4, largest=4, now=20)
    assert groups == [(2, 3, 4, 5)]


def test_nobody_sits_with_the_same_opponents_twice_in_a_row_while_others_wait():
    last = {0: {1, 2, 3}, 1: {0, 2, 3}, 2: {0, 1, 3}, 3: {0, 1, 2}}
    waiting = [
        Waiting(key=i, since=0.0, last_opponents=frozenset(last.get(i, ()))) for i in range(8)
    ]
    groups = pairing_wave(waiting, smallest=4, largest=4, now=1)
    assert len(groups) == 2
    for group in groups:
        assert not any(set(group) - {k} == last[k] for k in group if k in last)
    # One more waiting player, who is not seated, is swapped in.
    groups = pairing_wave(waiting[:5], smallest=4, largest=4, now=1)
    assert len(groups) == 1 and 4 in groups[0]
    # Nobody else waits: they play again.
    assert pairing_wave(waiting[:4], smallest=4, largest=4, now=1) == [(0, 1, 2, 3)]


def test_two_alone_wait_for_a_third_then_sit_at_a_table_of_two_where_allowed():
    two = pool(2, since=100.0)
    assert pairing_wave(two, smallest=2, largest=4, now=100 + PAIR_AFTER - 1) == []
    assert pairing_wave(two, smallest=2, largest=4, now=100 + PAIR_AFTER) == [(0, 1)]
    assert pairing_wave(two, smallest=3, largest=4, now=10_000) == []
    # With a third waiting, three sit together rather than two.
    assert pairing_wave(pool(3), smallest=2, largest=4, now=10_000) == [(0, 1, 2)]


def apart(*pairs: tuple[int, int]) -> set[frozenset[int]]:
    return {frozenset(pair) for pair in pairs}


def together(groups, one: int, other: int) -> bool:
    return any(one in group and other in group for group in groups)


def test_two_linked_accounts_never_sit_together_a_neighbour_swaps_in():
    groups = pairing_wave(pool(8), smallest=4, largest=4, now=1, apart=apart((0, 1)))
    assert len(groups) == 2 and sorted(k for g in groups for k in g) == list(range(8))
    assert not together(groups, 0, 1)
    # One left waiting swaps in where no table is beside them.
    groups = pairing_wave(pool(5), smallest=4, largest=4, now=1, apart=apart((0, 1)))
    assert len(groups) == 1 and not together(groups, 0, 1)


def test_where_no_swap_parts_them_the_later_to_come_waits_and_the_others_play():
    waiting = [Waiting(key=i, since=float(i)) for i in range(4)]  # 3 came last
    groups = pairing_wave(waiting, smallest=3, largest=4, now=100, apart=apart((1, 2)))
    assert groups == [(0, 1, 3)]
    # Two alone who are linked never make a table of two, however long they wait.
    two = pool(2, since=0.0)
    assert pairing_wave(two, smallest=2, largest=4, now=10_000, apart=apart((0, 1))) == []


def test_avoiding_a_repeated_game_never_seats_linked_accounts_together():
    last = {0: {1, 2, 3}, 1: {0, 2, 3}, 2: {0, 1, 3}, 3: {0, 1, 2}}
    waiting = [
        Waiting(key=i, since=0.0, last_opponents=frozenset(last.get(i, ()))) for i in range(8)
    ]
    # The first swap that parts the old table would bring 4 beside 1 and 2.
    linked = apart((4, 1), (4, 2), (5, 1))
    groups = pairing_wave(waiting, smallest=4, largest=4, now=1, apart=linked)
    assert len(groups) == 2
    for group in groups:
        assert not any(set(group) - {k} == last[k] for k in group if k in last)
        assert not any(frozenset(p) in linked for p in combinations(group, 2))


def test_sizes_outside_two_to_four_are_refused():
    with pytest.raises(ValueError):
        pairing_wave(pool(4), smallest=1, largest=4, now=0)
    with pytest.raises(ValueError):
        pairing_wave(pool(4), smallest=4, largest=3, now=0)
