"""The fair-play bench's arithmetic: its intervals and its seating."""

from __future__ import annotations

import random

from bench.bench_fairplay import seat_round, wilson


def test_the_wilson_interval_holds_the_share_and_narrows_with_more_players():
    p, low, high = wilson(9, 10)
    assert p == 0.9 and low < 0.9 < high <= 1.0
    assert wilson(0, 10)[1] == 0.0 and wilson(10, 10)[2] == 1.0
    assert wilson(90, 100)[2] - wilson(90, 100)[1] < high - low
    assert wilson(0, 0) == (0.0, 0.0, 1.0)


def test_each_pair_sits_together_and_everyone_plays_once_a_round():
    groups = [[1, 2], [3, 4]]
    singles = list(range(10, 21))
    tables = seat_round(groups, singles, random.Random(1))
    seated = [pk for table in tables for pk in table]
    assert sorted(seated) == sorted([1, 2, 3, 4, *singles])
    assert all(2 <= len(table) <= 4 for table in tables)
    assert any(table[:2] == [1, 2] for table in tables)
