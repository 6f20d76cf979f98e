"""Faults under play, through nginx on two daphnes (`make bench-faults`).

Each scenario starts the production shape afresh (nginx as ``make run-prod`` runs it,
``deploy/nginx.py``; two daphnes; the Celery worker and beat), creates N tables of four
signed-in players whose sockets go through nginx and reconnect as the page
does (``bench.load_client`` with ``reconnect``), and ten two-player tables on short
clocks whose first deadlines fall during the fault, nobody moving at them. After
``--before`` s of play, one fault:

* ``daphne``: kill -9 the first daphne; start it again ``--daphne-down`` s later;
* ``redis``: stop Redis (SIGTERM), start it again ``--redis-down`` s later (it keeps no
  data: what waited in it is gone); a lobby socket, and a table created every second
  from then on, show when the lobby updates again;
* ``postgres``: stop PostgreSQL (``pg_ctl stop -m fast``), start it again
  ``--postgres-down`` s later;
* ``restart``: SIGTERM the first daphne, as systemd stops it (it stops listening,
  closes its sockets with 1012, and exits: ``pan_site.server``); start it again
  ``RESTART_SEC`` after it exited, as systemd's ``Restart=always`` does;
* ``deploy``: a rolling deploy: restart the first daphne so, wait until it listens, then
  the second.

The daphnes are the site's web processes as systemd runs them (``manage.py serve``).
``restart`` and ``deploy`` default to 250 tables and 120 s after the fault, the others
to 50 tables and 30 s.

Play goes on for ``--after`` s after the fault ends. Then, for the scenario:

* sockets: how many the fault dropped, and when each was open and shown the table again
  (from the fault), through which daphne;
* moves: sent, acknowledged (the sender was shown the table after it), applied (the
  hands' versions in the database), *lost* (acknowledged but not in the database),
  *applied without a send* (a version with no move sent at it: applied twice, or
  by something else), given up after a reconnect (shown not applied: played again),
  the refusals' texts, and *half-applied* hands (a hand whose log rows differ from its
  state's history);
* play: how long after the fault began every table had a move reach all four seats;
* for ``restart`` and ``deploy``: the handshakes that failed after the fault began, the
  p99 of every 5 s from the fault for two minutes against the p99 before it, and the
  goals (0 lost, 0 applied twice, every table playing within 10 s of each SIGTERM that
  dropped its sockets, p99 back within 5x of before the fault within 30 s) met or not;
* clocks: of the timeouts due during the fault, how many landed and how late.

Every service it breaks is its own: a Redis on a free port and a PostgreSQL cluster
initialised into a temporary folder (as the ``postgres`` user when run by root), on a
free port; the machine's Redis and PostgreSQL are never touched. The database is
``pan_bench_faults`` in that cluster. Every process it starts is stopped at the end, also
on Ctrl-C. The logs stay in a temporary folder (printed at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench import production_site, start_django, use_services

production_site("bench-faults")
use_services(database="pan_bench_faults", queue="pan-bench-faults")

from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidHandshake  # noqa: E402

from bench.bench_clock import schedule_deadlines  # noqa: E402
from bench.bench_load import (  # noqa: E402
    Server,
    code_version,
    machine_busy,
    raise_open_files,
    seat_tables,
    site_seats,
    start_nginx,
    start_workers,
    stopped_on_sigterm,
    tracebacks,
)
from bench.load_client import PING, LoadRun, Pending, Reconnect, SeatSpec, quantile  # noqa: E402
from bench.processes import base_env, free_port, running, serve_args, wait_for_port  # noqa: E402
from deploy.database import OwnPostgres  # noqa: E402
from deploy.nginx import LocalNginx  # noqa: E402

SCENARIOS = ("daphne", "redis", "postgres", "restart", "deploy")
RESTARTS = ("restart", "deploy")  # the daphnes stopped as systemd stops them
RESTART_SEC = 1.0  # deploy/systemd/pan-daphne@.service
STOP_TIMEOUT = 35.0  # its TimeoutStopSec
# What a restart must not do (printed next to the figures).
GOAL_PLAYING_WITHIN = 10.0  # s from the fault until every table plays again
GOAL_P99_FACTOR, GOAL_P99_WITHIN = 5.0, 30.0  # p99 back within 5x of before, within 30 s
WINDOW, WINDOWS_SPAN = 5.0, 120.0
# After a restart the tables spread over the daphnes again: SPREAD_AT s after the fault
# each daphne holds within GOAL_EVEN of an even share of the open sockets.
SPREAD_AT, GOAL_EVEN = 60.0, 0.2
DATABASE = "pan_bench_faults"


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenarios",
        type=lambda text: [s for s in text.split(",") if s],
        default=list(SCENARIOS),
        help=f"some of {','.join(SCENARIOS)}, run in that order",
    )
    parser.add_argument(
        "--tables",
        type=int,
        default=None,
        help="tables of four players (default: 250 for restart and deploy, else 50)",
    )
    parser.add_argument("--clock-tables", type=int, default=10, help="timeouts due in the fault")
    parser.add_argument("--before", type=float, default=10.0, help="s of play before the fault")
    parser.add_argument(
        "--after",
        type=float,
        default=None,
        help="s of play after the fault ends (default: 120 for restart and deploy, else 30)",
    )
    parser.add_argument("--daphne-down", type=float, default=5.0, help="s until the restart")
    parser.add_argument("--redis-down", type=float, default=3.0)
    parser.add_argument("--postgres-down", type=float, default=10.0)
    parser.add_argument("--pace", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"))
    parser.add_argument("--move-timeout", type=float, default=15.0, help="s until a move is lost")
    parser.add_argument("--stall-after", type=float, default=20.0, help="s of nothing: resync")
    options = parser.parse_args()
    if not options.scenarios or set(options.scenarios) - set(SCENARIOS):
        parser.error(f"--scenarios takes some of {','.join(SCENARIOS)}")
    if options.before < 2:
        parser.error("--before must leave at least 2 s to create the clock tables")
    return options


# --- the services it breaks: its own ---------------------------------------------------------


class OwnRedis:
    """A Redis on a free port of this machine, keeping nothing on disk, that this bench may
    stop and start again."""

    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server") or "/usr/sbin/redis-server"
        if not os.access(binary, os.X_OK):
            raise SystemExit("bench-faults: redis-server is not installed")
        self.port, self.folder, self.binary = free_port(), folder, binary
        self.proc: subprocess.Popen | None = None
        self.log = folder / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_for_port(self.port, proc=self.proc, log=self.log)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@contextmanager
def own_services(logs: Path) -> Iterator[tuple[OwnRedis, OwnPostgres]]:
    """The bench's Redis and PostgreSQL, started, and pointed at by the environment that
    this process (Django, set up next) and every process it starts read."""
    cluster = Path(tempfile.mkdtemp(prefix="bench-faults-pg-"))
    redis_server, postgres = OwnRedis(logs), None
    try:
        redis_server.start()
        postgres = OwnPostgres(cluster, database=DATABASE)
        postgres.start()
        os.environ["REDIS_URL"], os.environ["DATABASE_URL"] = redis_server.url, postgres.url
        yield redis_server, postgres
    finally:
        redis_server.stop()
        if postgres is not None:
            postgres.stop("immediate")
        shutil.rmtree(cluster, ignore_errors=True)


# --- one scenario ------------------------------------------------------------------------------


@dataclass
class Fault:
    """What broke and when (monotonic): from ``began`` until ``ended``."""

    name: str
    what: str = ""
    began: float = 0.0
    ended: float = 0.0
    victim: str = ""  # the daphne killed or restarted (host:port, comma-separated)
    steps: list[str] = field(default_factory=list)  # each daphne's stop and start, timed
    sigterms: list[float] = field(default_factory=list)  # when each daphne was stopped
    stopped: list[str] = field(default_factory=list)  # which (host:port), in that order
    handshakes_before: Counter[str] = field(default_factory=Counter)  # failed until began
    lobby_seen: float | None = None  # the lobby showed a table created after the fault
    lobby_probes: int = 0
    # The open sockets on each daphne (by the X-Upstream their handshake was answered
    # with) when the fault began, and SPREAD_AT s after.
    spread_before: Counter[str] = field(default_factory=Counter)
    spread_after: Counter[str] | None = None
    counting: asyncio.Task | None = None


class LobbyWatch:
    """A visitor's lobby socket through nginx, reopened as the page does, keeping when it
    first showed each of the names it is looking for."""

    def __init__(self, nginx: LocalNginx) -> None:
        self.url, self.origin = f"ws://{nginx.host}:{nginx.port}/ws/lobby/", nginx.url
        self.wanted: set[str] = set()
        self.seen: dict[str, float] = {}
        self.closing = False

    async def watch(self) -> None:
        tries = 0
        while not self.closing:
            try:
                async with connect(self.url, origin=self.origin, ping_interval=None) as ws:
                    tries = 0
                    async for frame in ws:
                        self.receive(str(frame), time.monotonic())
                        ping = PING.search(str(frame))
                        if ping:
                            await ws.send(json.dumps({"action": "pong", "t": ping.group(1)}))
            except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed):
                pass
            await asyncio.sleep(random.uniform(0, 2 ** min(tries, 6)))
            tries += 1

    def receive(self, frame: str, now: float) -> None:
        for name in self.wanted:
            if name in frame:
                self.seen.setdefault(name, now)


def create_lobby_table(name: str) -> None:
    """A public table with its owner seated, as a player would open one."""
    from accounts.models import User
    from games import services
    from games.engine import Rules

    stamp = time.time_ns()
    owner = User.objects.create(username=f"lobby{stamp}", email=f"lobby{stamp}@example.com")
    services.table_create(owner=owner, name=name, rules=Rules(), seats=4, base_seconds=600)


def start_site_daphne(
    stack: ExitStack, port: int, *, logs: Path, name: str, upstreams: list[int]
) -> Server:
    """One of the site's web processes on ``port``, as systemd starts it (``manage.py
    serve``: daphne with the site's options and server, ``pan_site.server``), told the
    daphnes nginx sends to (``upstreams``, their ports)."""
    log = logs / f"{name}-{port}.log"
    env = base_env(DAPHNE_UPSTREAMS=",".join(f"127.0.0.1:{p}" for p in upstreams))
    proc = stack.enter_context(running(serve_args(port), env=env, log=log))
    wait_for_port(port, proc=proc, log=log, timeout=60)
    return Server(name, port, proc)


def stop_as_systemd(server: Server) -> int:
    """SIGTERM, then SIGKILL after ``STOP_TIMEOUT`` s as systemd does; the exit status."""
    os.killpg(server.proc.pid, signal.SIGTERM)
    try:
        return server.proc.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(server.proc.pid, signal.SIGKILL)
        return server.proc.wait(10)


async def restart_daphnes(
    fault: Fault, site: list[Server], count: int, *, stack: ExitStack, logs: Path
) -> None:
    """Restart the first ``count`` daphnes one after the other, as systemd (one) or a
    rolling deploy (each in turn, the next once the last listens again) does."""
    for index in range(count):
        victim, began = site[index], time.monotonic()
        fault.sigterms.append(began)
        fault.stopped.append(f"127.0.0.1:{victim.port}")
        status = await asyncio.to_thread(stop_as_systemd, victim)
        exited = time.monotonic()
        await asyncio.sleep(RESTART_SEC)
        site[index] = await asyncio.to_thread(
            functools.partial(
                start_site_daphne,
                stack,
                victim.port,
                logs=logs,
                name=f"{victim.name}-again",
                upstreams=[server.port for server in site],
            )
        )
        fault.steps.append(
            f"127.0.0.1:{victim.port} SIGTERM at {began - fault.began:.1f} s, exited "
            f"(status {status}) {exited - began:.1f} s later, listening again at "
            f"{time.monotonic() - fault.began:.1f} s"
        )


def sockets_by_daphne(run: LoadRun) -> Counter[str]:
    """The open sockets on each daphne, by the X-Upstream of their handshake's answer."""
    return Counter(seat.upstream or "?" for seat in run.seats if seat.ws is not None)


