"""Celery tasks of fair play: the check of a finished hand, on the analysis queue
(settings.CELERY_TASK_ROUTES)."""

from __future__ import annotations

from celery import shared_task

from fairplay.services import cases


@shared_task(name=cases.FAIRPLAY_TASK)
def fairplay_hand_task(hand_id: int) -> bool:
    """Judge a finished hand's decisions (``cases.fairplay_hand_check``)."""
    return cases.fairplay_hand_check(hand_id=hand_id) is not None
