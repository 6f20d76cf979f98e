"""Celery tasks of moderation: fair play's check of a finished hand, on the analysis
queue (settings.CELERY_TASK_ROUTES)."""

from __future__ import annotations

from celery import shared_task

from moderation.services import fairplay_cases


@shared_task(name=fairplay_cases.FAIRPLAY_TASK)
def fairplay_hand_task(hand_id: int) -> bool:
    """Judge a finished hand's decisions (``fairplay_cases.fairplay_hand_check``)."""
    return fairplay_cases.fairplay_hand_check(hand_id=hand_id) is not None