async def count_spread(fault: Fault, run: LoadRun) -> None:
    await asyncio.sleep(max(0.0, fault.began + SPREAD_AT - time.monotonic()))
    fault.spread_after = sockets_by_daphne(run)


def off_even(counts: Counter[str], daphnes: int) -> float:
    """How far the daphne furthest from an even share of the sockets is from it (0.1:
    10 % above or below)."""
    total = counts.total()
    if not total:
        return 0.0
    even = total / daphnes
    missing = daphnes - len(counts)  # a daphne with no socket is a whole share off
    return max([abs(count - even) for count in counts.values()] + [even] * (missing > 0)) / even


async def inject(
    fault: Fault,
    options: argparse.Namespace,
    *,
    run: LoadRun,
    site: list[Server],
    stack: ExitStack,
    logs: Path,
    redis_server: OwnRedis,
    postgres: OwnPostgres,
    lobby: LobbyWatch | None,
) -> None:
    """Wait ``--before`` s, break one thing, mend it; record when."""
    await asyncio.sleep(options.before)
    fault.began = time.monotonic()
    fault.handshakes_before = Counter(run.errors.handshake)
    if fault.name in RESTARTS:
        fault.spread_before = sockets_by_daphne(run)
        fault.counting = asyncio.create_task(count_spread(fault, run))
        count = 1 if fault.name == "restart" else len(site)
        fault.victim = ", ".join(f"127.0.0.1:{server.port}" for server in site[:count])
        fault.what = (
            f"SIGTERM of daphne {fault.victim}, started again {RESTART_SEC:g} s after it "
            "exited (systemd)"
            if fault.name == "restart"
            else f"rolling restart (SIGTERM, start, wait until it listens) of {fault.victim}"
        )
        await restart_daphnes(fault, site, count, stack=stack, logs=logs)
    elif fault.name == "daphne":
        victim = site[0]
        fault.victim = f"127.0.0.1:{victim.port}"
        fault.what = f"kill -9 of daphne {fault.victim}, restarted after {options.daphne_down:g} s"
        os.killpg(victim.proc.pid, signal.SIGKILL)
        victim.proc.wait(10)
        await asyncio.sleep(options.daphne_down)
        site[0] = await asyncio.to_thread(
            functools.partial(
                start_site_daphne,
                stack,
                victim.port,
                logs=logs,
                name="daphne1-again",
                upstreams=[server.port for server in site],
            )
        )
    elif fault.name == "redis":
        fault.what = f"Redis stopped (SIGTERM), started again after {options.redis_down:g} s"
        await asyncio.to_thread(redis_server.stop)
        await asyncio.sleep(options.redis_down)
        await asyncio.to_thread(redis_server.start)
    else:
        fault.what = (
            f"PostgreSQL stopped (pg_ctl stop -m fast), started again after "
            f"{options.postgres_down:g} s"
        )
        await asyncio.to_thread(postgres.stop, "fast")
        await asyncio.sleep(options.postgres_down)
        await asyncio.to_thread(postgres.start)
    fault.ended = time.monotonic()
    if lobby is not None:
        # A table opened every second until the lobby shows one: when it updates again.
        while lobby.seen == {} and time.monotonic() - fault.ended < options.after - 1:
            name = f"lobby probe {fault.lobby_probes}"
            lobby.wanted.add(name)
            fault.lobby_probes += 1
            with contextlib.suppress(Exception):  # the probe itself may meet the fault
                await asyncio.to_thread(create_lobby_table, name)
            await asyncio.sleep(1.0)
        if lobby.seen:
            fault.lobby_seen = min(lobby.seen.values())


