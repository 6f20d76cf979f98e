"""Live tables under load on the real stack (`make bench-load`).

Starts the production pieces on this machine with production settings (DEBUG off,
PostgreSQL, Redis): 1 or 2 daphne processes, the Celery main worker (and the clock's
worker where the code still has a clock queue) and beat. Creates N tables of four
signed-in players through the services (no bots), opens one real websocket per player
(all the sockets of table i on daphne i mod D, as the README's proxy routes them; with
``--route seat``, seat p of every table on daphne p mod D), each seat choosing its move as
the site's greedy bot would (``--players random``: any legal form, and hands then run to
the rules' cut-off at 500 actions), plays the tables quickly into long hands
(``--lengthen``: each hand to a version drawn from 20 to 40), then measures: by default
in open loop, a table's next move due 1 to 3 s (2 s on average) after the previous one
was due, whatever the server does (``--pacing closed``: 1 to 3 s after the
turn shows; ``--pacing open,closed`` runs both). For every move it measures the time from
its send until the last of the four seats has the resulting update
(``bench.load_client``), and the daphnes' CPU per move. In the same run a bare baseline
(``bench.baseline_asgi``: a minimal consumer that group_sends over the same channels_redis
layer) is driven the same way. One line per configuration:

    load: pacing=P tables=N daphne=D moves=M p50=.. p95=.. p99=.. max=.. ms
          errors=E (handshake=H closed=C refused=R lost=L stalled=S)
          cpu/move=.. ms baseline_p99=.. ratio=.. baseline_cpu/move=.. ms

then the details: handshakes, CPU shares, the Celery messages waiting in Redis and the
live hands. Also the memory per idle socket (K sockets held on a fresh daphne) and, with
``--storm``, sockets connecting at 50 a second while 125 tables play. Each configuration
is bounded: retries of failed handshakes stop after ``--connect-budget`` s, the play
stops early when no move got through in ``--give-up`` s, and its line is printed anyway.
With ``--proxy nginx`` (or ``none,nginx``: both, one after the other for each number of
tables) the sockets go through nginx in front of the daphnes, as ``make run-prod`` runs
it (``deploy/nginx.py``), which routes each table's sockets by their path; the proxied
line says ``proxy=nginx`` and is followed by its p99 against the direct one's.

``--cold`` measures a restart instead (``cold``): each ``--tables`` count's tables are
played into long hands on a daphne that then stops; a fresh daphne starts, every socket
opens at once and plays at once; one ``cold:`` line gives the handshakes, the failed ones
and why, the time until every table had played a move, the cold and the warm p99 and
CPU per move and the bare consumer's started cold the same way, then the p99 of each
5 s from the first second (``--profile``: py-spy samples the fresh daphne meanwhile).

Uses its own database ``pan_bench_load`` (dropped and created at every run), Redis
database 3, channel prefix and Celery queue ``pan-bench-load``. Every process it starts
is stopped at the end, also on Ctrl-C, SIGTERM or an error. The servers' logs stay in a
temporary folder (printed at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench import ROOT, production_site, start_django, use_services
from bench.load_client import Errors, LoadRun, SeatSpec, latency_summary, quantile
from bench.processes import (
    VENV_BIN,
    base_env,
    celery_beat_args,
    celery_worker_args,
    free_port,
    running,
    wait_for_log,
    wait_for_port,
)
from deploy.nginx import LocalNginx, write_local

production_site("bench-load")
use_services(database="pan_bench_load", queue="pan-bench-load")

BASE_SECONDS = 3600  # nobody runs out of time: the load is the moves, not the clocks
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Server:
    name: str
    port: int
    proc: subprocess.Popen


def parse_options() -> argparse.Namespace:
    def numbers(text: str) -> list[int]:
        return [int(n) for n in text.split(",") if n]

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=numbers, default=[50, 125, 250], help="e.g. 50,125,250")
    parser.add_argument("--daphne", type=numbers, default=[1, 2], help="processes, e.g. 1,2")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured play per config")
    parser.add_argument("--baseline", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--turns",
        type=int,
        default=3,
        help="the site and the bare consumer, both connected, play in this many turns each "
        "of --seconds/turns (0: the bare consumer after the site, each connected alone)",
    )
    parser.add_argument("--idle-sockets", type=int, default=1000, help="0: no idle phase")
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument("--storm", action="store_true", help="sockets connecting during play")
    parser.add_argument("--storm-sockets", type=int, default=1000)
    parser.add_argument("--storm-rate", type=float, default=50.0, help="connections a second")
    parser.add_argument("--storm-tables", type=int, default=125, help="tables playing meanwhile")
    parser.add_argument("--pace", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"))
    parser.add_argument(
        "--pacing",
        type=lambda text: [p for p in text.split(",") if p],
        default=["open"],
        help="open (a schedule: the next move due after the last was due), closed (after "
        "it showed), or open,closed",
    )
    parser.add_argument("--catch-up", type=float, default=4.0, help="open loop: s of backlog")
    parser.add_argument(
        "--players",
        choices=("greedy", "random"),
        default="greedy",
        help="which legal form a seat sends: the greedy bot's choice (hands end as players "
        "end them) or any (hands run to the rules' cut-off)",
    )
    parser.add_argument(
        "--lengthen",
        type=int,
        nargs=2,
        default=(20, 40),
        metavar=("MIN", "MAX"),
        help="play each hand to a version in this range before measuring (0 0: no)",
    )
    parser.add_argument("--lengthen-seconds", type=float, default=120.0, help="at most")
    add_socket_options(parser)
    parser.add_argument(
        "--route",
        choices=("table", "seat"),
        default="table",
        help="with several daphnes: a table's sockets on one (table), or spread (seat)",
    )
    parser.add_argument(
        "--proxy",
        type=lambda text: [p for p in text.split(",") if p],
        default=["none"],
        help="none (sockets straight to the daphnes), nginx (through nginx, routed by the "
        "table's path), or none,nginx",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="only the restart: each --tables count's sockets all open at once on a fresh "
        "daphne and play at once (then the same process warm, and the bare consumer cold)",
    )
    parser.add_argument("--cold-seconds", type=float, default=60.0, help="measured after start")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="with --cold: py-spy samples the fresh daphne's cold period (its stacks in the "
        "logs' folder, the functions that took most of it printed)",
    )
    parser.add_argument("--label", default="", help="printed in the header (e.g. the commit)")
    return parser.parse_args()


def add_socket_options(parser: argparse.ArgumentParser) -> None:
    """The options of the sockets' connecting and of what counts as lost or stalled."""
    parser.add_argument("--move-timeout", type=float, default=15.0, help="s until a move is lost")
    parser.add_argument("--stall-after", type=float, default=20.0, help="s of nothing: stalled")
    parser.add_argument("--give-up", type=float, default=20.0, help="stop if no move in s")
    parser.add_argument("--warmup-timeout", type=float, default=120.0)
    parser.add_argument("--connect-concurrency", type=int, default=32)
    parser.add_argument("--retries", type=int, default=3, help="after a failed handshake")
    parser.add_argument("--connect-budget", type=float, default=90.0, help="s for retries")


