"""An arena's points as pure functions, with the places the engine gives."""

from __future__ import annotations

from decimal import Decimal

import pytest

from games.engine import Place, Play, hand_places
from tests.engine.positions import pos
from tournaments.arena_scale import (
    SCALE,
    GameLine,
    game_points,
    performance,
    place_points,
    ranking_key,
    score_games,
)

FIRST, SECOND, THIRD, FOURTH = (Place(n, n) for n in range(1, 5))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_going_out_earlier_never_pays_less_and_losing_pays_nothing(players):
    points = [place_points(Place(n, n), players) for n in range(1, players + 1)]
    assert points == sorted(points, reverse=True)
    assert points[0] > points[1]
    assert points[-1] == 0


def test_the_scale_of_each_table_size():
    assert SCALE == {2: (2, 0), 3: (4, 2, 0), 4: (5, 3, 1, 0)}
    # Every share an arena hand can make is a whole or half point.
    for players, shares in {4: [(1, 3), (2, 3), (3, 4)], 3: [(1, 2), (2, 3)], 2: [(1, 2)]}.items():
        for best, worst in shares:
            assert place_points(Place(best, worst), players) * 2 % 1 == 0


def test_the_tie_rule_shares_the_points_of_the_tied_places():
    # A real tie from the engine: seat 1 goes out with the queen, seat 0's king ties.
    state = pos(["KS", "QH", ""], pile="9H JH", to_move=1).apply(Play(("QH",)))
    places = hand_places(state)
    assert [place_points(p, 3) for p in places] == [1, 1, 4]
    assert place_points(Place(1, 2), 2) == 1


def test_two_good_games_in_a_row_double_the_next_until_a_game_that_is_not():
    games = [FIRST, SECOND, FIRST, SECOND, THIRD, FIRST]  # at tables of four
    total, streak, lines = score_games(GameLine(p, 4) for p in games)
    assert [line.points for line in lines] == [5, 3, 10, 6, 2, 5]
    assert [line.doubled for line in lines] == [False, False, True, True, True, False]
    assert total == 31 and streak == 1
    # At a table of three only first is good: second breaks the streak.
    _total, _streak, lines = score_games(GameLine(p, 3) for p in [FIRST, FIRST, SECOND, FIRST])
    assert [line.points for line in lines] == [4, 4, 4, 4]
    assert [line.doubled for line in lines] == [False, False, True, False]


def test_a_shared_place_in_the_better_half_with_one_below_is_not_good():
    assert game_points(Place(1, 2), 2, streak=0).streak == 0
    assert game_points(Place(2, 3), 4, streak=1).streak == 0
    assert game_points(Place(1, 2), 4, streak=1).streak == 2


def test_berserk_earns_a_point_when_not_last_after_seven_actions():
    assert game_points(SECOND, 4, streak=0, berserk=True, actions=7).points == 4
    assert game_points(SECOND, 4, streak=0, berserk=True, actions=6).points == 3
    assert game_points(FOURTH, 4, streak=0, berserk=True, actions=30).points == 0
    assert game_points(Place(3, 4), 4, streak=0, berserk=True, actions=30).points == Decimal("0.5")
    # The streak doubles the scale's points, not Berserk's point.
    on_fire = game_points(FIRST, 3, streak=2, berserk=True, actions=9)
    assert on_fire.points == 9 and on_fire.berserk_point and on_fire.doubled


def test_performance_is_the_opponents_rating_moved_by_the_place():
    assert performance([]) is None
    assert performance([GameLine(FIRST, 4, opponents_rating=1500)]) == 1900
    assert performance([GameLine(FOURTH, 4, opponents_rating=1500)]) == 1100
    assert performance([GameLine(Place(2, 3), 4, opponents_rating=1600)]) == 1600
    assert (
        performance(
            [GameLine(FIRST, 3, opponents_rating=1500), GameLine(THIRD, 3, opponents_rating=1700)]
        )
        == 1600
    )


def test_the_ranking_orders_points_then_performance_then_rating():
    rows = [
        ("b", Decimal(5), 1600.0, 1500),
        ("a", Decimal(5), 1700.0, 1400),
        ("c", Decimal(7), None, 1000),
        ("d", Decimal(0), None, 1800),
        ("e", Decimal(0), None, 1200),
    ]
    ordered = sorted(rows, key=lambda r: ranking_key(r[1], r[2], r[3], r[0]))
    assert [r[0] for r in ordered] == ["c", "a", "b", "d", "e"]
