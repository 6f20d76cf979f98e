"""The attempt service under two requests at once: one attempt, one rating change."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating
from puzzles.services import AttemptResult, puzzle_attempt
from tests.factories import make_user
from tests.puzzles.factories import KING, PICKUP, make_puzzle


@pytest.mark.django_db(transaction=True)
def test_two_tabs_answering_at_once_are_rated_once():
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    puzzle = make_puzzle()
    user = make_user()
    barrier = threading.Barrier(2)
    results: list[AttemptResult] = []

    def answer(move: dict) -> None:
        try:
            barrier.wait()
            results.append(puzzle_attempt(puzzle_id=puzzle.pk, user=user, move=move))
        finally:
            connection.close()

    threads = [threading.Thread(target=answer, args=(move,)) for move in (KING, PICKUP)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(r.rated for r in results) == [False, True]
    first = next(r for r in results if r.rated)
    assert all(r.move == first.move and r.correct == first.correct for r in results)
    assert PuzzleAttempt.objects.filter(user=user).count() == 1
    rating = PuzzleRating.objects.get(user=user)
    assert rating.attempts == 1
    assert Puzzle.objects.get(pk=puzzle.pk).attempts == 1
