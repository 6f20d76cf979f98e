"""How late do clock timeouts come on the real stack? (`make bench-clock`)

Starts a real `celery worker`, the correspondence queue's worker and `celery beat`
(PostgreSQL + Redis), each of which runs a clock ticker (``games.clock``); deals hands
whose deadlines are spread over some seconds, nobody moves, and measures for every hand
the lateness: the moment the timeout was applied (``finished_at``) minus the deadline.
Phases:

1. healthy: the workers and beat, with 10,000 correspondence games open and, amid the
   live deadlines, ``--correspondence-due`` (120) correspondence games whose day
   deadlines all fall due at one moment: their timeouts, and then their next hands'
   deals, queued at once (the goal: the live timeouts' p99 at most 20 ms all the same;
   ``--healthy-only``: this phase alone);
2. beat SIGKILLed while the deadlines are pending (the workers' tickers alone);
3. the workers SIGKILLed while they are pending (beat's ticker alone);
4. all SIGKILLed until 1 s after the last deadline, then the main worker comes back and
   catches up (the lateness is the downtime plus the catch-up);
5. the main queue flooded with the moves of tables of ISMCTS bots: worker and beat, then
   the flooded worker alone (beat SIGKILLed), its ticker sharing the CPU with the bots;
6. day-scale: correspondence hands (one day per move) whose turn started, by the time
   passed in to the service, a day before their deadline falls due in the next seconds;
   workers and beat SIGKILLed before it falls due and started again after it.

Before them, the cost of open correspondence games to a ticker: one tick's queries and
milliseconds with none, then with ``--open-correspondence`` (10,000) games whose day
deadlines lie ahead (``--correspondence-only``: only that and phase 6).

Prints p50 / p99 / max of the lateness for every phase, and the tasks pending in the
broker (queued, or held by a worker until their eta) at their most during it, by task and
queue: timers cost nothing there, bot moves and next-hand deals are the only countdowns.
Uses its own database (``pan_bench``), Redis database 3 and queue ``pan-bench`` unless
the environment says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
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


def schedule_deadlines(
    count: int, spread: float, base_seconds: int, *, move_days: int = 0
) -> dict[int, object]:
    """Start ``count`` two-player matches spread over ``spread`` seconds; deadline per hand.
    With ``move_days``, correspondence matches whose turn started (by the time passed in)
    ``move_days`` days less ``base_seconds`` ago: their day deadlines fall due as soon."""
    from django.utils import timezone

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
            move_days=move_days,
        )
        services.table_sit(table_id=table.pk, user=users[2 * i + 1])
        started = timezone.now() - timedelta(days=move_days, seconds=-base_seconds)
        services.match_start(table_id=table.pk, by=users[2 * i], now=started if move_days else None)
        hand = Hand.objects.get(match__table=table)
        deadlines[hand.pk] = hand.deadline
        time.sleep(max(0.0, began + spread * (i + 1) / count - time.monotonic()))
    return deadlines


def correspondence_burst(count: int, due: datetime) -> dict[int, object]:
    """``count`` correspondence games of two players (a day per move) whose day deadlines
    all fall due at ``due``: their turn began, by the time passed in, a day before it.
    Their timeouts come due together, then their next hands' deals (as games started
    together do, or day deadlines that fell due while every process was down)."""
    from accounts.models import User
    from games import services
    from games.engine import Rules
    from games.models import Hand

    stamp = int(time.time() * 1000)
    users = User.objects.bulk_create(
        User(username=f"burst{stamp}_{i}", email=f"u{stamp}_{i}@example.com")
        for i in range(2 * count)
    )
    deadlines: dict[int, object] = {}
    for i in range(count):
        table = services.table_create(
            owner=users[2 * i], name=f"burst {i}", rules=Rules(), seats=2, move_days=1
        )
        services.table_sit(table_id=table.pk, user=users[2 * i + 1])
        services.match_start(table_id=table.pk, by=users[2 * i], now=due - timedelta(days=1))
        hand = Hand.objects.get(match__table=table)
        deadlines[hand.pk] = hand.deadline
    return deadlines


def open_correspondence_games(count: int, *, move_days: int = 3) -> None:
    """``count`` correspondence hands in play, copies of one dealt hand, whose deadlines
    lie spread over the next ``move_days`` days (none due): rows written in bulk, with
    their matches, at one table (the ticker reads only the hands)."""
    import random

    from django.db import connection
    from django.utils import timezone

    from accounts.models import User
    from games import services
    from games.engine import Rules
    from games.models import Hand, Match

    stamp = int(time.time() * 1000)
    owner, other = User.objects.bulk_create(
        User(username=f"corr{stamp}_{i}", email=f"c{stamp}_{i}@example.com") for i in range(2)
    )
    table = services.table_create(
        owner=owner, name="correspondence", rules=Rules(), seats=2, move_days=move_days
    )
    services.table_sit(table_id=table.pk, user=other)
    template = services.match_start(table_id=table.pk, by=owner).hands.get()
    now = timezone.now()
    for first in range(0, count, 2000):
        matches = Match.objects.bulk_create(
            Match(table=table, state=template.match.state) for _ in range(min(2000, count - first))
        )
        hands = []
        for match in matches:
            started = now - timedelta(seconds=random.uniform(0, move_days * 86_400 - 3_600))
            hands.append(
                Hand(
                    match=match,
                    number=1,
                    dealer=template.dealer,
                    seed=template.seed,
                    salt=template.salt,
                    commitment=template.commitment,
                    state=template.state,
                    clock_ms=template.clock_ms,
                    move_ms=template.move_ms,
                    turn_started_at=started,
                    deadline=started + timedelta(days=move_days),
                )
            )
        Hand.objects.bulk_create(hands)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_hand")


def ticker_cost(ticks: int) -> tuple[float, float, float]:
    """Queries per tick, and the median and p99 milliseconds of one tick of a ticker in
    this process, with nothing due."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.clock import ClockTicker

    ticker = ClockTicker()
    ticker.tick()  # the connection is open, the plan cached
    times, queries = [], 0
    for _ in range(ticks):
        with CaptureQueriesContext(connection) as captured:
            began = time.perf_counter()
            ticker.tick()
            times.append((time.perf_counter() - began) * 1000)
        queries += len(captured)
    return queries / ticks, statistics.median(times), percentile(times, 0.99)