async def play(
    seats: list[list[SeatSpec]],
    fault: Fault,
    options: argparse.Namespace,
    *,
    nginx: LocalNginx,
    **services: object,
) -> tuple[LoadRun, dict[int, object]]:
    """Connect, play through the fault, close; returns the run and the clock tables'
    first deadlines by hand."""
    run = LoadRun(
        seats,
        pace=tuple(options.pace),
        move_timeout=options.move_timeout,
        stall_after=options.stall_after,
        reconnect=True,
    )
    lobby = LobbyWatch(nginx) if fault.name == "redis" else None
    watching = asyncio.create_task(lobby.watch()) if lobby is not None else None
    try:
        await run.connect()
        await run.warm_up(60)
        # Created over the first seconds of play, each with a clock as long as the wait
        # until the fault: their first deadlines fall in the fault's first seconds.
        clocks = asyncio.create_task(
            asyncio.to_thread(
                schedule_deadlines,
                options.clock_tables,
                options.before - 1,
                max(5, round(options.before)),
            )
        )
        breaking = asyncio.create_task(inject(fault, options, run=run, lobby=lobby, **services))
        seconds = options.before + _down(fault.name, options) + options.after

        def after_enough() -> bool:  # a restart lasts as long as it takes
            return bool(fault.ended) and time.monotonic() > fault.ended + options.after

        await run.play(seconds, give_up=seconds, done=after_enough)
        await breaking
        deadlines = await clocks
        return run, deadlines
    finally:
        await run.close()
        if lobby is not None and watching is not None:
            lobby.closing = True
            watching.cancel()


