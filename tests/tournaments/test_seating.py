"""The arithmetic of tables: seating sizes, the balancing rule in each of its cases, places."""

from __future__ import annotations

import itertools

import pytest

from tournaments.seating import (
    Break,
    Move,
    balance_plan,
    clashes,
    destinations_apart,
    elimination_place,
    keep_apart,
    movers_apart,
    table_count,
    table_sizes,
)


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("players", range(3, 65))
def test_seating_uses_as_few_tables_as_hold_everyone_as_evenly_as_possible(players, seats):
    sizes = table_sizes(players, seats)
    assert sum(sizes) == players
    assert len(sizes) == table_count(players, seats) == -(-players // seats)
    assert len(sizes) == 1 or (len(sizes) - 1) * seats < players  # one table fewer: too few
    assert max(sizes) <= seats
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)
    # Evenly seated tables need no balancing step at all.
    assert balance_plan(list(enumerate(sizes)), seats) is None


def test_the_issue_example_ten_players_at_tables_of_four():
    assert table_sizes(10, 4) == [4, 3, 3]


@pytest.mark.parametrize(
    ("players", "seats", "expected"),
    [
        (3, 4, [3]),
        (4, 4, [4]),
        (5, 4, [3, 2]),
        (9, 4, [3, 3, 3]),
        (5, 2, [2, 2, 1]),
        (7, 3, [3, 2, 2]),
    ],
)
def test_seating_examples(players, seats, expected):
    assert table_sizes(players, seats) == expected


def test_a_table_of_one_seat_or_five_is_refused():
    for seats in (1, 5):
        with pytest.raises(ValueError):
            table_sizes(10, seats)


# --- balancing: each case the rule names -------------------------------------------------------


def test_when_the_players_fit_at_one_table_fewer_the_smallest_breaks_and_fills_open_seats():
    # 4 + 3 + 2 = 9 players; two tables of four would not hold them: no break.
    assert not isinstance(balance_plan([("a", 4), ("b", 3), ("c", 2)], 4), Break)
    # 3 + 3 + 2 = 8 fit at two tables of four: the table of two breaks into the open seats.
    plan = balance_plan([("a", 3), ("b", 3), ("c", 2)], 4)
    assert plan == Break(source="c", destinations=("a", "b"))


def test_a_break_fills_the_emptiest_tables_first():
    plan = balance_plan([("a", 2), ("b", 4), ("c", 1), ("d", 3)], 4)
    # 10 players fit at three tables: the table of one breaks into the emptiest, a.
    assert plan == Break(source="c", destinations=("a",))
    plan = balance_plan([("a", 2), ("b", 2), ("c", 2)], 3)
    assert plan == Break(source="a", destinations=("b", "c"))


def test_the_final_table_forms_when_everyone_left_fits_at_one_table():
    plan = balance_plan([("a", 2), ("b", 2)], 4)
    assert plan == Break(source="a", destinations=("b", "b"))
    assert balance_plan([("b", 4)], 4) is None


def test_otherwise_one_player_moves_from_the_largest_table_to_the_smallest():
    assert balance_plan([("a", 4), ("b", 4), ("c", 2)], 4) == Move(source="a", destination="c")
    assert balance_plan([("a", 2), ("b", 4), ("c", 4)], 4) == Move(source="b", destination="a")


def test_tables_differing_by_one_player_stay_as_they_are():
    assert balance_plan([("a", 4), ("b", 3), ("c", 3)], 4) is None
    assert balance_plan([("a", 2), ("b", 2), ("c", 1)], 2) is None  # the lone player waits


def test_among_equal_tables_the_one_listed_first_is_chosen():
    # The services list first the tables between hands.
    assert balance_plan([("x", 4), ("a", 4), ("c", 2)], 4) == Move(source="x", destination="c")
    assert balance_plan([("b", 2), ("a", 2)], 4).source == "b"