def ticker_plan() -> str:
    """How PostgreSQL reads the due hands: the ticker's two queries (the live clocks', ten
    times a second, and the correspondence clocks', once a second), explained."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from games.clock import DAY_BATCH, due_timeouts

    plans = []
    for day in (False, True):
        with CaptureQueriesContext(connection) as captured:
            due_timeouts(timezone.now(), day=day, limit=DAY_BATCH if day else None)
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN " + captured[0]["sql"])
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
    return "\n".join(plans)


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


def broker_messages() -> Iterator[tuple[str, bytes, dict, str]]:
    """This site's messages in the broker: ``("queued", list key, message, queue)`` for
    those waiting in its queues (the main one and the correspondence one), ``("held",
    delivery tag, message, queue)`` for those delivered to a worker that has not
    acknowledged them (a task with an eta is held so until due)."""
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queues = (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_CORRESPONDENCE_QUEUE)
    for queue in queues:
        for key in (queue, *(f"{queue}\x06\x16{step}" for step in (3, 6, 9))):  # priorities
            for raw in client.lrange(key, 0, -1):
                yield "queued", key, json.loads(raw), queue
    for tag, raw in client.hgetall("unacked").items():
        message, _exchange, routing_key = json.loads(raw)
        if routing_key in queues:
            yield "held", tag, message, routing_key


def pending_tasks() -> Counter[str]:
    """The tasks of this site's queues in the broker, queued or held, by name (and
    queue, but the main one's)."""
    from django.conf import settings

    other = settings.CELERY_CORRESPONDENCE_QUEUE
    return Counter(
        message["headers"]["task"] + (" [correspondence queue]" if queue == other else "")
        for _, _, message, queue in broker_messages()
    )


def purge_broker() -> None:
    """Drop what earlier runs left in the bench's queue, and held by workers they killed
    (Redis would give those back only after the visibility timeout, hours later)."""
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    for where, key, _, _ in list(broker_messages()):
        if where == "queued":
            client.delete(key)
        else:
            client.hdel("unacked", key)
            client.zrem("unacked_index", key)


@contextmanager
def watching_pending(every: float = 0.5) -> Iterator[dict[str, int]]:
    """Sample the pending tasks and the live hands during the block; the dict it yields
    holds, afterwards, the most of each task at once and the most live hands."""
    from django.db import connection

    from games.models import Hand

    most: dict[str, int] = {}
    stop = threading.Event()

    def sample() -> None:
        try:
            while not stop.wait(every):
                counts = pending_tasks()
                counts["live hands"] = Hand.objects.filter(outcome__isnull=True).count()
                for name, count in counts.items():
                    most[name] = max(most.get(name, 0), count)
        finally:
            connection.close()

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield most
    finally:
        stop.set()
        thread.join()