def _down(name: str, options: argparse.Namespace) -> float:
    """How long the fault lasts: as set, or at most as long as a restart may take (each
    daphne: its sockets' goodbyes up to 15 s, systemd's pause, a new process importing
    the site); play stops ``--after`` s after the fault ended."""
    return {
        "daphne": options.daphne_down,
        "redis": options.redis_down,
        "postgres": options.postgres_down,
        "restart": 60.0,
        "deploy": 120.0,
    }[name]


# --- what happened ----------------------------------------------------------------------------


@dataclass
class Moves:
    sent: int = 0
    acknowledged: int = 0
    applied: int = 0  # version steps of the tables' hands in the database
    lost: list[tuple[int, int]] = field(default_factory=list)  # acknowledged, not applied
    unsent: list[tuple[int, int]] = field(default_factory=list)  # applied, nothing sent
    given_up: int = 0
    sent_again: int = 0  # a second send at one hand's version
    half_applied: list[int] = field(default_factory=list)


def compare_with_database(run: LoadRun) -> Moves:
    """The moves the clients sent and saw acknowledged, against the hands' versions and
    logs in the database."""
    from django.db import connections
    from django.db.models import Count

    from games.models import Hand

    connections.close_all()  # a connection from before a PostgreSQL restart is dead
    journal: dict[tuple[int, int], list[Pending]] = {}
    for _table, pending in run.journal:
        journal.setdefault((pending.hand, pending.version), []).append(pending)
    hands = (
        Hand.objects.filter(pk__in={hand for hand, _ in journal})
        .annotate(rows=Count("actions"))
        .only("pk", "version", "state", "outcome")
    )
    moves = Moves(sent=len(run.journal))
    for hand in hands:
        for version in range(1, hand.version):
            if (hand.pk, version) not in journal:
                moves.unsent.append((hand.pk, version))
        moves.applied += hand.version - 1
        if hand.rows != hand.engine_state.history_length:
            moves.half_applied.append(hand.pk)
    versions = {hand.pk: hand.version for hand in hands}
    for (hand, version), sends in journal.items():
        moves.sent_again += len(sends) - 1
        for pending in sends:
            moves.given_up += pending.given_up
            if pending.acknowledged:
                moves.acknowledged += 1
                if version >= versions.get(hand, 0):
                    moves.lost.append((hand, version))
    return moves