# --- processes ---------------------------------------------------------------------------


def raise_open_files() -> None:
    """As many descriptors as allowed, for this process and the servers it starts."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start_workers(stack: ExitStack, logs: Path) -> list[Server]:
    """The Procfile's Celery pieces: the main worker, the clock's worker where the settings
    have a clock queue, and beat."""
    queues, env = our_queues(), base_env()
    pieces = [
        ("worker", [*celery_worker_args(queues=queues[:1], concurrency=8), "-n", "worker@%h"])
    ]
    if len(queues) > 1:
        clock = [*celery_worker_args(queues=queues[1:], concurrency=4), "-n", "clock@%h"]
        pieces.append(("clock", clock))
    servers = []
    for name, args in pieces:
        log = logs / f"{name}.log"
        servers.append(Server(name, 0, stack.enter_context(running(args, env=env, log=log))))
        wait_for_log(log, "ready.", proc=servers[-1].proc, timeout=60)
    beat = celery_beat_args(schedule=logs / "beat-schedule")
    proc = stack.enter_context(running(beat, env=env, log=logs / "beat.log"))
    return [*servers, Server("beat", 0, proc)]


def start_daphnes(
    stack: ExitStack,
    count: int,
    *,
    logs: Path,
    name: str,
    baseline: bool = False,
    ports: list[int] | None = None,
) -> list[Server]:
    """``count`` daphne processes of the site (or of the bare baseline) on free ports (or
    on ``ports``), with the options ``manage.py serve`` gives the site's."""
    from pan_site.management.commands.serve import DAPHNE_OPTIONS

    app = "bench.baseline_asgi:application" if baseline else "pan_site.asgi:application"
    env = base_env(DJANGO_SETTINGS_MODULE="bench.baseline_settings") if baseline else base_env()
    servers = []
    for i in range(count):
        port = ports[i] if ports else free_port()
        log = logs / f"{name}-{i + 1}-{port}.log"
        args = [str(VENV_BIN / "daphne"), *DAPHNE_OPTIONS, "-b", "127.0.0.1", "-p", str(port), app]
        proc = stack.enter_context(running(args, env=env, log=log))
        wait_for_port(port, proc=proc, log=log, timeout=60)
        servers.append(Server(f"{name}{i + 1}", port, proc))
    return servers


