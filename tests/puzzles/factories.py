"""Puzzles for tests: a hand-made position whose answer is certain."""

from __future__ import annotations

from games.bots.analysis import move_chances
from games.engine import HandState, Rules
from puzzles.finder import Candidate, candidate_of
from puzzles.models import Puzzle
from puzzles.services import puzzle_save

KING = {"type": "play", "cards": ["KH"]}
PICKUP = {"type": "pickup", "count": 2}


def go_out_or_lose_view() -> dict:
    """Seat 0 goes out with the king (then seat 1 empties his hand with the ace: a tie).
    If he picks up, seat 1 goes out with the ace and seat 0 is left with the letter."""
    state = HandState.from_position(
        rules=Rules(), hands=[["KH"], ["AS"]], pile=["9H", "10S", "QD"], to_move=0
    )
    return state.view_for(0)


def go_out_candidate() -> Candidate:
    view = go_out_or_lose_view()
    candidate = candidate_of([(5, view, PICKUP, move_chances(view, seed="t", playouts=20))], 20)
    assert candidate is not None
    return candidate


def make_puzzle(**fields: object) -> Puzzle:
    puzzle = puzzle_save(candidate=go_out_candidate())
    assert puzzle is not None
    if fields:
        Puzzle.objects.filter(pk=puzzle.pk).update(**fields)
        puzzle.refresh_from_db()
    return puzzle