def resumed(run: LoadRun, since: float) -> dict[int, float | None]:
    """For each playing table (by index): seconds from ``since`` until the first move sent
    after it reached all four seats (None: none did)."""
    first: dict[int, float] = {}
    for table, pending in run.journal:
        if pending.sent >= since and len(pending.arrived) == len(table.seats):
            done = max(pending.arrived.values()) - since
            first[table.index] = min(first.get(table.index, done), done)
    return {table.index: first.get(table.index) for table in run.tables if table.complete}


def clock_report(deadlines: dict[int, object], *, wait: float) -> str:
    """How many of the clock tables' first hands timed out, and how late."""
    from django.db import connections

    from games.models import Hand

    connections.close_all()
    give_up = time.monotonic() + wait
    finished: dict[int, object] = {}
    while time.monotonic() < give_up:
        finished = dict(Hand.objects.filter(pk__in=deadlines).values_list("pk", "finished_at"))
        if all(finished.values()):
            break
        time.sleep(0.5)
    late = [
        (finished[pk] - deadline).total_seconds() * 1000
        for pk, deadline in deadlines.items()
        if finished.get(pk) is not None
    ]
    if not late:
        return f"clocks: none of {len(deadlines)} timeouts landed within {wait:.0f} s"
    return (
        f"clocks: {len(late)}/{len(deadlines)} timeouts due during the fault landed, lateness "
        f"p50={quantile(late, 0.5):.0f} max={max(late):.0f} ms"
    )