def start_nginx(stack: ExitStack, site: list[Server], *, logs: Path) -> LocalNginx:
    """nginx in front of ``site``, as ``make run-prod`` runs it (``deploy/nginx.py``)."""
    name = f"nginx-{len(site)}"
    nginx = write_local(
        logs / name,
        port=free_port(),
        daphnes=[f"127.0.0.1:{server.port}" for server in site],
        static_root=logs,  # nothing static is asked for
    )
    log = logs / f"{name}.log"
    proc = stack.enter_context(running(nginx.command(), env=base_env(), log=log))
    wait_for_port(nginx.port, proc=proc, log=log)
    return nginx


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def machine_busy() -> tuple[float, float, float]:
    """(busy, total, stolen) CPU seconds of the whole machine so far. *Stolen*: time the
    hypervisor gave this machine's cores to other machines while it had work for them;
    on a shared host it slows every process here, the bare consumer's too."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    stolen = values[7] if len(values) > 7 else 0
    return (sum(values) - idle) / CLOCK_TICKS, sum(values) / CLOCK_TICKS, stolen / CLOCK_TICKS


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class CpuMeter:
    """CPU used over a stretch of time, or over several (``pause``, ``resume``): by each
    server, the machine, and this client."""

    def __init__(self, servers: list[Server], *, running: bool = True) -> None:
        self.servers = servers
        self.totals = {s.name: 0.0 for s in servers}
        self.wall = self.client = 0.0
        self.machine = [0.0, 0.0, 0.0]  # busy, total, stolen (``machine_busy``)
        self.running = False
        if running:
            self.resume()

    def _now(self) -> tuple[dict[str, float], float, float, tuple[float, float, float]]:
        cpu = {s.name: cpu_seconds(s.proc.pid) for s in self.servers}
        return cpu, time.monotonic(), time.process_time(), machine_busy()

    def resume(self) -> None:
        self.start = self._now()
        self.running = True

    def pause(self) -> None:
        self.totals, self.wall, self.client, self.machine = self._counted()
        self.running = False

    def _counted(self) -> tuple[dict[str, float], float, float, list[float]]:
        """The totals, with the stretch running now."""
        if not self.running:
            return dict(self.totals), self.wall, self.client, list(self.machine)
        (cpu0, wall0, client0, machine0), (cpu1, wall1, client1, machine1) = (
            self.start,
            self._now(),
        )
        totals = {name: self.totals[name] + cpu1[name] - cpu0[name] for name in self.totals}
        machine = [m + b - a for m, a, b in zip(self.machine, machine0, machine1, strict=True)]
        return totals, self.wall + wall1 - wall0, self.client + client1 - client0, machine

    def shares(self) -> dict[str, float]:
        """Share of one core for each process, of all cores for ``machine`` and
        ``stolen`` (``machine_busy``)."""
        totals, wall, client, (busy, total, stolen) = self._counted()
        wall, total = max(1e-6, wall), max(1e-6, total)
        shares = {name: used / wall for name, used in totals.items()}
        shares["machine"] = busy / total
        shares["stolen"] = stolen / total
        shares["client"] = client / wall
        return shares

    def summary(self) -> str:
        return "cpu " + " ".join(f"{name}={share:.0%}" for name, share in self.shares().items())

    def used(self, servers: list[Server]) -> float:
        """CPU seconds that ``servers`` (among the meter's) used so far."""
        totals = self._counted()[0]
        return sum(totals[s.name] for s in servers)


async def settle(servers: list[Server], *, below: float = 0.2, timeout: float = 15.0) -> None:
    """Wait until the servers are nearly idle (the connects' renders done), at most timeout."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        meter = CpuMeter(servers)
        await asyncio.sleep(1.0)
        shares = meter.shares()
        if sum(v for k, v in shares.items() if k not in ("machine", "stolen", "client")) < below:
            return


# --- data ---------------------------------------------------------------------------------


def seat_tables(
    count: int, *, label: str, max_actions: int | None = None
) -> list[tuple[int, list[str]]]:
    """``count`` tables of four signed-in players (distinct owners: table creation is rate
    limited per owner), each match started; for each, its id and the session cookies of
    seats 0-3 (seat 0 is the owner). ``max_actions``: the hands' cut-off, if not the
    rules' default."""
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.base import VALID_KEY_CHARS
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    from accounts.models import User
    from games import services
    from games.engine import Rules

    stamp = time.time_ns()
    users = User.objects.bulk_create(
        User(username=f"{label}{stamp}_{i}", email=f"{label}{stamp}_{i}@example.com")
        for i in range(4 * count)
    )
    store, expires = SessionStore(), timezone.now() + timedelta(days=1)
    backend = settings.AUTHENTICATION_BACKENDS[0]
    sessions = Session.objects.bulk_create(
        Session(
            session_key=get_random_string(32, VALID_KEY_CHARS),
            session_data=store.encode(
                {
                    SESSION_KEY: str(user.pk),
                    BACKEND_SESSION_KEY: backend,
                    HASH_SESSION_KEY: user.get_session_auth_hash(),
                }
            ),
            expire_date=expires,
        )
        for user in users
    )
    cookies = [f"{settings.SESSION_COOKIE_NAME}={s.session_key}" for s in sessions]
    tables = []
    for t in range(count):
        owner, *guests = users[4 * t : 4 * t + 4]
        table = services.table_create(
            owner=owner,
            name=f"{label} {t}",
            rules=Rules() if max_actions is None else Rules(max_actions=max_actions),
            seats=4,
            base_seconds=BASE_SECONDS,
            increment_seconds=0,
        )
        for guest in guests:
            services.table_sit(table_id=table.pk, user=guest)
        services.match_start(table_id=table.pk, by=owner)
        tables.append((table.pk, cookies[4 * t : 4 * t + 4]))
    return tables


def site_seats(
    tables: list[tuple[int, list[str]]],
    servers: list[Server],
    *,
    route: str = "table",
    via: LocalNginx | None = None,
) -> list[list[SeatSpec]]:
    """Which daphne each socket talks to. ``route="table"``: every socket of a table on
    one process (table i on daphne i mod D), as a proxy that hashes the address routes
    them (README); ``"seat"``: seat p of every table on daphne p mod D, so that every
    table spans the processes (a proxy that spreads sockets round-robin). ``via``: every
    socket to that nginx, which chooses the daphne."""

    def seat(table_id: int, position: int, cookie: str) -> SeatSpec:
        index = table_id if route == "table" else position
        port = via.port if via is not None else servers[index % len(servers)].port
        return SeatSpec(
            f"ws://127.0.0.1:{port}/ws/tables/{table_id}/", f"http://127.0.0.1:{port}", cookie
        )

    return [[seat(tid, p, c) for p, c in enumerate(cookies)] for tid, cookies in tables]


def baseline_seats(
    count: int, servers: list[Server], *, route: str = "table"
) -> list[list[SeatSpec]]:
    """The baseline's sockets, routed as the site's are (``site_seats``)."""
    run = time.time_ns()

    def seat(table: int, position: int) -> SeatSpec:
        port = servers[(table if route == "table" else position) % len(servers)].port
        return SeatSpec(
            f"ws://127.0.0.1:{port}/ws/base/{run}-{table}/{position}/", f"http://127.0.0.1:{port}"
        )

    return [[seat(t, p) for p in range(4)] for t in range(count)]


# --- Redis: the Celery messages waiting, and a clean slate -----------------------------


def our_queues() -> list[str]:
    """The main queue, and the clock's where the settings have one (the code before the
    live-table rework did)."""
    from django.conf import settings

    clock = getattr(settings, "CELERY_CLOCK_QUEUE", None)
    return [settings.CELERY_TASK_DEFAULT_QUEUE, *([clock] if clock else [])]


def redis_client():
    import redis

    return redis.Redis.from_url(os.environ["REDIS_URL"])


def queue_keys(queue: str) -> list[str]:
    """kombu's lists of one queue: the queue itself and its priority steps."""
    return [queue, *(f"{queue}\x06\x16{step}" for step in (3, 6, 9))]


def celery_waiting() -> Counter[tuple[str, str]]:
    """Messages of our queues in Redis by (task, where): waiting in the lists (queued), or
    delivered to a worker and not acknowledged yet (reserved), and of either, those that
    wait for an eta or countdown (timer). Timeouts are no tasks (the clock ticker reads
    the deadlines from the database, ``games.clock``): a timer left here per live hand
    would be a task per move again."""
    client, queues = redis_client(), set(our_queues())
    counts: Counter[tuple[str, str]] = Counter()

    def count(message: dict, where: str) -> None:
        headers = message.get("headers", {})
        task = headers.get("task", "?")
        counts[task, where] += 1
        if headers.get("eta"):
            counts[task, "timer"] += 1

    for queue in queues:
        for key in queue_keys(queue):
            for raw in client.lrange(key, 0, -1):
                count(json.loads(raw), "queued")
    for _tag, raw in client.hscan_iter("unacked"):
        message, _exchange, routing_key = json.loads(raw)
        if routing_key in queues:
            count(message, "reserved")
    return counts


def celery_summary(counts: Counter[tuple[str, str]], hands: int) -> str:
    timers: Counter[str] = Counter()
    where: Counter[str] = Counter()
    tasks: Counter[str] = Counter()
    for (task, kind), n in counts.items():
        if kind == "timer":
            timers[task] += n
        else:
            where[kind] += n
            tasks[task] += n
    total = timers.total()
    return (
        f"celery: waiting tasks={tasks.total()} (queued={where['queued']} "
        f"reserved={where['reserved']}) {dict(tasks.most_common(4)) if tasks else '{}'}; "
        f"timers (eta or countdown)={total} {dict(timers.most_common(4)) if timers else '{}'}; "
        f"live hands={hands}; timers/live hand={total / max(1, hands):.2f}"
    )


def clean_redis() -> None:
    """Forget what an earlier run left under our prefix and queues (never anyone else's)."""
    prefix, queues = os.environ["CHANNELS_PREFIX"], our_queues()
    if not (prefix.startswith("pan-bench-load") and all(q.startswith("pan-bench") for q in queues)):
        return
    client = redis_client()
    for key in client.scan_iter(match=f"{prefix}*", count=1000):
        client.delete(key)
    for queue in queues:
        client.delete(*queue_keys(queue))
    for tag, raw in client.hscan_iter("unacked"):
        if json.loads(raw)[2] in queues:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)


