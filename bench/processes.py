"""Start and stop real processes (celery worker, daphne) for the benchmarks and the
integration tests (tests may import bench; bench never imports tests)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def base_env(**overrides: str | None) -> dict[str, str]:
    """The current environment with overrides; a value of None removes the variable."""
    env = dict(os.environ)
    env.setdefault("HTTPS", "false")
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


@contextmanager
def running(
    args: list[str], *, env: dict[str, str], log: Path, cwd: Path = ROOT
) -> Iterator[subprocess.Popen]:
    """Run a process (in ``cwd``, by default the repository) for the duration of the
    block; end it (and only it) afterwards."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            yield proc
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(5)


def wait_for_log(log: Path, text: str, *, proc: subprocess.Popen, timeout: float = 30) -> None:
    """Wait until ``text`` appears in the process log; fail with the log if it dies or stalls."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not seen; log:\n{log.read_text(errors='replace')[-4000:]}")


def wait_until(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    """Wait until ``condition()`` holds (what a process does, seen from outside); fail
    saying ``what`` did not happen within ``timeout`` seconds."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {timeout} s: {what}")


def wait_for_port(port: int, *, proc: subprocess.Popen, log: Path, timeout: float = 30) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if proc.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(
        f"nothing listens on {port}; log:\n{log.read_text(errors='replace')[-4000:]}"
    )


def celery_worker_args(*, queues: Sequence[str] | None = None, concurrency: int = 4) -> list[str]:
    """A ``celery worker`` on ``queues``: by default all of the settings' queues, the main
    one (``CELERY_QUEUE``), the analysis one and the correspondence one, so that one
    worker runs every task."""
    from django.conf import settings

    if queues is None:
        queues = [
            settings.CELERY_TASK_DEFAULT_QUEUE,
            settings.CELERY_ANALYSIS_QUEUE,
            settings.CELERY_CORRESPONDENCE_QUEUE,
        ]
    return [
        str(VENV_BIN / "celery"),
        "-A",
        "pan_site",
        "worker",
        "--pool=threads",
        f"--concurrency={concurrency}",
        "--loglevel=info",
        f"--queues={','.join(queues)}",
        "--without-gossip",
        "--without-mingle",
    ]


def celery_beat_args(*, schedule: Path) -> list[str]:
    return [
        str(VENV_BIN / "celery"),
        "-A",
        "pan_site",
        "beat",
        "--loglevel=info",
        f"--schedule={schedule}",
    ]


def database_url_for_processes() -> str:
    """The URL of the database pytest-django created, for server and worker processes."""
    from django.db import connection

    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def site_env(var_dir: Path, **overrides: str | None) -> dict[str, str]:
    """The environment of a site process on the test database, its files under
    ``var_dir``, signing with the tests' SECRET_KEY (so the sessions a test makes hold)."""
    from django.conf import settings

    return base_env(
        DATABASE_URL=database_url_for_processes(),
        DEBUG="false",
        HTTPS="false",
        PAN_VAR_DIR=str(var_dir),
        SECRET_KEY=settings.SECRET_KEY,
        **overrides,
    )


def serve_args(port: int) -> list[str]:
    """The site's web process (daphne through ``manage.py serve``) on ``port``."""
    return [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]


def kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to the process group of a process this test started."""
    os.killpg(proc.pid, sig)
    proc.wait(10)