def stop_clock_tables(deadlines: dict[int, object]) -> None:
    """Annul the clock tables' matches, so that the next scenario's processes never deal
    and time them out."""
    from games import services
    from games.models import Hand

    for match_id in set(Hand.objects.filter(pk__in=deadlines).values_list("match_id", flat=True)):
        services.match_set_annulled(match_id=match_id)


def seconds_text(values: list[float]) -> str:
    if not values:
        return "none"
    return f"p50={quantile(values, 0.5):.1f} max={max(values):.1f} s"


def report(
    fault: Fault, run: LoadRun, moves: Moves, clocks: str, logs_before: int, logs: Path
) -> None:
    dropped = [r for r in run.reconnects if r.closed >= fault.began]
    opened = [r for r in dropped if r.opened is not None]
    shown = [r.shown - fault.began for r in dropped if r.shown is not None]
    through = Counter(r.upstream_after or "?" for r in opened)
    print(f"faults: {fault.name}: {fault.what}")
    line = (
        f"  sockets: dropped by the fault {len(dropped)} of {len(run.seats)}, open again "
        f"{len(opened)} (through {dict(through) or 'none'}), shown the table again "
        f"{len(shown)}"
    )
    if shown:
        line += f": every one within {max(shown):.1f} s of the fault ({seconds_text(shown)})"
    print(f"{line}; open at the end {run.connected()}")
    print(
        f"  moves: sent {moves.sent}, acknowledged {moves.acknowledged}, applied "
        f"{moves.applied}; LOST (acknowledged, not in the database) {len(moves.lost)}, "
        f"APPLIED WITHOUT A SEND (twice) {len(moves.unsent)}, given up after a reconnect "
        f"(shown not applied) {moves.given_up}, sent again at one version "
        f"{moves.sent_again}; HALF-APPLIED hands {len(moves.half_applied)}"
    )
    if moves.lost or moves.unsent or moves.half_applied:
        print(f"  lost {moves.lost[:10]} unsent {moves.unsent[:10]} half {moves.half_applied[:10]}")
    back = resumed(run, fault.began)
    hit = {r.table for r in dropped}
    for label, tables in (("every table", set(back)), ("its dropped sockets' tables", hit)):
        if not tables:
            continue
        times = [back[t] for t in tables if back.get(t) is not None]
        never = sum(1 for t in tables if back.get(t) is None)
        print(
            f"  play, {label} ({len(tables)}): a move sent after the fault began reached all "
            f"four seats after {seconds_text(times)} from the fault; never: {never}"
        )
    print(f"  the fault lasted {fault.ended - fault.began:.1f} s")
    if fault.name == "redis":
        seen = (
            f"{fault.lobby_seen - fault.ended:.1f} s after Redis was back"
            if fault.lobby_seen is not None
            else "never"
        )
        print(
            f"  lobby: showed a table created after the restart {seen} "
            f"({fault.lobby_probes} tables opened, one a second)"
        )
    if fault.name in RESTARTS:
        restart_report(fault, run, moves, back, dropped)
    print(f"  {clocks}")
    print(f"  client: {run.errors.summary()}")
    for detail in run.errors.details():
        print(f"  client: {detail}")
    print(f"  server logs: {tracebacks(logs) - logs_before} tracebacks ({logs})")
    sys.stdout.flush()


def p99_back(windows: list[tuple[float, float, int]], ceiling: float) -> float | None:
    """The start of the first window from which no window's p99 is over ``ceiling``
    (None: the last one still is)."""
    back: float | None = 0.0
    for start, p99, _count in windows:
        if p99 > ceiling:
            back = None
        elif back is None:
            back = start
    return back