def live_hands(table_ids: list[int] | None = None) -> int:
    from games.models import Hand

    hands = Hand.objects.filter(outcome__isnull=True)
    if table_ids is not None:
        hands = hands.filter(match__table_id__in=table_ids)
    return hands.count()


def tracebacks(logs: Path) -> int:
    return sum(p.read_text(errors="replace").count("Traceback") for p in logs.glob("*.log"))


# --- one configuration -------------------------------------------------------------------


def load_run(
    seats: list[list[SeatSpec]],
    options: argparse.Namespace,
    pacing: str = "open",
    *,
    join_late: bool = False,
) -> LoadRun:
    return LoadRun(
        seats,
        pace=tuple(options.pace),
        pacing=pacing,
        catch_up=options.catch_up,
        players=options.players,
        move_timeout=options.move_timeout,
        stall_after=options.stall_after,
        retries=options.retries,
        join_late=join_late,
    )


@dataclass
class Measured:
    run: LoadRun
    cpu: str  # every server's share of a core while playing
    cpu_per_move_ms: float  # the daphnes' CPU time per measured move
    versions_at_start: list[int]  # the version of each table's hand when the measure began
    crowd: LoadRun | None = None


async def measure(
    seats: list[list[SeatSpec]],
    servers: list[Server],
    daphnes: list[Server],
    options: argparse.Namespace,
    *,
    pacing: str = "open",
    lengthen: bool = True,
    storm: list[list[SeatSpec]] | None = None,
    quiet: list[Server] | None = None,
) -> Measured:
    """Connect, warm up, play the hands long (``lengthen``), wait until ``quiet`` (default:
    ``servers``) are nearly idle, play; returns the run, the CPU of ``servers`` while
    playing and of ``daphnes`` per move, and the storm's run."""
    run = load_run(seats, options, pacing)
    crowd = load_run(storm, options, pacing) if storm else None
    try:
        await run.connect(concurrency=options.connect_concurrency, budget=options.connect_budget)
        await run.warm_up(options.warmup_timeout)
        low, high = options.lengthen
        if lengthen and high > 0:
            await run.lengthen((low, high), pace=(0.05, 0.25), seconds=options.lengthen_seconds)
        versions = run.hand_versions()
        await settle(quiet or servers)
        meter = CpuMeter(servers)
        seconds = options.seconds
        arriving = None
        if crowd is not None:
            arriving = asyncio.create_task(crowd.connect(rate=options.storm_rate))
            seconds = max(seconds, len(crowd.seats) / options.storm_rate + 10)
        await run.play(seconds, give_up=options.give_up)
        cpu = meter.summary()
        per_move = meter.used(daphnes) * 1000 / max(1, len(run.latencies))
        if crowd is not None and arriving is not None:
            await arriving
            await crowd.warm_up(10)
        return Measured(run, cpu, per_move, versions, crowd)
    finally:
        await run.close()
        if crowd is not None:
            await crowd.close()


