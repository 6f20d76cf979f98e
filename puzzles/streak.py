"""Puzzle Streak, as lichess's: puzzles of rising difficulty one after another, solved
until the first miss. A streak rates nothing (no attempt is stored, no rating moves);
an account keeps its best streak (``PuzzleStreakBest``), a visitor his in the session.

A run is small plain data (:class:`StreakRun`) that the view keeps in the session, so a
run is the browser's own: its puzzles in the order they are served, how many are solved
and, once it is over, the move that missed. An answer to a puzzle that is not the run's
current one (a form sent twice, an old tab) changes nothing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from puzzles.models import Puzzle, PuzzleStreakBest
from puzzles.services import checked_move, is_solution

__all__ = [
    "STREAK_BAND",
    "STREAK_LENGTH",
    "StreakRun",
    "streak_answer",
    "streak_best",
    "streak_best_record",
    "streak_start",
]

# The most puzzles a run serves: drawn across the whole range of ratings when there are more.
STREAK_LENGTH = 200
# Puzzles of neighbouring ratings served in a random order: the difficulty rises from one
# band to the next, and two runs do not begin alike.
STREAK_BAND = 5


@dataclass(frozen=True)
class StreakRun:
    puzzles: tuple[int, ...]  # the run's puzzle ids, in the order they are served
    solved: int = 0  # solved in a row; puzzles[solved] is the one to solve next
    missed: dict[str, Any] | None = None  # {"puzzle": id, "move": move} that ended the run
    last_solved: int | None = None  # the puzzle solved by the last answer

    @property
    def over(self) -> bool:
        return self.missed is not None or self.solved >= len(self.puzzles)

    @property
    def current(self) -> int | None:
        """The puzzle to solve now, None once the run is over."""
        return None if self.over else self.puzzles[self.solved]

    def to_session(self) -> dict[str, Any]:
        return {
            "puzzles": list(self.puzzles),
            "solved": self.solved,
            "missed": self.missed,
            "last_solved": self.last_solved,
        }

    @classmethod
    def from_session(cls, data: Any) -> StreakRun | None:
        """The run a session kept, None if it kept none (or nothing readable)."""
        try:
            return cls(
                tuple(int(p) for p in data["puzzles"]),
                int(data["solved"]),
                data["missed"],
                data["last_solved"],
            )
        except (KeyError, TypeError, ValueError):
            return None


def streak_start(*, rng: random.Random) -> StreakRun:
    """A new run: every puzzle (at most :data:`STREAK_LENGTH`, drawn evenly across the
    ratings) from the lowest puzzle rating to the highest, shuffled within bands of
    :data:`STREAK_BAND`."""
    ids = list(Puzzle.objects.order_by("mu", "pk").values_list("pk", flat=True))
    if len(ids) > STREAK_LENGTH:
        ids = [ids[i] for i in sorted(rng.sample(range(len(ids)), STREAK_LENGTH))]
    served: list[int] = []
    for start in range(0, len(ids), STREAK_BAND):
        band = ids[start : start + STREAK_BAND]
        rng.shuffle(band)
        served.extend(band)
    return StreakRun(tuple(served))


def streak_answer(
    *, run: StreakRun, puzzle_id: int, move: Any, user: User | None, now: datetime | None = None
) -> StreakRun:
    """The run after ``move`` in its current puzzle: one more solved, or over at a miss.
    Ratings never move. When the run ends an account's best streak is recorded.

    An answer to another puzzle than the current one returns the run unchanged. Refused
    (nothing changes): the move is malformed or illegal in the position.
    """
    if puzzle_id != run.current:
        return run
    puzzle = Puzzle.objects.filter(pk=puzzle_id).first()
    if puzzle is None:
        raise Refused(_("There is no such puzzle."))
    move = checked_move(puzzle, move)
    if is_solution(puzzle, move):
        after = replace(run, solved=run.solved + 1, last_solved=puzzle_id)
    else:
        after = replace(run, missed={"puzzle": puzzle_id, "move": move}, last_solved=None)
    if after.over and user is not None and user.is_authenticated:
        streak_best_record(user=user, streak=after.solved, now=now or timezone.now())
    return after


def streak_best_record(*, user: User, streak: int, now: datetime) -> None:
    """Keep ``streak`` as the user's best streak if it beats the one kept. Two runs that
    end at once both count: the row is made first, then raised only where lower."""
    PuzzleStreakBest.objects.bulk_create(
        [PuzzleStreakBest(user=user, best=0, reached_at=now)], ignore_conflicts=True
    )
    PuzzleStreakBest.objects.filter(user=user, best__lt=streak).update(best=streak, reached_at=now)


def streak_best(user: User | None) -> int:
    """The account's best streak (0 before its first run ends); 0 for a visitor."""
    if user is None or not user.is_authenticated:
        return 0
    return PuzzleStreakBest.objects.filter(user=user).values_list("best", flat=True).first() or 0