def playing_again(run: LoadRun, sigterms: list[float], stopped: list[str]) -> float | None:
    """The longest wait, over the daphnes stopped, from a SIGTERM until every table whose
    sockets it dropped (the stopped daphne's, until the next SIGTERM) had a move sent
    after its last socket closed reach all four seats (None: a table never did)."""
    longest = 0.0
    ends = [*sigterms[1:], float("inf")]
    for began, end, victim in zip(sigterms, ends, stopped, strict=True):
        closed: dict[int, float] = {}
        for r in run.reconnects:
            if began <= r.closed < end and r.upstream_before == victim:
                closed[r.table] = max(closed.get(r.table, r.closed), r.closed)
        for table, since in closed.items():
            back = resumed(run, since).get(table)
            if back is None:
                return None
            longest = max(longest, since - began + back)
    return longest


def handed_over(run: LoadRun, fault: Fault) -> dict[int, tuple[float, float | None]]:
    """The tables whose sockets a daphne that was not stopped closed with 1012 after the
    last daphne listened again (``pan_site.spread``): by table, when its last socket closed
    (from the fault) and how long until a move sent after that reached all four seats."""
    closed: dict[int, float] = {}
    for r in run.reconnects:
        if (
            r.closed >= fault.ended
            and r.code == 1012
            and r.upstream_before not in fault.stopped[-1:]
        ):
            closed[r.table] = max(closed.get(r.table, r.closed), r.closed)
    return {
        table: (since - fault.began, resumed(run, since).get(table))
        for table, since in closed.items()
    }


def restart_report(
    fault: Fault,
    run: LoadRun,
    moves: Moves,
    back: dict[int, float | None],
    dropped: list[Reconnect],
) -> None:
    """What a restart is held to: the figures the goals are about, each beside its goal."""
    for step in fault.steps:
        print(f"  daphne {step}")
    failed = Counter(run.errors.handshake)
    failed.subtract(fault.handshakes_before)
    failed = +failed
    print(
        f"  handshakes failed after the fault began: {failed.total()} "
        f"{dict(failed.most_common(6)) if failed else ''}"
    )
    before, counted = run.p99_between(run.began, fault.began)
    print(f"  p99 before the fault: {before:.0f} ms ({counted} moves)")
    windows = run.p99_windows(fault.began, seconds=WINDOW, span=WINDOWS_SPAN)
    print(
        f"  p99 per {WINDOW:g} s from the fault, ms (moves): "
        + " ".join(f"{start:.0f}s:{p99:.0f}({n})" for start, p99, n in windows)
    )
    reopened = sum(1 for r in dropped if r.shown is not None)
    playing = playing_again(run, fault.sigterms, fault.stopped)
    handed = handed_over(run, fault)
    ceiling = GOAL_P99_FACTOR * before
    p99_at = p99_back(windows, ceiling) if before else None

    def verdict(met: bool) -> str:
        return "met" if met else "MISSED"

    daphnes = len(fault.spread_before) or 2
    after = fault.spread_after
    before = dict(sorted(fault.spread_before.items()))
    print(
        f"  sockets on each daphne: when the fault began {before}, {SPREAD_AT:g} s after it "
        + (f"{dict(sorted(after.items()))}" if after is not None else "not counted (ended before)")
    )
    if handed:
        print(
            f"  tables handed over to their own daphne after the last listened again: "
            f"{len(handed)}, sockets closed from {min(c for c, _ in handed.values()):.1f} to "
            f"{max(c for c, _ in handed.values()):.1f} s after the fault; each playing again "
            f"{seconds_text([b for _, b in handed.values() if b is not None])} after its last "
            f"socket closed, never: {sum(1 for _, b in handed.values() if b is None)}"
        )
    print(f"  goals ({fault.name}):")
    print(f"    lost 0: {len(moves.lost)} {verdict(not moves.lost)}")
    print(f"    applied twice 0: {len(moves.unsent)} {verdict(not moves.unsent)}")
    print(
        f"    sockets back, of those dropped: {reopened} of {len(dropped)} "
        f"{verdict(reopened == len(dropped))}"
    )
    print(
        f"    every table playing within {GOAL_PLAYING_WITHIN:g} s of each SIGTERM that "
        "dropped its sockets: "
        + (f"{playing:.1f} s" if playing is not None else "not every table played again")
        + f" {verdict(playing is not None and playing <= GOAL_PLAYING_WITHIN)}"
    )
    if after is not None:
        off = off_even(after, daphnes)
        print(
            f"    sockets within {GOAL_EVEN:.0%} of even on each daphne {SPREAD_AT:g} s after "
            f"the fault: the furthest {off:.0%} off {verdict(off <= GOAL_EVEN)}"
        )
    print(
        f"    p99 back within {GOAL_P99_FACTOR:g}x of before ({ceiling:.0f} ms) within "
        f"{GOAL_P99_WITHIN:g} s: "
        + (f"from {p99_at:.0f} s" if p99_at is not None else "not back")
        + f" {verdict(p99_at is not None and p99_at <= GOAL_P99_WITHIN)}"
    )


