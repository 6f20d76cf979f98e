"""Prove that a Celery worker runs countdown tasks: send one and wait for it to run.

In embedded mode the worker is started inside this process first; with Redis the
task must be run by a separate ``celery worker`` process sharing the cache.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.core.management.base import BaseCommand, CommandError, CommandParser

from pan_site.embedded import start_embedded_worker
from pan_site.tasks import heartbeat, heartbeat_key


def run_countdown_selftest(*, countdown: float, timeout: float) -> dict[str, float]:
    """Schedule a heartbeat ``countdown`` seconds ahead and wait up to ``timeout`` for it.

    Returns the due and run times (epoch seconds) and the lateness in ms; raises
    TimeoutError if no worker ran it.
    """
    token = uuid.uuid4().hex
    due = time.time() + countdown
    heartbeat.apply_async(args=[token, due], countdown=countdown)
    give_up = time.monotonic() + countdown + timeout
    while time.monotonic() < give_up:
        record = cache.get(heartbeat_key(token))
        if record:
            return {**record, "late_ms": round((record["ran"] - record["due"]) * 1000, 1)}
        time.sleep(0.05)
    raise TimeoutError(f"no worker ran the countdown task within {countdown + timeout:.1f} s")


class Command(BaseCommand):
    help = "Send a countdown task to the Celery worker and report when it ran."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--countdown", type=float, default=1.0)
        parser.add_argument("--timeout", type=float, default=10.0)

    def handle(self, *args: Any, countdown: float, timeout: float, **options: Any) -> None:
        if settings.EMBEDDED:
            start_embedded_worker()
        try:
            result = run_countdown_selftest(countdown=countdown, timeout=timeout)
        except TimeoutError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps({"embedded": settings.EMBEDDED, **result}))
