"""A bench run started in the background stops on SIGTERM, as under Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Stands in for a bench's main: inside ``stopped_on_sigterm`` an asyncio run that would
# play for a minute, then what its ``finally`` does once the run is interrupted.
RUN = """
import asyncio, sys
from bench.bench_load import stopped_on_sigterm

async def play():
    print("playing", flush=True)
    await asyncio.sleep(60)

try:
    with stopped_on_sigterm():
        asyncio.run(play())
except KeyboardInterrupt:
    print("stopped", flush=True)
    sys.exit(3)
"""


def test_sigterm_stops_a_run_started_with_sigint_ignored():
    # What a shell without job control does to a command sent to the background.
    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    child = subprocess.Popen(
        [sys.executable, "-c", RUN],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=ignore_sigint,
    )
    try:
        assert child.stdout.readline().strip() == "playing"
        child.send_signal(signal.SIGTERM)
        started = time.monotonic()
        code = child.wait(timeout=30)
    finally:
        child.kill()
    assert code == 3, f"ended with {code} after {time.monotonic() - started:.1f} s"
    assert child.stdout.read().strip() == "stopped"
