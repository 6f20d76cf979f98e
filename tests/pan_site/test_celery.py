"""Countdown tasks run: in embedded mode inside the process, and on a separate worker."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench.processes import (
    ROOT,
    base_env,
    celery_worker_args,
    database_url_for_processes,
    running,
    wait_for_log,
)
from pan_site.management.commands.worker_selftest import run_countdown_selftest


def test_countdown_task_runs_in_embedded_mode_without_redis(tmp_path):
    env = base_env(REDIS_URL=None, DATABASE_URL=None, PAN_VAR_DIR=str(tmp_path), DEBUG="true")
    result = subprocess.run(
        [sys.executable, "manage.py", "worker_selftest", "--countdown", "1.5", "--timeout", "10"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["embedded"] is True
    # It ran when due: not before, and not long after.
    assert report["ran"] >= report["due"]
    assert report["late_ms"] < 2000


@pytest.mark.redis
def test_countdown_task_runs_on_a_separate_celery_worker_process(tmp_path):
    log = tmp_path / "worker.log"
    args = celery_worker_args()
    with running(args, env=base_env(DATABASE_URL=database_url_for_processes()), log=log) as worker:
        wait_for_log(log, "ready.", proc=worker)
        report = run_countdown_selftest(countdown=1.5, timeout=10)
    assert report["ran"] >= report["due"]
    assert "pan_site.heartbeat" in log.read_text()