async def measure_in_turns(
    seats: list[list[SeatSpec]],
    servers: list[Server],
    daphnes: list[Server],
    bare_seats: list[list[SeatSpec]],
    bare: list[Server],
    options: argparse.Namespace,
    *,
    pacing: str = "open",
) -> tuple[Measured, Measured]:
    """``measure`` of the site and of the bare consumer together: both connected, the
    site's hands played long, then each plays ``options.turns`` turns of
    ``options.seconds / options.turns`` in alternation, so that both meet the machine as
    it is within seconds of each other (this shared host's speed changes from one minute
    to the next). The CPU and the window are the sums over each one's turns."""
    run, bare_run = load_run(seats, options, pacing), load_run(bare_seats, options, pacing)
    try:
        for each in (run, bare_run):
            await each.connect(
                concurrency=options.connect_concurrency, budget=options.connect_budget
            )
            await each.warm_up(options.warmup_timeout)
        low, high = options.lengthen
        if high > 0:
            await run.lengthen((low, high), pace=(0.05, 0.25), seconds=options.lengthen_seconds)
        versions = run.hand_versions()
        await settle(servers + bare)
        turns = [(run, CpuMeter(servers, running=False)), (bare_run, CpuMeter(bare, running=False))]
        windows = [0.0, 0.0]
        for _turn in range(options.turns):
            for i, (each, meter) in enumerate(turns):
                meter.resume()
                await each.play(options.seconds / options.turns, give_up=options.give_up)
                meter.pause()
                windows[i] += each.window
        run.window, bare_run.window = windows
        (_, site_meter), (_, bare_meter) = turns
        return (
            Measured(
                run,
                site_meter.summary(),
                site_meter.used(daphnes) * 1000 / max(1, len(run.latencies)),
                versions,
            ),
            Measured(
                bare_run,
                bare_meter.summary(),
                bare_meter.used(bare) * 1000 / max(1, len(bare_run.latencies)),
                [],
            ),
        )
    finally:
        await run.close()
        await bare_run.close()


def describe(run: LoadRun, cpu: str, what: str) -> list[str]:
    rate = len(run.latencies) / run.window if run.window else 0.0
    lines = [
        f"  {what}: sockets={run.connected()}/{len(run.seats)} (tables playing "
        f"{run.playing_tables()}/{len(run.tables)}) {run.handshakes()}, "
        f"connecting {run.connect_seconds:.1f} s, first renders {run.warmup_seconds:.1f} s more, "
        f"window {run.window:.0f} s, "
        f"{rate:.1f} moves/s (sent {run.moves_sent}), new hands {run.new_hands}, "
        f"rematches {run.rematches}, {run.frames} frames "
        f"({run.frame_characters / 1000 / max(1, len(run.latencies)):.1f} k characters per "
        f"move, {run.bytes_per_seat_move():.0f} bytes per seat per move), {cpu}, client loop lag "
        f"p99={quantile(run.loop_lag_ms, 0.99):.0f} max={max(run.loop_lag_ms, default=0):.0f} ms",
    ]
    if run.first_latencies:
        first = latency_summary(run.first_latencies)
        lines.append(f"  {what}: until the first seat has the move: {first} ms")
        lines.append(f"  {what}: p99 of each 5 s of play: {run.p99_by_period()} ms")
    if run.stopped_early:
        lines.append(f"  {what}: stopped early: {run.stopped_early}")
    lines += [f"  {what}: {line}" for line in run.errors.details()]
    return lines


def configuration(
    tables: int,
    site: list[Server],
    baseline: list[Server],
    workers: list[Server],
    options: argparse.Namespace,
    logs: Path,
    *,
    pacing: str = "open",
    storm: int = 0,
    via: LocalNginx | None = None,
) -> float:
    """Measure one configuration and print its lines; returns its p99 (ms)."""
    created = time.monotonic()
    data = seat_tables(tables, label=f"t{tables}d{len(site)}")
    crowd = None
    if storm:
        crowd = site_seats(
            seat_tables(math.ceil(storm / 4), label="storm"), site, route=options.route
        )
    setup = time.monotonic() - created
    errors_before = tracebacks(logs)
    seats = site_seats(data, site, route=options.route, via=via)
    base = base_measured = None
    if baseline and options.turns > 0 and not storm:
        measured, base_measured = asyncio.run(
            measure_in_turns(
                seats,
                site + workers,
                site,
                baseline_seats(tables, baseline, route=options.route),
                baseline,
                options,
                pacing=pacing,
            )
        )
        base = base_measured.run
    else:
        measured = asyncio.run(
            measure(seats, site + workers, site, options, pacing=pacing, storm=crowd, quiet=site)
        )
    run, cpu, arrivals = measured.run, measured.cpu, measured.crowd
    waiting = celery_waiting()
    hands = live_hands([tid for tid, _ in data])
    all_hands = live_hands()
    if baseline and base is None:
        base_measured = asyncio.run(
            measure(
                baseline_seats(tables, baseline, route=options.route),
                baseline,
                baseline,
                options,
                pacing=pacing,
                lengthen=False,  # the bare consumer keeps no hand: nothing grows
                quiet=site + baseline,
            )
        )
        base = base_measured.run
    p99 = quantile(run.latencies, 0.99)
    line = (
        f"load{'(storm)' if storm else ''}: pacing={pacing} tables={tables} "
        f"{'proxy=nginx ' if via is not None else ''}"
        f"daphne={len(site)} moves={len(run.latencies)} {latency_summary(run.latencies)} ms "
        f"{run.errors.summary()} cpu/move={measured.cpu_per_move_ms:.1f} ms"
    )
    if base is not None and base_measured is not None:
        base_p99 = quantile(base.latencies, 0.99)
        ratio = f"{p99 / base_p99:.1f}" if base_p99 else "n/a"
        line += (
            f" baseline_p99={base_p99:.0f} ratio={ratio}"
            f" baseline_cpu/move={base_measured.cpu_per_move_ms:.1f} ms"
        )
    print(line)
    print(f"  setup: {tables} tables in {setup:.1f} s")
    at_start = sorted(measured.versions_at_start)
    if at_start and run.versions:
        print(
            f"  hands: version at the start of the measure p50={quantile(at_start, 0.5):.0f} "
            f"min={at_start[0]} max={at_start[-1]} (lengthened in {run.lengthen_seconds:.0f} s); "
            f"measured moves made at version p50={quantile(run.versions, 0.5):.0f} "
            f"p90={quantile(run.versions, 0.9):.0f}"
        )
    if run.from_due:
        print(f"  site: from when each move was due: {latency_summary(run.from_due)} ms")
    for text in describe(run, cpu, "site"):
        print(text)
    print(f"  {celery_summary(waiting, all_hands)} (this configuration's {hands})")
    if arrivals is not None:
        print(
            f"  storm: sockets={len(arrivals.seats)} rate={options.storm_rate:.0f}/s "
            f"connected={arrivals.connected()} {arrivals.handshakes()} "
            f"{arrivals.errors.summary()}"
        )
        for text in arrivals.errors.details():
            print(f"  storm: {text}")
    if base is not None and base_measured is not None:
        print(
            f"  baseline: moves={len(base.latencies)} {latency_summary(base.latencies)} ms "
            f"{base.errors.summary()}"
        )
        for text in describe(base, base_measured.cpu, "baseline"):
            print(text)
    new_errors = tracebacks(logs) - errors_before
    if new_errors:
        print(f"  server logs: {new_errors} new tracebacks")
    sys.stdout.flush()
    return p99


