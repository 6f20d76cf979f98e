"""The periodic tasks through an outage: one line when the database or the broker cannot
be reached, one when the task runs again, no traceback at every beat; the work is done
at the next beat. On a `celery worker` whose PostgreSQL (a cluster of the test's own)
the test stops and starts again, and in-process for the broker."""

from __future__ import annotations

import logging
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import current_app
from django.conf import settings
from django.db import connection
from kombu.exceptions import OperationalError as BrokerUnreachable

from bench.processes import base_env, celery_worker_args, running, wait_for_log
from core import tasks as core_tasks
from deploy.database import OwnPostgres, ensure_database, server_programs
from social import tasks as social_tasks

# Every task beat sends, by its registered name.
BEAT = sorted({entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()})


def test_every_task_beat_sends_says_an_outage_in_one_line():
    current_app.loader.import_default_modules()  # the apps' tasks modules, as a worker has
    assert sorted(core_tasks.PERIODIC) == BEAT


def test_a_broker_outage_is_one_line_when_it_starts_and_one_when_it_ends(monkeypatch, caplog):
    outage = [BrokerUnreachable("Error 111 connecting to 127.0.0.1:6379.\nConnection refused.")]
    outage *= 3
    calls: list[int] = []

    def expire_due() -> int:
        calls.append(1)
        if outage:
            raise outage.pop()
        return 0

    monkeypatch.setattr(social_tasks.services, "challenge_expire_due", expire_due)
    with caplog.at_level(logging.INFO, logger="core.tasks"):
        results = [social_tasks.expire_challenges() for _ in range(5)]
    assert results == [None, None, None, 0, 0] and len(calls) == 5
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            "periodic task social.expire_challenges did not run, the broker is unreachable "
            "(Error 111 connecting to 127.0.0.1:6379. Connection refused.); it runs at the "
            "next beat",
        ),
        ("INFO", "periodic task social.expire_challenges runs again"),
    ]
    # A fault of ours is no outage: raised, as from any task, with its traceback.
    monkeypatch.setattr(
        social_tasks.services, "challenge_expire_due", lambda: int("a fault of ours")
    )
    with pytest.raises(ValueError):
        social_tasks.expire_challenges()


# --- a worker whose database stops under it ----------------------------------------------------


@contextmanager
def own_database() -> Iterator[OwnPostgres]:
    """A PostgreSQL cluster of the test's own, holding the tables of the test database
    (their definitions: the periodic tasks read them, empty). Its folder is right under
    the temporary folder: the postgres user that runs it (for root) reaches no deeper."""
    folder = Path(tempfile.mkdtemp(prefix="pan-outage-pg-"))
    postgres = OwnPostgres(folder, database="pan_outage")
    postgres.start()
    try:
        ensure_database(postgres.url)
        db = connection.settings_dict
        schema = subprocess.run(
            [str(postgres.bin / "pg_dump"), "--schema-only", "--no-owner", "--no-privileges",
             "-h", db["HOST"] or "127.0.0.1", "-p", str(db["PORT"] or 5432), "-U", db["USER"],
             db["NAME"]],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        subprocess.run(
            ["psql", "-q", "-v", "ON_ERROR_STOP=1", postgres.url],
            input=schema, capture_output=True, text=True, check=True,
        )  # fmt: skip
        yield postgres
    finally:
        postgres.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


def beat(log: Path, worker: subprocess.Popen, queue: str) -> None:
    """Send every task beat sends, as one beat would, and wait until the worker ran them."""
    sent = [current_app.send_task(name, queue=queue).id for name in BEAT]
    for task_id in sent:
        wait_for_log(log, f"[{task_id}] succeeded", proc=worker)


def lines(log: Path, text: str) -> list[str]:
    return [line for line in log.read_text().splitlines() if text in line]


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
@pytest.mark.skipif(server_programs() is None, reason="PostgreSQL's server programs are missing")
def test_a_database_outage_under_the_worker_is_one_line_per_task_each_way(tmp_path):
    queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-outage-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    with own_database() as postgres:
        env = base_env(DATABASE_URL=postgres.url)
        args = celery_worker_args(queues=[queue], concurrency=2)
        with running(args, env=env, log=log) as worker:
            wait_for_log(log, "ready.", proc=worker)
            beat(log, worker, queue)
            postgres.stop("fast")
            for _ in range(3):  # three beats while the database is down
                beat(log, worker, queue)
            postgres.start()
            beat(log, worker, queue)
    for name in BEAT:
        stopped = lines(log, f"periodic task {name} did not run, the database is unreachable")
        again = lines(log, f"periodic task {name} runs again")
        assert (len(stopped), len(again)) == (1, 1), (name, stopped, again)
    # Nor does anything else of the worker's tell of the outage with a traceback (the
    # clock ticker beside it says so in one line too, if it met it).
    assert lines(log, "Traceback") == []
    assert lines(log, "raised unexpected") == []
