"""Every change of puzzles' state: saving found puzzles, loading the kept set, attempts.

An attempt is rated once: the attempt row is unique per (user, puzzle) in the database,
and it is written under the lock of the user's puzzle rating, so a reload, a second tab
or a replayed request finds the first attempt and changes nothing. A move that is not
legal in the position is refused with the engine's reason and stores nothing.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from core.tasks import task_on_commit
from games.bots.features import move_key
from games.bots.knowledge import Knowledge
from games.engine import Reason, move_from_json, move_to_json
from games.models import Hand
from games.ratings import display_rating
from games.refusals import judged_move
from games.selectors.analysis import hand_record
from puzzles.finder import TOLERANCE, Candidate, find_puzzle, position_hash
from puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating
from puzzles.ratings import rate_attempt

__all__ = [
    "DATA_FILE",
    "PUZZLE_HAND_EVERY",
    "AttemptResult",
    "checked_move",
    "hand_qualifies",
    "is_solution",
    "on_hand_finished",
    "puzzle_attempt",
    "puzzle_fields",
    "puzzle_save",
    "puzzles_from_hand",
    "puzzles_load",
]

# The kept set that make_puzzles wrote, loaded by the demo seed (manage.py seed_demo).
DATA_FILE = Path(__file__).resolve().parent / "data" / "puzzles.json"

_STORED = (
    "position",
    "solutions",
    "chances",
    "wrong",
    "best_loss",
    "tolerance",
    "playouts",
    "themes",
    "content_hash",
)


def puzzle_fields(candidate: Candidate) -> dict[str, Any]:
    """A kept candidate as the fields of a Puzzle (and a record of the data file)."""
    return {
        "position": candidate.view,
        "solutions": list(candidate.solutions),
        "chances": [{"move": c.move, "loss": c.loss} for c in candidate.chances],
        "wrong": {"move": candidate.wrong.move, "loss": candidate.wrong.loss},
        "best_loss": candidate.best.loss,
        "tolerance": TOLERANCE,
        "playouts": candidate.playouts,
        "themes": list(candidate.themes),
        "content_hash": position_hash(candidate.view),
    }


def puzzle_save(*, candidate: Candidate, source_hand_id: int | None = None) -> Puzzle | None:
    """Keep a re-checked candidate as a puzzle; None if the same position is one already."""
    fields = puzzle_fields(candidate)
    try:
        with transaction.atomic():
            return Puzzle.objects.create(source_hand_id=source_hand_id, **fields)
    except IntegrityError:
        return None


def puzzles_load(*, path: Path = DATA_FILE) -> int:
    """Insert the puzzles of a data file that are not here yet; how many were new."""
    records = json.loads(path.read_text())
    before = Puzzle.objects.count()
    Puzzle.objects.bulk_create(
        [Puzzle(**{name: record[name] for name in _STORED}) for record in records],
        ignore_conflicts=True,
    )
    return Puzzle.objects.count() - before


@dataclass(frozen=True)
class AttemptResult:
    """What an attempt gave: ``move`` and ``correct`` are the first attempt's when the
    user had one (``repeated``); ``rated`` only for the attempt that moved the ratings.
    The shown ratings are None for a visitor."""

    puzzle: Puzzle
    move: dict[str, Any]
    correct: bool
    rated: bool
    repeated: bool
    rating_before: int | None = None
    rating_after: int | None = None


def checked_move(puzzle: Puzzle, data: Any) -> dict[str, Any]:
    """``data`` as a move legal in the puzzle's position, or Refused saying why not."""
    # Whether the seat to move may make a move depends on his own cards and the pile
    # alone, so any deal of the hidden cards answers it.
    state = Knowledge.from_view(puzzle.position).determinise(random.Random(0))
    move, _after = judged_move(state, data)
    return move_to_json(move)


def is_solution(puzzle: Puzzle, move: dict[str, Any]) -> bool:
    """Whether ``move`` is one of the solutions, or the same in effect as one."""
    spades_back = puzzle.position["rules"]["spades_back"]
    key = move_key(move_from_json(move), spades_back)
    return any(move_key(move_from_json(m), spades_back) == key for m in puzzle.solutions)