def idle(options: argparse.Namespace, logs: Path) -> None:
    """Memory per idle socket: K players' sockets held on a fresh daphne."""
    tables = seat_tables(max(1, math.ceil(options.idle_sockets / 4)), label="idle")
    with ExitStack() as stack:
        (server,) = start_daphnes(stack, 1, logs=logs, name="idle")
        seats = site_seats(tables, [server])

        async def hold() -> tuple[int, int, int, LoadRun, LoadRun]:
            first, rest = load_run(seats[:1], options), load_run(seats[1:], options)
            try:
                await first.connect()
                await first.warm_up(30)
                await settle([server])
                before = rss_kb(server.proc.pid)
                await rest.connect(
                    concurrency=options.connect_concurrency, budget=options.connect_budget
                )
                await rest.warm_up(options.warmup_timeout)
                await settle([server])
                connected = rss_kb(server.proc.pid)
                await asyncio.sleep(options.idle_seconds)
                return before, connected, rss_kb(server.proc.pid), first, rest
            finally:
                await rest.close()
                await first.close()

        before, connected, after, first, rest = asyncio.run(hold())
    errors = Errors()
    for run in (first, rest):
        errors.add(run.errors)
    added = max(1, rest.connected())
    print(
        f"idle: sockets={first.connected() + rest.connected()} seconds={options.idle_seconds:.0f} "
        f"closed={errors.closed.total()} rss_per_socket={(after - before) / added:.1f} KB"
    )
    print(
        f"  daphne rss: {before / 1024:.0f} MB with 4 sockets, {connected / 1024:.0f} MB with "
        f"all connected, {after / 1024:.0f} MB after {options.idle_seconds:.0f} s; "
        f"{rest.handshakes()}, connecting {rest.connect_seconds:.1f} s; {errors.summary()}"
    )
    for text in errors.details():
        print(f"  idle: {text}")
    sys.stdout.flush()


# --- a restart: every socket at once on a fresh daphne (--cold) -------------------------


@dataclass
class Restart:
    """What the players met on a fresh process: the first ``--cold-seconds`` after it
    listened, and (``warm``) the same process's next ``--seconds``."""

    run: LoadRun
    cpu: str
    cpu_per_move_ms: float
    latencies: list[float]  # the cold period's moves, until the last seat has each
    by_period: str  # their p99 in each 5 s from the first second
    errors: Errors
    first_move_s: list[float]  # per table: when its first move reached all four seats
    warm: Measured | None = None


def first_moves(run: LoadRun) -> list[float]:
    """For each table that played, seconds from the start of play until its first move
    had reached all four seats."""
    first: dict[int, float] = {}
    for table, pending in run.journal:
        if len(pending.arrived) == len(table.seats):
            done = max(pending.arrived.values()) - run.began
            first[table.index] = min(done, first.get(table.index, math.inf))
    return sorted(first.values())


async def restart(
    seats: list[list[SeatSpec]],
    servers: list[Server],
    daphnes: list[Server],
    options: argparse.Namespace,
    *,
    warm: bool,
) -> Restart:
    """Every socket opens at once, as after a restart, and play starts at once on the
    open-loop schedule (a table plays from when its four sockets are open and shown);
    measured for ``--cold-seconds``; then (``warm``) the same sockets for ``--seconds``."""
    run = load_run(seats, options, join_late=True)
    try:
        meter = CpuMeter(servers)
        connecting = asyncio.create_task(
            run.connect(concurrency=len(run.seats), budget=options.connect_budget)
        )
        await run.play(options.cold_seconds, give_up=options.cold_seconds)
        await connecting
        cpu, used = meter.summary(), meter.used(daphnes)
        cold = Restart(
            run,
            cpu,
            used * 1000 / max(1, len(run.latencies)),
            list(run.latencies),
            run.p99_by_period(),
            run.errors,
            first_moves(run),
        )
        if warm:
            run.forget_measures()
            run.errors = Errors()
            meter = CpuMeter(servers)
            await run.play(options.seconds, give_up=options.give_up)
            cold.warm = Measured(
                run,
                meter.summary(),
                meter.used(daphnes) * 1000 / max(1, len(run.latencies)),
                [],
            )
        return cold
    finally:
        await run.close()


async def lengthened(seats: list[list[SeatSpec]], options: argparse.Namespace) -> None:
    """Play the tables into long hands (``--lengthen``), as the default mode does."""
    run = load_run(seats, options)
    try:
        await run.connect(concurrency=options.connect_concurrency, budget=options.connect_budget)
        await run.warm_up(options.warmup_timeout)
        low, high = options.lengthen
        if high > 0:
            await run.lengthen((low, high), pace=(0.05, 0.25), seconds=options.lengthen_seconds)
    finally:
        await run.close()


