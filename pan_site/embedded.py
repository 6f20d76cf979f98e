"""The embedded Celery workers, beat and clock ticker: threads inside the web process.

Used when no ``REDIS_URL`` is set, so that ``make run`` has working clocks, bots and
periodic sweeps on a machine with nothing installed. The broker is kombu's in-memory
transport, which exists only inside this process: tasks are sent and consumed here.
The clock ticker (``games.clock``) applies the timeouts, as it does in every worker.
As with the Procfile, hands' analyses have a worker of their own on their own queue,
with fewer threads, so that they never hold up the main queue's bots and clocks, and so
have correspondence games' next hands and bots.
"""

from __future__ import annotations

import logging
import threading

from celery import beat
from celery.worker import WorkController
from django.conf import settings

from games import clock
from pan_site.celery import app

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_started: WorkController | None = None


class _EmbeddedWorkController(WorkController):
    """A worker that tells the starter when its consumer is ready."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.ready = threading.Event()
        super().__init__(*args, **kwargs)

    def on_consumer_ready(self, consumer: object) -> None:
        self.ready.set()


# Threads of the embedded analysis and correspondence workers: the Procfile's have as many.
ANALYSIS_CONCURRENCY = 1
CORRESPONDENCE_CONCURRENCY = 2


def _worker(name: str, queue: str, concurrency: int, timeout: float) -> WorkController:
    """A worker thread consuming ``queue``, once its consumer is ready."""
    worker = _EmbeddedWorkController(
        app=app,
        hostname=f"{name}@{threading.get_native_id()}",
        pool="threads",
        concurrency=concurrency,
        queues=[queue],
        loglevel="WARNING",
        without_heartbeat=True,
        without_mingle=True,
        without_gossip=True,
    )
    threading.Thread(target=worker.start, name=f"celery-{name}", daemon=True).start()
    if not worker.ready.wait(timeout):
        raise RuntimeError(f"The embedded Celery worker ({name}) did not start.")
    return worker


def start_embedded_worker(*, concurrency: int = 4, timeout: float = 15.0) -> WorkController:
    """Start (once per process) the Celery worker threads (the main queue's with
    ``concurrency`` threads, the analysis queue's with ``ANALYSIS_CONCURRENCY``, the
    correspondence queue's with ``CORRESPONDENCE_CONCURRENCY``), a beat thread and the
    clock ticker.

    Returns the main queue's worker. Refuses to run against a real broker, where the
    separate ``celery worker`` and ``celery beat`` processes do this job.
    """
    global _started
    if not settings.EMBEDDED:
        raise RuntimeError("The embedded worker is for embedded mode only (REDIS_URL is set).")
    with _lock:
        if _started is not None:
            return _started
        app.finalize()
        app.set_current()
        app.set_default()
        worker = _worker("embedded", settings.CELERY_TASK_DEFAULT_QUEUE, concurrency, timeout)
        _worker("analysis", settings.CELERY_ANALYSIS_QUEUE, ANALYSIS_CONCURRENCY, timeout)
        _worker(
            "correspondence",
            settings.CELERY_CORRESPONDENCE_QUEUE,
            CORRESPONDENCE_CONCURRENCY,
            timeout,
        )
        beat_schedule_file = settings.VAR_DIR / "celerybeat-schedule"
        beat.EmbeddedService(app, thread=True, schedule_filename=str(beat_schedule_file)).start()
        clock.start_ticker()  # beat_init would start it too, but later, from beat's thread
        logger.info("Embedded Celery workers, beat and clock ticker started (in-memory broker).")
        _started = worker
        return worker
