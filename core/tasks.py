"""Celery tasks sent by name after a commit, so that whoever schedules one (the events
modules) need not import the module that defines it (which imports the services)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from celery import current_app
from django.db import transaction


def task_on_commit(
    name: str,
    args: tuple[Any, ...],
    *,
    countdown: float | None = None,
    eta: datetime | None = None,
) -> None:
    """Queue the task registered as ``name`` once the transaction commits (a task never
    runs on a state that did not happen)."""
    transaction.on_commit(lambda: task_send(name, args, countdown=countdown, eta=eta))


def task_send(
    name: str,
    args: tuple[Any, ...],
    *,
    countdown: float | None = None,
    eta: datetime | None = None,
) -> None:
    """Queue the task registered as ``name`` now."""
    current_app.send_task(name, args=args, countdown=countdown, eta=eta)
