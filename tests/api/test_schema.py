"""The OpenAPI schema tells the truth about the API: schemathesis, with every check it
has, sends what the schema allows and what it forbids to a live daphne and finds no
answer the schema does not document, no valid input refused, no invalid one accepted."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.processes import VENV_BIN, free_port, running, serve_args, site_env, wait_for_port
from tests.api.helpers import token_for
from tests.factories import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

EVENT_STREAM = "/api/stream/event"


@pytest.fixture
def api_url(tmp_path: Path) -> Iterator[str]:
    port, log = free_port(), tmp_path / "server.log"
    with running(serve_args(port), env=site_env(tmp_path), log=log) as server:
        wait_for_port(port, proc=server, log=log)
        yield f"http://127.0.0.1:{port}"


def schemathesis(url: str, token: str, *selection: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [
        str(VENV_BIN / "schemathesis"),
        "run",
        f"{url}/api/openapi.json",
        "--checks",
        "all",
        "--header",
        f"Authorization: Bearer {token}",
        "--max-examples",
        "10",
        "--request-timeout",
        "10",
        "--generation-deterministic",
        "--no-color",
        *selection,
    ]
    # In a directory of the test's own: schemathesis keeps the examples it found there.
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


def test_schemathesis_finds_no_failure_with_all_its_checks(api_url: str, tmp_path: Path):
    player = make_user("fuzzer")
    every_scope = token_for(player, ["board:play", "challenge:read", "challenge:write"])
    # The event stream answers a token it serves with a stream that never ends; it is
    # fuzzed with a token it refuses, as are the game streams once more.
    no_stream = token_for(player, ["challenge:write"], name="no streams")

    most = schemathesis(api_url, every_scope, "--exclude-path", EVENT_STREAM, cwd=tmp_path)
    streams = schemathesis(api_url, no_stream, "--include-path-regex", "/stream/", cwd=tmp_path)

    assert most.returncode == 0, most.stdout[-6000:]
    assert streams.returncode == 0, streams.stdout[-6000:]
    assert "Tested: 18" in most.stdout
    assert "Tested: 3" in streams.stdout
