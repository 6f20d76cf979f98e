"""Where a player lost a hand (games.bots.analysis): judged from his own view only."""

from __future__ import annotations

from typing import Any

import pytest

from games.bots.analysis import analyse_hand, decisions_of
from games.bots.greedy import greedy_for_state
from games.engine import HandState, Rules, move_from_json, move_to_json

PICK_UP_TWO = {"type": "pickup", "count": 2}


def _played_out(start: HandState, first: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``first``, then greedy moves for everybody until the hand ends."""
    moves = list(first)
    state = start
    for move in first:
        state = state.apply(move_from_json(move))
    while state.outcome is None:
        move = greedy_for_state(state)
        moves.append(move_to_json(move))
        state = state.apply(move)
    return moves


def _blunder() -> tuple[HandState, list[dict[str, Any]]]:
    """Seat 0 could go out with his last card, the queen, and picks up instead."""
    start = HandState.from_position(
        rules=Rules(),
        hands=[["QH"], ["KS", "9C", "AD", "10C"]],
        pile=["9H", "10S", "JD"],
        to_move=0,
    )
    return start, _played_out(start, [PICK_UP_TWO])


def test_the_blunder_is_the_costliest_decision_and_the_best_move_is_named():
    start, moves = _blunder()
    analysis = analyse_hand(start, moves, 0, seed="t", playouts=100)

    first = analysis.decisions[0]
    assert first.step == 0
    assert first.made.move == PICK_UP_TWO
    assert first.best.move == {"type": "play", "cards": ["QH"]}
    assert first.best.loss == 0.0  # out at once: the other seat is left holding cards
    assert first.made.loss > 0.3
    assert analysis.costliest == 0
    # Every decision lists each move distinct in effect once, best first.
    for decision in analysis.decisions:
        losses = [m.loss for m in decision.moves]
        assert losses == sorted(losses) and decision.best == decision.moves[0]
        assert decision.made.loss in losses
    assert [d.step for d in analysis.decisions] == [
        step for step, _, _ in decisions_of(start, moves, 0)
    ]


def test_the_decisive_turn_is_where_the_chance_of_losing_rose_most():
    start, moves = _blunder()
    analysis = analyse_hand(start, moves, 0, seed="t", playouts=100)

    # His first decision has no previous move to rise from.
    first, *later = analysis.decisions
    assert first.rise is None and analysis.to_json()["decisions"][0]["rise"] is None
    previous = first.made.loss
    for decision in later:
        assert decision.rise == pytest.approx(decision.made.loss - previous, abs=1e-4)
        previous = decision.made.loss
    rises = [d.rise for d in later]
    assert analysis.decisive == 1 + rises.index(max(rises))
    # His chance rose most when the king left him nothing but a forced pick-up: not the
    # turn of his own mistake, which the costliest decision names.
    assert analysis.decisive == len(analysis.decisions) - 1
    assert analysis.costliest == 0
    assert analysis.to_json()["decisive"] == analysis.decisive


def test_the_loser_of_a_played_hand_has_a_decisive_turn_and_progress_is_reported():
    start = HandState.from_position(
        rules=Rules(),
        hands=[["QH", "KH", "9S"], ["KS", "9C", "AD"], ["10C", "JC", "QC"]],
        pile=["9H", "10S", "JD"],
        to_move=0,
    )
    moves = _played_out(start, [])
    steps: list[tuple[int, int]] = []
    loser = start
    for move in moves:
        loser = loser.apply(move_from_json(move))
    seat = loser.outcome.loser
    assert seat is not None

    analysis = analyse_hand(
        start, moves, seat, seed="s", playouts=40, progress=lambda *p: steps.append(p)
    )

    total = len(analysis.decisions)
    assert steps == [(done, total) for done in range(1, total + 1)]
    assert analysis.decisive is not None


def _hidden_swapped(first: list[list[str]], second: list[list[str]]) -> list[HandState]:
    return [
        HandState.from_position(
            rules=Rules(), hands=hands, pile=["9H", "10S", "JD", "QD"], to_move=0
        )
        for hands in (first, second)
    ]


def test_the_others_hidden_cards_never_change_the_analysis():
    # Seat 0 sees the same in both: his hand, the pile, the counts, the history. The
    # others hold different cards (a king and an ace moved between seats 1 and 2).
    one, two = _hidden_swapped(
        [["KH", "9S", "AS"], ["KS", "9C", "AD"], ["10C", "JC", "QC", "KC"]],
        [["KH", "9S", "AS"], ["9C", "AD", "KC"], ["10C", "JC", "QC", "KS"]],
    )
    assert one.to_json() != two.to_json()
    # Moves legal in both: seat 0 plays, the others pick up, seat 0 plays again.
    moves = [
        {"type": "play", "cards": ["KH"]},
        {"type": "pickup", "count": 3},
        {"type": "pickup", "count": 1},
        {"type": "play", "cards": ["AS"]},
    ]
    for (_, view_one, _), (_, view_two, _) in zip(
        decisions_of(one, moves, 0), decisions_of(two, moves, 0), strict=True
    ):
        assert view_one == view_two

    first = analyse_hand(one, moves, 0, seed="same", playouts=60)
    second = analyse_hand(two, moves, 0, seed="same", playouts=60)

    assert len(first.decisions) == 2
    assert first.to_json() == second.to_json()


def test_the_same_seed_gives_the_same_analysis_and_a_budget_must_be_positive():
    start, moves = _blunder()
    assert analyse_hand(start, moves, 0, seed="a", playouts=30) == analyse_hand(
        start, moves, 0, seed="a", playouts=30
    )
    with pytest.raises(ValueError, match="playouts"):
        analyse_hand(start, moves, 0, seed="a", playouts=0)


def test_a_single_decision_is_never_decisive():
    # Nothing to rise from: one move, however costly, is no rise of his chance.
    start = HandState.from_position(
        rules=Rules(), hands=[["QH"], ["KS", "9C"]], pile=["9H", "10S", "JD"], to_move=0
    )
    analysis = analyse_hand(start, [PICK_UP_TWO], 0, seed="a", playouts=10)
    assert len(analysis.decisions) == 1 and analysis.decisions[0].rise is None
    assert analysis.decisive is None and analysis.costliest == 0


def test_a_timeout_is_no_decision():
    start, _ = _blunder()
    moves = [{"type": "timeout"}]
    assert decisions_of(start, moves, 0) == []
    assert analyse_hand(start, moves, 0, seed="a", playouts=10).decisive is None