@contextmanager
def sampled(server: Server, *, seconds: float, logs: Path, enabled: bool) -> Iterator[Path | None]:
    """py-spy samples ``server`` for ``seconds`` (every thread, on CPU), its collapsed
    stacks written to the logs' folder; nothing when not ``enabled``."""
    if not enabled:
        yield None
        return
    out = logs / f"{server.name}-{server.port}.stacks"
    args = [
        str(VENV_BIN / "py-spy"),
        "record",
        "--pid",
        str(server.proc.pid),
        "--duration",
        str(math.ceil(seconds)),
        "--rate",
        "200",
        "--format",
        "raw",
        "--threads",
        "--nonblocking",
        "--output",
        str(out),
    ]
    with running(args, env=base_env(), log=logs / f"py-spy-{server.name}.log") as proc:
        yield out
        proc.wait(seconds + 30)


def top_frames(stacks: Path, *, count: int = 25) -> list[str]:
    """The functions the sampled process spent most of its time in (inclusive: with what
    they called), from py-spy's collapsed stacks, and the samples per thread."""
    inclusive: Counter[str] = Counter()
    threads: Counter[str] = Counter()
    total = 0
    for line in stacks.read_text(errors="replace").splitlines():
        stack, _, samples = line.rpartition(" ")
        if not samples.isdigit():
            continue
        n = int(samples)
        total += n
        frames = stack.split(";")
        threads[frames[0].split("(")[0].strip()] += n
        for frame in set(frames[1:]):
            inclusive[frame] += n
    lines = [f"{total} samples; by thread: {dict(threads.most_common(6))}"]
    lines += [f"{n / max(1, total):6.1%} {frame}" for frame, n in inclusive.most_common(count)]
    return lines


def all_played(measured: Restart, tables: int) -> float:
    """Seconds until every table had played a move (inf: some never did)."""
    first = measured.first_move_s
    return first[-1] if len(first) == tables else math.inf


def cold_line(what: str, measured: Restart, tables: int) -> list[str]:
    run = measured.run
    first = measured.first_move_s
    every = f"{first[-1]:.1f} s" if len(first) == tables else f"never ({len(first)}/{tables})"
    lines = [
        f"  {what}: {run.handshakes()}; {measured.errors.summary()}; every table had played "
        f"a move after {every} (half of them {quantile(first, 0.5):.1f} s); cold "
        f"moves={len(measured.latencies)} {latency_summary(measured.latencies)} ms "
        f"cpu/move={measured.cpu_per_move_ms:.1f} ms",
        f"  {what}: p99 of each 5 s from the first second: {measured.by_period} ms",
        f"  {what}: {measured.cpu}",
    ]
    lines += [f"  {what}: {text}" for text in measured.errors.details()]
    return lines


def cold(tables: int, workers: list[Server], options: argparse.Namespace, logs: Path) -> None:
    """A restart with ``tables`` tables (``--cold``): the tables are dealt and played into
    long hands on one daphne, which stops; then a fresh daphne starts and every socket
    opens at once and plays at once; the same process warm after ``--cold-seconds``; and
    the bare consumer started cold the same way."""
    created = time.monotonic()
    data = seat_tables(tables, label=f"cold{tables}")
    with ExitStack() as stack:
        (before,) = start_daphnes(stack, 1, logs=logs, name="before-restart")
        asyncio.run(lengthened(site_seats(data, [before]), options))
    setup = time.monotonic() - created
    errors_before = tracebacks(logs)
    with ExitStack() as stack:
        (site,) = start_daphnes(stack, 1, logs=logs, name="fresh")
        with sampled(site, seconds=options.cold_seconds, logs=logs, enabled=options.profile) as out:
            measured = asyncio.run(
                restart(site_seats(data, [site]), [site, *workers], [site], options, warm=True)
            )
    bare = None
    if options.baseline:
        with ExitStack() as stack:
            (server,) = start_daphnes(stack, 1, logs=logs, name="fresh-baseline", baseline=True)
            bare = asyncio.run(
                restart(baseline_seats(tables, [server]), [server], [server], options, warm=False)
            )
    warm = measured.warm
    assert warm is not None
    cold_p99 = quantile(measured.latencies, 0.99)
    warm_p99 = quantile(warm.run.latencies, 0.99)
    line = (
        f"cold: tables={tables} daphne=1 sockets={4 * tables} "
        f"handshake p50={quantile(measured.run.handshake_ms, 0.5):.0f} "
        f"p99={quantile(measured.run.handshake_ms, 0.99):.0f} ms "
        f"failed={measured.errors.handshake.total()} closed={measured.errors.closed.total()} "
        f"all_played={all_played(measured, tables):.1f} s "
        f"cold_p99={cold_p99:.0f} warm_p99={warm_p99:.0f} ms "
        f"cold_cpu/move={measured.cpu_per_move_ms:.1f} warm_cpu/move={warm.cpu_per_move_ms:.1f} ms"
    )
    if bare is not None:
        ratio = measured.cpu_per_move_ms / max(1e-9, bare.cpu_per_move_ms)
        line += (
            f" baseline_cold_p99={quantile(bare.latencies, 0.99):.0f} ms"
            f" baseline_cold_cpu/move={bare.cpu_per_move_ms:.1f} ms cpu_ratio={ratio:.1f}"
        )
    print(line)
    print(f"  setup: {tables} tables dealt and played into long hands in {setup:.1f} s")
    for text in cold_line("site cold", measured, tables):
        print(text)
    print(
        f"  site warm (the same process, the next {options.seconds:.0f} s): "
        f"moves={len(warm.run.latencies)} {latency_summary(warm.run.latencies)} ms "
        f"{warm.run.errors.summary()} cpu/move={warm.cpu_per_move_ms:.1f} ms; "
        f"p99 of each 5 s: {warm.run.p99_by_period()} ms; {warm.cpu}"
    )
    if bare is not None:
        for text in cold_line("baseline cold", bare, tables):
            print(text)
    if out is not None and out.exists():
        print(f"  profile of the fresh daphne's first {options.cold_seconds:.0f} s ({out}):")
        for text in top_frames(out):
            print(f"    {text}")
    new_errors = tracebacks(logs) - errors_before
    if new_errors:
        print(f"  server logs: {new_errors} new tracebacks")
    sys.stdout.flush()


