"""How late do clock timeouts come on the real stack? (`make bench-clock`)

Schedules at least 200 deadlines across as many tables on a real `celery worker` and
`celery beat` (PostgreSQL + Redis), nobody moves, and measures for every hand the
lateness: the moment the timeout was committed minus the deadline. Then does it again
with the worker killed by SIGKILL while the deadlines are pending and started again
after they have passed, so that the beat sweeper has to catch them.

Then floods the main queue with the moves of tables of ISMCTS bots and measures again
with one worker for both queues, with a worker for both and one for the clock, and with
a worker for each queue (the Procfile's way). Prints p50 / p99 / max of the lateness
for every phase. Uses its own database (``pan_bench``), Redis database 3 and queue
``pan-bench`` unless told otherwise.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import ROOT, start_django, use_services

use_services(database="pan_bench", queue="pan-bench")


def start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        args,
        cwd=ROOT,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_for(log: Path, text: str, timeout: float = 30) -> None:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if text in log.read_text(errors="replace"):
            return
        time.sleep(0.1)
    raise SystemExit(f"{text!r} never appeared in {log}")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def schedule_deadlines(count: int, spread: float, base_seconds: int) -> dict[int, object]:
    """Start ``count`` two-player matches spread over ``spread`` seconds; deadline per hand."""
    from accounts.models import User
    from games import services
    from games.engine import Rules
    from games.models import Hand

    stamp = int(time.time() * 1000)
    users = User.objects.bulk_create(
        User(username=f"bench{stamp}_{i}", email=f"b{stamp}_{i}@example.com")
        for i in range(2 * count)
    )
    deadlines: dict[int, object] = {}
    began = time.monotonic()
    for i in range(count):
        table = services.table_create(
            owner=users[2 * i],
            name=f"bench {i}",
            rules=Rules(),
            seats=2,
            base_seconds=base_seconds,
            increment_seconds=0,
        )
        services.table_sit(table_id=table.pk, user=users[2 * i + 1])
        services.match_start(table_id=table.pk, by=users[2 * i])
        hand = Hand.objects.get(match__table=table)
        deadlines[hand.pk] = hand.deadline
        time.sleep(max(0.0, began + spread * (i + 1) / count - time.monotonic()))
    return deadlines


def flood_with_bots(count: int) -> list[int]:
    """Start ``count`` matches of four ISMCTS bots (the owner stands up once it starts and
    a bot takes his seat): bot moves on the main queue, as fast as the bots think."""
    from accounts.models import User
    from games import services
    from games.engine import Rules

    stamp = int(time.time() * 1000)
    owners = User.objects.bulk_create(
        User(username=f"flood{stamp}_{i}", email=f"f{stamp}_{i}@example.com") for i in range(count)
    )
    matches = []
    for i, owner in enumerate(owners):
        table = services.table_create(
            owner=owner, name=f"flood {i}", rules=Rules(), seats=4, base_seconds=3600
        )
        for position in (1, 2, 3):
            services.table_add_bot(table_id=table.pk, by=owner, position=position, level="ismcts")
        matches.append(services.match_start(table_id=table.pk, by=owner).pk)
        services.table_leave(table_id=table.pk, user=owner)
    return matches


def stop_flood(matches: list[int]) -> None:
    from games import services

    for match_id in matches:
        services.match_set_annulled(match_id=match_id)


def lateness_ms(deadlines: dict[int, object], timeout: float) -> list[float]:
    from games.models import Hand

    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        done = Hand.objects.filter(pk__in=deadlines, outcome__isnull=False).count()
        if done == len(deadlines):
            break
        time.sleep(0.25)
    finished = dict(Hand.objects.filter(pk__in=deadlines).values_list("pk", "finished_at"))
    missing = [pk for pk, at in finished.items() if at is None]
    if missing:
        raise SystemExit(f"{len(missing)} hands never timed out")
    return [(finished[pk] - deadline).total_seconds() * 1000 for pk, deadline in deadlines.items()]


def report(label: str, values: list[float]) -> None:
    print(
        f"{label}: n={len(values)} lateness p50 {statistics.median(values):.0f} ms, "
        f"p99 {percentile(values, 0.99):.0f} ms, max {max(values):.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deadlines", type=int, default=240)
    parser.add_argument("--spread", type=float, default=20.0, help="seconds to start them over")
    parser.add_argument("--killed", type=int, default=60, help="deadlines in the SIGKILL phase")
    parser.add_argument("--flood", type=int, default=40, help="bot tables in the flood phases")
    options = parser.parse_args()

    start_django(fresh=True)
    from django.conf import settings
    from django.utils import timezone

    logs = Path(tempfile.mkdtemp(prefix="bench-clock-"))
    celery = [str(Path(sys.executable).parent / "celery"), "-A", "pan_site"]
    main, clock = settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_CLOCK_QUEUE

    def worker_args(name: str, queues: str, concurrency: int = 8) -> list[str]:
        return [
            *celery, "worker", "--pool=threads", f"--concurrency={concurrency}",
            "--loglevel=info", f"--queues={queues}", f"--hostname={name}@%h",
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip

    def stop(*procs: subprocess.Popen) -> None:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(30)

    both = worker_args("worker", f"{main},{clock}")
    beat = start([*celery, "beat", f"--schedule={logs / 'schedule'}"], logs / "beat.log")
    worker = start(both, logs / "worker.log")
    extra: list[subprocess.Popen] = []
    try:
        wait_for(logs / "worker.log", "ready.")
        print(f"phase 1: {options.deadlines} deadlines over {options.spread:.0f} s, worker healthy")
        deadlines = schedule_deadlines(options.deadlines, options.spread, base_seconds=5)
        report("healthy", lateness_ms(deadlines, timeout=60))

        print(f"phase 2: {options.killed} deadlines, worker SIGKILLed while they are pending")
        deadlines = schedule_deadlines(options.killed, 2.0, base_seconds=5)
        time.sleep(1.0)  # the worker has received the timeout tasks and holds them
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        last = max(deadlines.values())
        time.sleep(max(0.0, (last - timezone.now()).total_seconds() + 1.0))
        worker = start(both, logs / "worker-2.log")
        wait_for(logs / "worker-2.log", "ready.")
        report("after SIGKILL", lateness_ms(deadlines, timeout=60))
        print("  (the worker was down until 1 s after the last deadline)")

        if options.flood:
            print(f"phase 3: {options.flood} tables of four ISMCTS bots flood the main queue")
            flood = flood_with_bots(options.flood)
            setups = [
                ("one worker for both queues", [("worker-3", both)]),
                (
                    "a worker for both queues, one for the clock",
                    [("worker-4", both), ("clock-4", worker_args("clock", clock, 4))],
                ),
                (
                    "a worker for the main queue, one for the clock",
                    [
                        ("worker-5", worker_args("worker", main)),
                        ("clock-5", worker_args("clock", clock, 4)),
                    ],
                ),
            ]
            for label, workers in setups:
                stop(worker, *extra)
                started = [start(args, logs / f"{name}.log") for name, args in workers]
                worker, extra = started[0], started[1:]
                for name, _ in workers:
                    wait_for(logs / f"{name}.log", "ready.")
                time.sleep(5.0)  # the bots' backlog builds up again
                deadlines = schedule_deadlines(options.killed, 10.0, base_seconds=5)
                report(f"flood, {label}", lateness_ms(deadlines, timeout=90))
            stop_flood(flood)
    finally:
        stop(worker, *extra, beat)
    print(f"logs: {logs}")


if __name__ == "__main__":
    main()
