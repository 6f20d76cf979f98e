"""The arithmetic of tables: seating sizes, the balancing rule in each of its cases, places."""

from __future__ import annotations

import itertools

import pytest

from tournaments.seating import (
    Break,
    Move,
    balance_plan,
    elimination_place,
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


# --- places ------------------------------------------------------------------------------------


def test_a_place_is_one_more_than_the_players_still_in():
    assert elimination_place(9) == 10
    assert elimination_place(1) == 2
    # Two eliminated at the same moment from 10: both counted out, both 9th.
    assert elimination_place(10 - 2) == 9
    with pytest.raises(ValueError):
        elimination_place(-1)
