"""Puzzles cut from finished hands (puzzles.finder), the players' attempts and ratings.

A puzzle is kept as the solver's view of the position (``view_for`` of the seat to
move: his cards, the pile, the counts, the rules, the public history) with its answer:
every move within ``tolerance`` of the best (``solutions``) and the chance of a letter
after each move distinct in effect (``chances``). Only the view's public part and the
solver's own cards are ever shown before an attempt; the answer only after.

Puzzles and players have an OpenSkill rating each (puzzles.ratings). An attempt is one
row per (user, puzzle), a constraint of the database: the first attempt is the one that
is rated, whatever the user does after.

A streak (puzzles of rising difficulty until the first miss) rates nothing: only an
account's best streak is kept.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import RATING_MU, RATING_SIGMA, Hand


class Puzzle(models.Model):
    position = models.JSONField()  # the solver's view_for(seat), legal moves included
    solutions = models.JSONField()  # every legal move (JSON) within tolerance of the best
    chances = models.JSONField()  # [{"move", "loss"}] per move distinct in effect, best first
    wrong = models.JSONField()  # {"move", "loss"}: the move it is set against
    best_loss = models.FloatField()
    tolerance = models.FloatField()
    playouts = models.PositiveIntegerField()  # the re-check's deals per move
    themes = models.JSONField(default=list)
    mu = models.FloatField(default=RATING_MU)
    sigma = models.FloatField(default=RATING_SIGMA)
    attempts = models.PositiveIntegerField(default=0)
    solved = models.PositiveIntegerField(default=0)
    source_hand = models.ForeignKey(
        Hand, null=True, blank=True, on_delete=models.SET_NULL, related_name="puzzles"
    )
    content_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("puzzle")
        verbose_name_plural = _("puzzles")
        indexes = [models.Index(fields=["mu"])]

    def __str__(self) -> str:
        return f"Puzzle {self.pk}"


class PuzzleRating(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_rating"
    )
    mu = models.FloatField(default=RATING_MU)
    sigma = models.FloatField(default=RATING_SIGMA)
    attempts = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.mu:.1f}"


class PuzzleAttempt(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_attempts"
    )
    puzzle = models.ForeignKey(Puzzle, on_delete=models.CASCADE, related_name="tries")
    move = models.JSONField()
    correct = models.BooleanField()
    rating_before = models.IntegerField()  # the shown puzzle rating of the user
    rating_after = models.IntegerField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "puzzle"], name="one_attempt_per_puzzle")
        ]
        indexes = [models.Index(fields=["user", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.puzzle_id}: {'solved' if self.correct else 'missed'}"


class PuzzleStreakBest(models.Model):
    """An account's longest puzzle streak (puzzles solved in a row until the first miss,
    unrated); a visitor's is kept in his session."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="puzzle_streak_best"
    )
    best = models.PositiveIntegerField(default=0)
    reached_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user_id}: {self.best}"