def puzzle_attempt(
    *, puzzle_id: int, user: User | None, move: Any, now: datetime | None = None
) -> AttemptResult:
    """Answer ``move`` in the puzzle ``puzzle_id``; for a signed-in user, keep his first
    attempt and rate it (his rating and the puzzle's), once.

    Refused (nothing stored): no such puzzle, or the move is malformed or illegal there.
    Takes the row lock of the user's puzzle rating, then the puzzle's.
    """
    puzzle = Puzzle.objects.filter(pk=puzzle_id).first()
    if puzzle is None:
        raise Refused(_("There is no such puzzle."))
    move = checked_move(puzzle, move)
    correct = is_solution(puzzle, move)
    if user is None or not user.is_authenticated:
        return AttemptResult(puzzle, move, correct, rated=False, repeated=False)
    now = now or timezone.now()
    with transaction.atomic():
        rating, _created = PuzzleRating.objects.get_or_create(user=user)
        rating = PuzzleRating.objects.select_for_update().get(pk=rating.pk)
        earlier = PuzzleAttempt.objects.filter(user=user, puzzle=puzzle).first()
        if earlier is not None:
            return _repeated(puzzle, earlier)
        puzzle = Puzzle.objects.select_for_update().get(pk=puzzle.pk)
        (mu, sigma), (puzzle_mu, puzzle_sigma) = rate_attempt(
            (rating.mu, rating.sigma), (puzzle.mu, puzzle.sigma), solved=correct
        )
        before, after = display_rating(rating.mu), display_rating(mu)
        try:
            with transaction.atomic():
                PuzzleAttempt.objects.create(
                    user=user,
                    puzzle=puzzle,
                    move=move,
                    correct=correct,
                    rating_before=before,
                    rating_after=after,
                    created_at=now,
                )
        except IntegrityError:  # the lock makes this unreachable; the constraint stands behind it
            return _repeated(puzzle, PuzzleAttempt.objects.get(user=user, puzzle=puzzle))
        rating.mu, rating.sigma, rating.attempts = mu, sigma, rating.attempts + 1
        rating.save(update_fields=["mu", "sigma", "attempts"])
        puzzle.mu, puzzle.sigma = puzzle_mu, puzzle_sigma
        puzzle.attempts += 1
        puzzle.solved += correct
        puzzle.save(update_fields=["mu", "sigma", "attempts", "solved"])
    return AttemptResult(puzzle, move, correct, True, False, before, after)


def _repeated(puzzle: Puzzle, attempt: PuzzleAttempt) -> AttemptResult:
    return AttemptResult(
        puzzle,
        attempt.move,
        attempt.correct,
        rated=False,
        repeated=True,
        rating_before=attempt.rating_before,
        rating_after=attempt.rating_after,
    )


# One finished hand in this many is analysed for a puzzle (those with a loser left
# holding cards): a hand's analysis and re-check take seconds of the analysis worker's
# one thread, and the players' own analyses wait behind them on the same queue.
PUZZLE_HAND_EVERY = 10
PUZZLE_TASK = "puzzles.make_from_hand"


def hand_qualifies(hand: Hand) -> bool:
    """Whether a finished hand is analysed for a puzzle: it has a loser left holding
    cards (not a tie, a timeout or a cut-off: their decisions did not make the letter),
    and it is one of every :data:`PUZZLE_HAND_EVERY` (by its id: spread over tables)."""
    outcome = hand.outcome or {}
    return (
        outcome.get("loser") is not None
        and outcome.get("reason") == Reason.LAST_PLAYER
        and hand.pk % PUZZLE_HAND_EVERY == 0
    )


def on_hand_finished(*, hand: Hand, **kwargs: Any) -> None:
    """games.signals.hand_finished: queue the puzzle search of a qualifying hand on the
    analysis queue, after the hand's end commits."""
    if hand_qualifies(hand):
        task_on_commit(PUZZLE_TASK, (hand.pk,))


def puzzles_from_hand(*, hand_id: int) -> Puzzle | None:
    """Analyse the loser's decisions in a finished hand and keep the puzzle the finder
    keeps (puzzles.finder), unless the same position is a puzzle already. Runs outside
    any transaction: seconds of work, on the analysis worker."""
    hand = Hand.objects.select_related("match__table").filter(pk=hand_id).first()
    if hand is None or not hand.is_over or (hand.outcome or {}).get("loser") is None:
        return None
    start, moves = hand_record(hand)
    finding = find_puzzle(start, moves, hand.outcome["loser"], seed=f"hand-{hand.pk}")
    if finding.kept is None:
        return None
    return puzzle_save(candidate=finding.kept, source_hand_id=hand.pk)
