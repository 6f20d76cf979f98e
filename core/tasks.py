"""Celery tasks sent by name after a commit, so that whoever schedules one (the events
modules) need not import the module that defines it (which imports the services); and
the periodic tasks' way through an outage."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from celery import Task, current_app, shared_task
from django import db
from django.db import transaction
from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)


def task_on_commit(
    name: str,
    args: tuple[Any, ...],
    *,
    countdown: float | None = None,
    eta: datetime | None = None,
    queue: str | None = None,
) -> None:
    """Queue the task registered as ``name`` once the transaction commits (a task never
    runs on a state that did not happen)."""
    transaction.on_commit(lambda: task_send(name, args, countdown=countdown, eta=eta, queue=queue))


def task_send(
    name: str,
    args: tuple[Any, ...],
    *,
    countdown: float | None = None,
    eta: datetime | None = None,
    queue: str | None = None,
) -> None:
    """Queue the task registered as ``name`` now, on ``queue`` if given (else its route's,
    or the main one)."""
    current_app.send_task(name, args=args, countdown=countdown, eta=eta, queue=queue)


# --- work done again and again: the periodic tasks, the clock ticker -------------------------


def unreachable(error: BaseException) -> str | None:
    """The service ``error`` says cannot be reached ("the database", "the broker": Redis,
    which is also the cache's and the channel layer's), or None: any other error is a
    fault of ours, worth its traceback."""
    if isinstance(error, db.OperationalError | db.InterfaceError):
        return "the database"
    if isinstance(error, KombuOperationalError | RedisConnectionError | RedisTimeoutError):
        return "the broker"
    return None


class Outage:
    """The log of work that runs again and again (a periodic task, the clock ticker): one
    line when it stops because a service cannot be reached, one when it works again,
    nothing for the tries in between (their tracebacks would say nothing the first line
    does not). Another error that stops it is logged with its traceback, once a run of
    failures too. Shared by the threads of a process."""

    def __init__(self, logger: logging.Logger, *, stopped: str, again: str, retry: str) -> None:
        self.logger, self.stopped, self.again, self.retry = logger, stopped, again, retry
        self._failing = False
        self._lock = threading.Lock()

    def failed(self, error: BaseException) -> None:
        with self._lock:
            first, self._failing = not self._failing, True
        if not first:
            return
        service = unreachable(error)
        if service is None:
            self.logger.error("%s; %s", self.stopped, self.retry, exc_info=error)
            return
        reason = " ".join(str(error).split())  # psycopg's messages run over several lines
        self.logger.warning(
            "%s, %s is unreachable (%s); %s", self.stopped, service, reason, self.retry
        )

    def succeeded(self) -> None:
        with self._lock:
            was_failing, self._failing = self._failing, False
        if was_failing:
            self.logger.info("%s", self.again)


# Each periodic task's outage, by its name: beat sends every one of them (a test holds
# CELERY_BEAT_SCHEDULE to this).
PERIODIC: dict[str, Outage] = {}

Result = TypeVar("Result")


def periodic_task(name: str) -> Callable[[Callable[..., Result]], Task]:
    """A task beat sends every few seconds, registered as ``name``. When the database or
    the broker cannot be reached it does nothing and says so in one line, when the
    outage starts and one when it runs again (``Outage``), rather than a traceback at
    every beat: the next beat does its work. Any other error is raised, as from any task."""
    outage = PERIODIC[name] = Outage(
        logger,
        stopped=f"periodic task {name} did not run",
        again=f"periodic task {name} runs again",
        retry="it runs at the next beat",
    )

    def decorate(work: Callable[..., Result]) -> Task:
        @functools.wraps(work)
        def run(*args: Any, **kwargs: Any) -> Result | None:
            try:
                result = work(*args, **kwargs)
            except Exception as error:
                if unreachable(error) is None:
                    raise
                outage.failed(error)
                db.connection.close()  # it may be broken: the next beat opens a fresh one
                return None
            outage.succeeded()
            return result

        return shared_task(name=name)(run)

    return decorate
