"""Celery tasks of puzzles, on the analysis queue (settings.CELERY_TASK_ROUTES)."""

from __future__ import annotations

from celery import shared_task

from puzzles import services


@shared_task(name=services.PUZZLE_TASK)
def make_from_hand_task(hand_id: int) -> bool:
    """Look for a puzzle in a finished hand (``services.puzzles_from_hand``)."""
    return services.puzzles_from_hand(hand_id=hand_id) is not None
