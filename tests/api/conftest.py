"""The site as a program of the API meets it: daphne on a free port (with a Celery
worker when the test needs the site's own bots and next hands), on the test database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.processes import (
    celery_worker_args,
    free_port,
    running,
    serve_args,
    site_env,
    wait_for_log,
    wait_for_port,
)


@dataclass(frozen=True)
class Site:
    url: str
    env: dict[str, str]
    logs: Path


def served(tmp_path: Path, *, worker: bool) -> Iterator[Site]:
    port, env = free_port(), site_env(tmp_path)
    server_log, worker_log = tmp_path / "server.log", tmp_path / "worker.log"
    with ExitStack() as processes:
        server = processes.enter_context(running(serve_args(port), env=env, log=server_log))
        if worker:
            celery = processes.enter_context(running(celery_worker_args(), env=env, log=worker_log))
        wait_for_port(port, proc=server, log=server_log)
        if worker:
            wait_for_log(worker_log, "ready.", proc=celery)
        yield Site(url=f"http://127.0.0.1:{port}", env=env, logs=tmp_path)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    """The site with a Celery worker."""
    yield from served(tmp_path, worker=True)


@pytest.fixture
def web_site(tmp_path: Path) -> Iterator[Site]:
    """The site's web process alone: enough for what only a program's requests change."""
    yield from served(tmp_path, worker=False)
