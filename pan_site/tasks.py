"""Site-wide tasks: the heartbeat that proves a worker runs countdown tasks."""

from __future__ import annotations

import time

from celery import shared_task
from django.core.cache import cache

HEARTBEAT_TTL = 300


def heartbeat_key(token: str) -> str:
    return f"heartbeat:{token}"


@shared_task(name="pan_site.heartbeat")
def heartbeat(token: str, due: float) -> None:
    """Record when the worker ran this task, next to when it was due (both epoch seconds)."""
    cache.set(heartbeat_key(token), {"due": due, "ran": time.time()}, HEARTBEAT_TTL)