def code_version() -> str:
    """The commit the servers run, and whether the working tree differs from it."""
    git = ["git", "--no-optional-locks", "-C", str(ROOT)]
    try:
        commit = subprocess.run(
            [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        changes = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "code: not a git checkout"
    return f"code {commit}{' with uncommitted changes' if changes else ''}"


def baseline_text(options: argparse.Namespace) -> str:
    if not options.baseline:
        return "no"
    if options.turns > 0:
        return f"yes, in {options.turns} turns each with the site"
    return "yes, after the site"


def header(options: argparse.Namespace) -> str:
    import websockets

    idle_text = (
        f"{options.idle_sockets} sockets x {options.idle_seconds:.0f} s"
        if options.idle_sockets
        else "no"
    )
    storm = (
        f"{options.storm_sockets} at {options.storm_rate:.0f}/s with {options.storm_tables} tables"
        if options.storm
        else "no"
    )
    low, high = options.pace
    if options.cold:
        return (
            f"bench-load --cold: cores={os.cpu_count()} (load average "
            f"{os.getloadavg()[0]:.1f}), tables={','.join(map(str, options.tables))} on one "
            f"fresh daphne, 4 sockets each opening at once, open-loop pace {low:g}-{high:g} s "
            f"per move per table from the start, measured {options.cold_seconds:.0f} s cold "
            f"then {options.seconds:.0f} s warm, hands lengthened to versions "
            f"{options.lengthen[0]}-{options.lengthen[1]} before the restart, players "
            f"{options.players}, baseline={'cold too' if options.baseline else 'no'}, "
            f"profile={'py-spy' if options.profile else 'no'}; python "
            f"{platform.python_version()}, websockets {websockets.__version__}; {code_version()}"
            f"{'; ' + options.label if options.label else ''}"
        )
    return (
        f"bench-load: cores={os.cpu_count()} (load average {os.getloadavg()[0]:.1f}), "
        f"seconds={options.seconds:.0f} per configuration, "
        f"players {options.players}, pacing {','.join(options.pacing)}: "
        f"pace {low:g}-{high:g} s (mean {(low + high) / 2:g} s) per move per table "
        f"(open: after the last was due, catching up at most {options.catch_up:g} s; "
        f"closed: after it showed), hands lengthened to versions "
        f"{options.lengthen[0]}-{options.lengthen[1]} first, "
        f"clock={BASE_SECONDS}+0 s, bots=0, players=4 per table, "
        f"tables={','.join(map(str, options.tables))} "
        f"daphne={','.join(map(str, options.daphne))} route={options.route} "
        f"proxy={','.join(options.proxy)} "
        f"baseline={baseline_text(options)} idle={idle_text} storm={storm}; "
        f"move timeout {options.move_timeout:g} s; python {platform.python_version()}, "
        f"websockets {websockets.__version__}; {code_version()}"
        f"{'; ' + options.label if options.label else ''}"
    )


@contextmanager
def stopped_on_sigterm() -> Iterator[None]:
    """SIGTERM and SIGHUP stop the run like Ctrl-C (asyncio cancels the play, the sockets
    close), so every process it started is stopped on the way out."""

    def interrupt(_signum: int, _frame: object) -> None:
        os.kill(os.getpid(), signal.SIGINT)

    # A shell without job control starts a command sent to the background with SIGINT
    # ignored (and Python then leaves it so): SIGTERM would do nothing.
    signals = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    previous = {sig: signal.getsignal(sig) for sig in signals}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main() -> None:
    options = parse_options()
    if not options.pacing or set(options.pacing) - {"open", "closed"}:
        raise SystemExit("--pacing takes open, closed or open,closed")
    if not options.proxy or set(options.proxy) - {"none", "nginx"}:
        raise SystemExit("--proxy takes none, nginx or none,nginx")
    raise_open_files()
    start_django(fresh=True)
    clean_redis()
    logs = Path(tempfile.mkdtemp(prefix="bench-load-"))
    print(header(options))
    sys.stdout.flush()
    try:
        with stopped_on_sigterm(), ExitStack() as stack:
            workers = start_workers(stack, logs)
            if options.cold:
                for tables in options.tables:
                    cold(tables, workers, options, logs)
                return
            if options.idle_sockets:
                idle(options, logs)
            for count in options.daphne:
                with ExitStack() as servers:
                    site = start_daphnes(servers, count, logs=logs, name="daphne")
                    baseline = []
                    if options.baseline:
                        baseline = start_daphnes(
                            servers, count, logs=logs, name="baseline", baseline=True
                        )
                    nginx = None
                    if "nginx" in options.proxy:
                        nginx = start_nginx(servers, site, logs=logs)
                    for pacing in options.pacing:
                        for tables in options.tables:
                            p99 = {}
                            for proxy in options.proxy:
                                via = nginx if proxy == "nginx" else None
                                p99[proxy] = configuration(
                                    tables, site, [] if via else baseline, workers, options,
                                    logs, pacing=pacing, via=via,
                                )  # fmt: skip
                            if len(p99) == 2:
                                ratio = p99["nginx"] / p99["none"] if p99["none"] else math.nan
                                print(
                                    f"proxy: tables={tables} daphne={count} pacing={pacing} "
                                    f"p99 through nginx {p99['nginx']:.0f} ms, direct "
                                    f"{p99['none']:.0f} ms, ratio {ratio:.2f}"
                                )
            if options.storm:
                with ExitStack() as servers:
                    site = start_daphnes(servers, options.daphne[0], logs=logs, name="storm")
                    configuration(
                        options.storm_tables, site, [], workers, options, logs,
                        pacing=options.pacing[0], storm=options.storm_sockets,
                    )  # fmt: skip
    except KeyboardInterrupt:
        print("interrupted: every process this run started has been stopped")
        raise SystemExit(130) from None
    finally:
        clean_redis()
        print(f"logs: {logs}")


if __name__ == "__main__":
    main()