def test_empty_tables_are_ignored_and_overfull_ones_refused():
    assert balance_plan([("a", 0), ("b", 3)], 4) is None
    with pytest.raises(ValueError):
        balance_plan([("a", 5), ("b", 3)], 4)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_repeated_steps_always_settle_evenly_on_as_few_tables_as_needed(seats):
    """From any seating of up to 16 players, the steps end with tables that cannot be
    fewer and differ by at most one (a break leaves no room for a smaller count)."""
    for counts in itertools.product(range(seats + 1), repeat=4):
        tables = dict(zip("abcd", counts, strict=True))
        total = sum(counts)
        if total < 2:
            continue
        for _step in range(20):
            plan = balance_plan(list(tables.items()), seats)
            if plan is None:
                break
            if isinstance(plan, Move):
                tables[plan.source] -= 1
                tables[plan.destination] += 1
            else:
                tables[plan.source] = 0
                for key in plan.destinations:
                    tables[key] += 1
        else:
            pytest.fail(f"no settling from {counts}")
        live = [c for c in tables.values() if c]
        assert sum(live) == total
        assert len(live) == -(-total // seats)
        assert max(live) - min(live) <= 1


# --- linked accounts apart ----------------------------------------------------------------------


def linked(*pairs: tuple[int, int]) -> set[frozenset[int]]:
    return {frozenset(pair) for pair in pairs}


def test_swaps_part_every_linked_pair_the_tables_can_part_and_keep_the_sizes():
    tables = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11]]
    apart = linked((1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (1, 11))
    seating = keep_apart(tables, apart)
    assert [len(t) for t in seating] == [4, 4, 3]
    assert sorted(p for t in seating for p in t) == list(range(1, 12))
    assert all(clashes(t, apart) == 0 for t in seating)
    # Every one of a linked to every one of b: only a and b apart will do.
    a, b = [1, 2, 3, 4], [5, 6, 7, 8]
    across = {frozenset((x, y)) for x in a for y in b}
    seating = keep_apart([[1, 5, 2, 6], [3, 7, 4, 8]], across)
    assert sorted(sorted(t) for t in seating) == [a, b]


def test_without_a_linked_pair_together_nobody_moves_and_what_cannot_be_parted_stays():
    assert keep_apart([[1, 2], [3, 4]], linked((1, 3))) == [[1, 2], [3, 4]]
    assert keep_apart([[1, 2, 3]], linked((1, 2))) == [[1, 2, 3]]
    # Three linked to each other at two tables of two: one pair must sit together.
    seating = keep_apart([[1, 2], [3, 4]], linked((1, 2), (1, 3), (2, 3)))
    assert sum(clashes(t, linked((1, 2), (1, 3), (2, 3))) for t in seating) == 1


def test_a_mover_goes_where_nobody_linked_to_him_sits_else_anyone_may():
    assert movers_apart([1, 2, 3], [9, 8], linked((1, 9), (2, 8))) == [3]
    assert movers_apart([1, 2], [9], linked((1, 9), (2, 9))) == [1, 2]


def test_a_breaking_table_s_players_go_where_nobody_linked_to_them_sits():
    seated = {"a": [9], "b": [8]}
    assert destinations_apart([1, 2], ["a", "b"], seated, linked((1, 9))) == ["b", "a"]
    # Two linked movers never go to the same table where another is open.
    assert destinations_apart([1, 2, 3], ["a", "a", "b"], seated, linked((1, 2))) in (
        ["a", "b", "a"],
        ["b", "a", "a"],
    )
    # Nothing to part: the order given.
    assert destinations_apart([1, 2], ["a", "b"], seated, set()) == ["a", "b"]


# --- places ------------------------------------------------------------------------------------


def test_a_place_is_one_more_than_the_players_still_in():
    assert elimination_place(9) == 10
    assert elimination_place(1) == 2
    # Two eliminated at the same moment from 10: both counted out, both 9th.
    assert elimination_place(10 - 2) == 9
    with pytest.raises(ValueError):
        elimination_place(-1)