def report(label: str, values: list[float], most: dict[str, int]) -> None:
    print(
        f"{label}: n={len(values)} lateness p50 {statistics.median(values):.0f} ms, "
        f"p99 {percentile(values, 0.99):.0f} ms, max {max(values):.0f} ms "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    live = most.pop("live hands", 0)
    # No timeout is a task (the tickers read the deadlines): what waits here is bot moves
    # and next hands, the only countdowns.
    pending = ", ".join(f"{name} {count}" for name, count in sorted(most.items())) or "none"
    print(f"  pending tasks at most: {pending} (live hands {live})")


def day_scale_restart(count: int, kill: Callable, up: Callable, workers: tuple[str, ...]) -> None:
    """Phase 6: day deadlines fall due while workers and beat are down; all come back."""
    from django.utils import timezone

    print(
        f"phase 6: {count} correspondence hands (1 day per move) whose day deadline falls due "
        f"within 5 s; workers and beat SIGKILLed until 1 s after the last, then restarted"
    )
    with watching_pending() as most:
        deadlines = schedule_deadlines(count, 2.0, base_seconds=5, move_days=1)
        kill(*workers, "beat")
        last = max(deadlines.values())
        time.sleep(max(0.0, (last - timezone.now()).total_seconds() + 1.0))
        up(*workers, "beat")
        values = lateness_ms(deadlines, timeout=60)
    report("day deadlines, all down while due, then workers and beat", values, most)
    from games.models import Action

    applied = Action.objects.filter(hand__in=deadlines, move__type="timeout").count()
    print(f"  timeouts applied: {applied} for {len(deadlines)} hands (each exactly once)")


def healthy(options: argparse.Namespace) -> None:
    """Phase 1: the live deadlines, and amid them a burst of correspondence games' day
    deadlines all due at one moment (their next hands queued after them)."""
    from django.utils import timezone

    spread, burst = options.spread, options.correspondence_due
    print(
        f"phase 1: {options.deadlines} deadlines over {spread:.0f} s, all healthy; "
        f"{options.open_correspondence:,} correspondence games open, and {burst} more whose "
        f"day deadlines fall due at one moment amid them"
    )
    with watching_pending() as most:
        # The live deadlines begin 5 s after their first deal: the burst falls due mid-way.
        made = time.monotonic()
        live_start = timezone.now() + timedelta(seconds=max(15.0, 0.1 * burst))
        due = live_start + timedelta(seconds=5 + spread / 2)
        day = correspondence_burst(burst, due) if burst else {}
        late = (timezone.now() - live_start).total_seconds()
        if late > 0:
            print(f"  (the burst took {time.monotonic() - made:.1f} s to make: {late:.1f} s late)")
        time.sleep(max(0.0, (live_start - timezone.now()).total_seconds()))
        deadlines = schedule_deadlines(options.deadlines, spread, base_seconds=5)
        values = lateness_ms(deadlines, timeout=60)
        day_values = lateness_ms(day, timeout=120) if day else []
    report("healthy, live deadlines (workers + beat)", values, most)
    # Each live match deals its next hand (a 5 s clock) 4 s after a timeout: the timeouts a
    # second grow through the phase, and so may the lateness.
    ordered = [late for _, late in sorted(zip(deadlines.values(), values, strict=True))]
    half = len(ordered) // 2
    if half:
        print(
            f"  p99 of the first half of the deadlines {percentile(ordered[:half], 0.99):.0f} ms, "
            f"of the second half {percentile(ordered[half:], 0.99):.0f} ms"
        )
    if day_values:
        from games.models import Action

        applied = Action.objects.filter(hand__in=day, move__type="timeout").count()
        print(
            f"  the {burst} day deadlines due at once: lateness p50 "
            f"{statistics.median(day_values):.0f} ms, max {max(day_values):.0f} ms; "
            f"{applied} timeouts applied for {len(day)} hands"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deadlines", type=int, default=240)
    parser.add_argument("--spread", type=float, default=20.0, help="seconds to start them over")
    parser.add_argument("--killed", type=int, default=60, help="deadlines in the later phases")
    parser.add_argument("--flood", type=int, default=40, help="bot tables in the flood phases")
    parser.add_argument(
        "--open-correspondence", type=int, default=10_000, help="open games for the tick cost"
    )
    parser.add_argument(
        "--correspondence-due",
        type=int,
        default=120,
        help="correspondence games whose day deadlines fall due at once amid phase 1's",
    )
    parser.add_argument(
        "--correspondence-only", action="store_true", help="only the tick cost and phase 6"
    )
    parser.add_argument("--healthy-only", action="store_true", help="only phase 1")
    options = parser.parse_args()

    start_django(fresh=True)
    purge_broker()
    from django.conf import settings
    from django.utils import timezone

    from games.clock import DAY_POLL_INTERVAL, POLL_INTERVAL

    logs = Path(tempfile.mkdtemp(prefix="bench-clock-"))
    celery = [str(Path(sys.executable).parent / "celery"), "-A", "pan_site"]
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    day_queue = settings.CELERY_CORRESPONDENCE_QUEUE
    commands = {
        "worker": [
            *celery, "worker", "--pool=threads", "--concurrency=8", "--loglevel=info",
            f"--queues={queue}", "--hostname=worker@%h", "--without-gossip", "--without-mingle",
        ],
        "correspondence": [
            *celery, "worker", "--pool=threads", "--concurrency=2", "--loglevel=info",
            f"--queues={day_queue}", "--hostname=correspondence@%h", "--without-gossip",
            "--without-mingle",
        ],
        "beat": [*celery, "beat", "--loglevel=info", f"--schedule={logs / 'schedule'}"],
    }  # fmt: skip
    workers = ("worker", "correspondence")  # each with its ticker, as in the Procfile
    ready = {"worker": "ready.", "correspondence": "ready.", "beat": "beat: Starting"}
    running: dict[str, subprocess.Popen] = {}
    starts: Counter[str] = Counter()

    def up(*names: str) -> None:
        for name in names:
            starts[name] += 1
            log = logs / f"{name}-{starts[name]}.log"
            running[name] = start(commands[name], log)
            wait_for(log, ready[name])

    def kill(*names: str, sig: int = signal.SIGKILL) -> None:
        for name in names:
            proc = running.pop(name)
            if proc.poll() is None:
                os.killpg(proc.pid, sig)
                proc.wait(30)

    def killed_while_pending(label: str, victims: tuple[str, ...]) -> None:
        with watching_pending() as most:
            deadlines = schedule_deadlines(options.killed, 2.0, base_seconds=5)
            kill(*victims)
            values = lateness_ms(deadlines, timeout=60)
        report(label, values, most)

    print(
        f"settings: {os.environ['DATABASE_URL'].rsplit('/', 1)[1]}, queue {queue}, one worker "
        f"(threads, concurrency 8), the correspondence queue's (concurrency 2) and beat, "
        f"each with a ticker polling every {POLL_INTERVAL} s (correspondence clocks every "
        f"{DAY_POLL_INTERVAL} s); {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    count = options.open_correspondence
    for label, adding in (("no open games", 0), (f"{count:,} open correspondence games", count)):
        open_correspondence_games(adding)
        queries, median, p99 = ticker_cost(200)
        print(
            f"ticker, {label}: {queries:.0f} query per tick, {median:.2f} ms median, "
            f"{p99:.2f} ms p99 (nothing due)"
        )
    print("  " + ticker_plan().replace("\n", "\n  "))
    try:
        up(*workers, "beat")
        if options.correspondence_only:
            day_scale_restart(options.killed, kill, up, workers)
            return
        healthy(options)
        if options.healthy_only:
            return

        print(f"phase 2: {options.killed} deadlines over 2 s, beat SIGKILLed before them")
        killed_while_pending("beat SIGKILLed, the workers alive", ("beat",))
        up("beat")

        print(f"phase 3: {options.killed} deadlines over 2 s, the workers SIGKILLed before them")
        killed_while_pending("workers SIGKILLed, beat alive", workers)
        up(*workers)

        print(f"phase 4: {options.killed} deadlines over 2 s, workers and beat SIGKILLed")
        with watching_pending() as most:
            deadlines = schedule_deadlines(options.killed, 2.0, base_seconds=5)
            kill(*workers, "beat")
            last = max(deadlines.values())
            time.sleep(max(0.0, (last - timezone.now()).total_seconds() + 1.0))
            up("worker")
            back = timezone.now()
            values = lateness_ms(deadlines, timeout=60)
        report("all down until 1 s after the last deadline, then a worker", values, most)
        pairs = zip(deadlines.values(), values, strict=True)
        done = max(deadline + timedelta(milliseconds=late) for deadline, late in pairs)
        print(f"  the last of them {(done - back).total_seconds():.1f} s after it was ready")
        up("correspondence", "beat")

        if options.flood:
            print(f"phase 5: {options.flood} tables of four ISMCTS bots flood the main queue")
            flood = flood_with_bots(options.flood)
            time.sleep(5.0)  # the bots' backlog builds up
            for label, victims in (("worker + beat", ()), ("the worker alone", ("beat",))):
                kill(*victims)
                with watching_pending() as most:
                    deadlines = schedule_deadlines(options.killed, 10.0, base_seconds=5)
                    values = lateness_ms(deadlines, timeout=90)
                report(f"flood, {label}", values, most)
            stop_flood(flood)
            up("beat")  # "the worker alone" left it down; phase 6 stops both
        day_scale_restart(options.killed, kill, up, workers)
    finally:
        kill(*list(running), sig=signal.SIGTERM)
    print(f"logs: {logs}")


if __name__ == "__main__":
    main()
