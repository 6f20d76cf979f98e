"""The Celery app. Tasks are autodiscovered from the apps' ``tasks.py``.

Settings come from Django settings under the ``CELERY_`` prefix. In embedded mode
(no ``REDIS_URL``) the broker is kombu's in-memory transport and the worker runs as
a thread inside the web process (see ``pan_site.embedded``).

Every worker and beat also runs a clock ticker (``games.clock``), so that a timeout
lands while any one of them lives: a worker starts a ticker process at ``worker_ready``
(once per worker, from its main process, after any pool has forked) and stops it at
``worker_shutdown``; beat runs a ticker thread from ``beat_init`` to its exit.
"""

import os
from types import ModuleType

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")

app = Celery("pan_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _clock() -> ModuleType:
    import django
    from django.apps import apps

    if not apps.ready:  # Celery's Django fixup has set it up by now; make sure of it
        django.setup()
    from games import clock

    return clock


@signals.worker_ready.connect
def start_worker_clock_ticker(**kwargs: object) -> None:
    _clock().start_ticker(own_process=True)


@signals.beat_init.connect
def start_beat_clock_ticker(**kwargs: object) -> None:
    _clock().start_ticker()


@signals.worker_shutdown.connect
def stop_clock_tickers(**kwargs: object) -> None:
    _clock().stop_tickers()