def sized(options: argparse.Namespace, name: str) -> argparse.Namespace:
    """The options for one scenario: its default tables and play after the fault, unless
    given."""
    restart = name in RESTARTS
    return argparse.Namespace(
        **{
            **vars(options),
            "tables": options.tables or (250 if restart else 50),
            "after": options.after if options.after is not None else (120.0 if restart else 30.0),
        }
    )


def scenario(
    name: str, options: argparse.Namespace, logs: Path, redis_server: OwnRedis, pg: OwnPostgres
) -> None:
    logs = logs / name
    logs.mkdir()
    options = sized(options, name)
    print(
        f"scenario {name}: {options.tables} tables, {options.before:g} s of play before the "
        f"fault, {options.after:g} s after it"
    )
    busy_before = machine_busy()
    with ExitStack() as stack:
        start_workers(stack, logs)
        ports: list[int] = []
        while len(ports) < 2:
            if (port := free_port()) not in ports:
                ports.append(port)
        site = [
            start_site_daphne(stack, port, logs=logs, name=f"daphne{i + 1}", upstreams=ports)
            for i, port in enumerate(ports)
        ]
        nginx = start_nginx(stack, site, logs=logs)
        data = seat_tables(options.tables, label=f"faults-{name}")
        seats = site_seats(data, site, via=nginx)
        logs_before = tracebacks(logs)
        fault = Fault(name)
        run, deadlines = asyncio.run(
            play(
                seats,
                fault,
                options,
                nginx=nginx,
                site=site,
                stack=stack,
                logs=logs,
                redis_server=redis_server,
                postgres=pg,
            )
        )
        moves = compare_with_database(run)
        clocks = clock_report(deadlines, wait=30)
        report(fault, run, moves, clocks, logs_before, logs)
        _busy, total, stolen = (
            now - then for now, then in zip(machine_busy(), busy_before, strict=True)
        )
        print(f"  stolen share (the hypervisor's, of this machine's CPU): {stolen / total:.1%}")
        stop_clock_tables(deadlines)


def main() -> None:
    options = parse_options()
    raise_open_files()
    logs = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    print(
        f"bench-faults: cores={os.cpu_count()} (load average {os.getloadavg()[0]:.1f}), "
        f"tables={options.tables or 'per scenario'} of four signed-in players through "
        "nginx on 2 daphnes, "
        f"pace {options.pace[0]:g}-{options.pace[1]:g} s per move per table (open loop), "
        f"clock 3600+0 s; {options.clock_tables} clock tables of two; play {options.before:g} "
        f"s before the fault and {options.after if options.after is not None else 'per scenario'}"
        " s after it; move timeout "
        f"{options.move_timeout:g} s, resync after {options.stall_after:g} s without "
        f"progress; scenarios {','.join(options.scenarios)}; {code_version()}"
    )
    sys.stdout.flush()
    try:
        with stopped_on_sigterm(), own_services(logs) as (redis_server, postgres):
            start_django(fresh=True)
            # Annulling the clock tables' matches replays ratings: nothing to print.
            logging.getLogger("games.ratings").setLevel(logging.WARNING)
            for name in options.scenarios:
                scenario(name, options, logs, redis_server, postgres)
    except KeyboardInterrupt:
        print("interrupted: every process this run started has been stopped")
        raise SystemExit(130) from None
    finally:
        print(f"logs: {logs}")


if __name__ == "__main__":
    main()
