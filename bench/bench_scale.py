"""What a move and an idle socket cost each shared part, and how much those parts take
(`make bench-scale`): the figures of the scale model in docs/scaling.md.

On a Redis and a PostgreSQL cluster of its own (``bench.bench_faults``: free ports, a
temporary folder; so no other process's traffic counts), with the Celery worker and beat
running (``bench.bench_load``), in three phases:

* play: T tables of four signed-in players (default 100) on one daphne, open loop, a
  move due every 1 to 3 s per table, hands lengthened first (``bench.bench_load``'s
  machinery). A quiet window first, every socket open and nobody moving, gives the
  background (the worker's clock ticker, pings, presence); the play window's counts less
  that background, per measured move: daphne CPU, Redis commands (``INFO
  commandstats``, by command) and bytes in and out (``INFO stats``), PostgreSQL
  statements (``pg_stat_statements``, loaded in its cluster: a move's write counts two,
  the statement and the deferred foreign key check of its action row at commit) and
  transactions (``pg_stat_database.xact_commit``), rows inserted and updated (and those
  of the hands and actions tables), WAL bytes (``pg_wal_lsn_diff``), and the CPU of
  Redis and of PostgreSQL's processes;
* idle: K sockets (default 1000) held on a fresh daphne for a quiet window, against the
  same daphne with four: per idle socket, memory (RSS), daphne CPU, Redis commands and
  bytes, PostgreSQL transactions;
* ceilings, the site stopped: PostgreSQL's move-shaped writes a second with W concurrent
  writers (default 16 asyncio psycopg connections, each writing the site's one-statement
  compare-and-set move ``games.rows.move_if_unchanged_async`` again and again on a hand
  of its own from the play phase: the hand's state and one action row), and Redis's
  PUBLISH a second of 1 KB messages from P asyncio clients (redis-py) to C channels read
  by S subscribers. The client runs on the same machine: each ceiling also prints the
  server's CPU per operation, and the operations a second one core of it would take.

PostgreSQL runs durable (fsync, synchronous_commit and full_page_writes on, as a
production server; ``--no-durable``: off, as bench-faults runs it). Every process it
starts is stopped at the end, also on Ctrl-C. The logs stay in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench import production_site, start_django, use_services

production_site("bench-scale")
use_services(database="pan_bench_scale", queue="pan-bench-scale")

from bench.bench_faults import OwnRedis  # noqa: E402
from bench.bench_load import (  # noqa: E402
    CLOCK_TICKS,
    Server,
    code_version,
    cpu_seconds,
    load_run,
    machine_busy,
    raise_open_files,
    rss_kb,
    seat_tables,
    settle,
    site_seats,
    start_daphnes,
    start_workers,
    stopped_on_sigterm,
    tracebacks,
)
from bench.load_client import LoadRun, latency_summary, quantile  # noqa: E402
from deploy.database import OwnPostgres  # noqa: E402

DATABASE = "pan_bench_scale"


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100, help="tables of four playing")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured play")
    parser.add_argument("--quiet-seconds", type=float, default=10.0, help="background window")
    parser.add_argument("--pace", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"))
    parser.add_argument("--lengthen", type=int, nargs=2, default=(20, 40), metavar=("MIN", "MAX"))
    parser.add_argument("--idle-sockets", type=int, default=1000, help="0: no idle phase")
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--writers", type=int, default=16, help="PostgreSQL ceiling")
    parser.add_argument("--publishers", type=int, default=8, help="Redis ceiling")
    parser.add_argument("--subscribers", type=int, default=4)
    parser.add_argument("--channels", type=int, default=100)
    parser.add_argument("--message-bytes", type=int, default=1024)
    parser.add_argument("--ceiling-seconds", type=float, default=10.0)
    parser.add_argument("--durable", action=argparse.BooleanOptionalAction, default=True)
    # What bench_load's machinery reads (its defaults).
    parser.add_argument("--catch-up", type=float, default=4.0)
    parser.add_argument("--players", choices=("greedy", "random"), default="greedy")
    parser.add_argument("--move-timeout", type=float, default=15.0)
    parser.add_argument("--stall-after", type=float, default=20.0)
    parser.add_argument("--retries", type=int, default=3)
    parser.add_argument("--connect-concurrency", type=int, default=32)
    parser.add_argument("--connect-budget", type=float, default=90.0)
    parser.add_argument("--warmup-timeout", type=float, default=120.0)
    return parser.parse_args()


# --- its own services ---------------------------------------------------------------------


class ScalePostgres(OwnPostgres):
    """A cluster of its own (``deploy.database.OwnPostgres``) with, when ``durable``, the
    settings of a production server (every commit flushed to the disk)."""

    durable = True

    def settings(self) -> str:
        sync = "on" if self.durable else "off"
        return f"fsync={sync} synchronous_commit={sync} full_page_writes={sync}"

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=300 "
            "-c shared_preload_libraries=pg_stat_statements "
            + " ".join(f"-c {setting}" for setting in self.settings().split())
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def pids(self) -> list[int]:
        """The postmaster and its children (backends, WAL writer, checkpointer, ...)."""
        main = int((self.data / "postmaster.pid").read_text().split()[0])
        return [main, *children(main)]


def children(parent: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == parent:
            found.append(int(stat.parent.name))
    return found


def cpu_of(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):  # a backend that ended: its CPU is gone too
            total += cpu_seconds(pid)
    return total


@contextmanager
def own_services(logs: Path, *, durable: bool) -> Iterator[tuple[OwnRedis, ScalePostgres]]:
    """Its Redis and PostgreSQL started, and pointed at by the environment that this
    process (Django, set up next) and every process it starts read."""
    cluster = Path(tempfile.mkdtemp(prefix="bench-scale-pg-"))
    redis_server, postgres = OwnRedis(logs), None
    try:
        redis_server.start()
        postgres = ScalePostgres(cluster, database=DATABASE)
        postgres.durable = durable
        postgres.start()
        os.environ["REDIS_URL"], os.environ["DATABASE_URL"] = redis_server.url, postgres.url
        yield redis_server, postgres
    finally:
        redis_server.stop()
        if postgres is not None:
            postgres.stop("immediate")
        shutil.rmtree(cluster, ignore_errors=True)


# --- counters -------------------------------------------------------------------------------


def redis_counts(commandstats: dict, stats: dict) -> dict[str, float]:
    """Redis's counters from ``INFO commandstats`` and ``INFO stats`` (as redis-py parses
    them): ``redis.calls`` (every command but INFO, which the bench sends itself),
    ``redis.cmd.<name>`` for each command, ``redis.in`` and ``redis.out`` (bytes)."""
    counts: dict[str, float] = {"redis.calls": 0.0}
    for key, values in commandstats.items():
        name = key.removeprefix("cmdstat_")
        if name == "info":
            continue
        counts[f"redis.cmd.{name}"] = float(values["calls"])
        counts["redis.calls"] += values["calls"]
    counts["redis.in"] = float(stats["total_net_input_bytes"])
    counts["redis.out"] = float(stats["total_net_output_bytes"])
    return counts


PG_COUNTS = """
SELECT (SELECT sum(calls) FROM pg_stat_statements WHERE dbid = d.datid),
       d.xact_commit, d.xact_rollback, d.tup_inserted, d.tup_updated,
       pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
       (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relid = %s::regclass),
       (SELECT n_tup_upd FROM pg_stat_user_tables WHERE relid = %s::regclass)
FROM pg_stat_database d WHERE d.datname = current_database()
"""
PG_NAMES = (
    "pg.statements", "pg.xact", "pg.rollback", "pg.inserted", "pg.updated", "pg.wal",
    "pg.actions", "pg.hands",
)  # fmt: skip
FLUSH_SECONDS = 11.0


class Counters:
    """Snapshots of every counter: Redis's, PostgreSQL's, and the CPU seconds of the
    servers (each named), of Redis, of PostgreSQL's processes and of this client."""

    def __init__(self, redis_server: OwnRedis, postgres: ScalePostgres) -> None:
        import psycopg
        import redis

        from games.models import Action, Hand

        self.redis_server, self.postgres = redis_server, postgres
        self.redis = redis.Redis.from_url(redis_server.url)
        self.pg = psycopg.connect(postgres.url, autocommit=True)
        self.pg.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        self.tables = (Action._meta.db_table, Hand._meta.db_table)
        self.servers: list[Server] = []

    def snapshot(self) -> dict[str, float]:
        counts = {"seconds": time.monotonic()}
        counts.update(redis_counts(self.redis.info("commandstats"), self.redis.info("stats")))
        row = self.pg.execute(PG_COUNTS, self.tables).fetchone()
        counts.update(zip(PG_NAMES, (float(v or 0) for v in row), strict=True))
        counts["cpu.daphne"] = sum(cpu_seconds(server.proc.pid) for server in self.servers)
        counts["cpu.redis"] = cpu_seconds(self.redis_server.proc.pid)
        counts["cpu.postgres"] = cpu_of(self.postgres.pids())
        counts["cpu.client"] = time.process_time()
        busy, total, stolen = machine_busy()
        counts["machine.busy"], counts["machine.total"] = busy, total
        counts["machine.stolen"] = stolen
        return counts

    async def take(self, *, flush: float = FLUSH_SECONDS) -> dict[str, float]:
        """A snapshot after ``flush`` s: a busy PostgreSQL backend reports its counts at
        most once a second, and one gone idle within that second only 10 s later."""
        await asyncio.sleep(flush)
        return await asyncio.to_thread(self.snapshot)

    def close(self) -> None:
        self.pg.close()
        self.redis.close()


def difference(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {key: after[key] - before.get(key, 0.0) for key in after}


def per_unit(window: dict[str, float], background: dict[str, float], units: float) -> dict:
    """The window's counts less the background's rate over as long, per unit."""
    rate = {key: value / background["seconds"] for key, value in background.items()}
    return {
        key: (value - rate.get(key, 0.0) * window["seconds"]) / max(units, 1e-9)
        for key, value in window.items()
    }


def top_commands(counts: dict[str, float], limit: int = 6) -> str:
    commands = sorted(
        ((key.removeprefix("redis.cmd."), value) for key, value in counts.items()
         if key.startswith("redis.cmd.") and value > 0.005),
        key=lambda item: -item[1],
    )  # fmt: skip
    return " ".join(f"{name}={value:.2f}" for name, value in commands[:limit]) or "none"


def machine_share(window: dict[str, float], part: str = "busy") -> float:
    """The machine's ``busy`` (or ``stolen``) share of all its cores' time in ``window``."""
    return window[f"machine.{part}"] / max(1e-9, window["machine.total"])


def figures(counts: dict[str, float]) -> str:
    """The common figures of counts per move (or per socket and second)."""
    c = counts
    return (
        f"daphne cpu={c['cpu.daphne'] * 1000:.3f} ms; redis: commands="
        f"{c['redis.calls']:.2f} ({top_commands(c)}) in={c['redis.in']:.0f} B "
        f"out={c['redis.out']:.0f} B cpu={c['cpu.redis'] * 1000:.3f} ms; postgres: "
        f"statements={c['pg.statements']:.2f} transactions={c['pg.xact']:.2f} (rolled back "
        f"{c['pg.rollback']:.2f}) rows "
        f"inserted={c['pg.inserted']:.2f} updated={c['pg.updated']:.2f} (actions inserted "
        f"{c['pg.actions']:.2f}, hands updated {c['pg.hands']:.2f}) wal={c['pg.wal']:.0f} B "
        f"cpu={c['cpu.postgres'] * 1000:.3f} ms"
    )


# --- play ------------------------------------------------------------------------------------


@dataclass
class Played:
    run: LoadRun
    quiet: dict[str, float]
    window: dict[str, float]
    hands: list[int] = field(default_factory=list)  # the tables' live hands at the end


def play(options: argparse.Namespace, counters: Counters, logs: Path) -> Played:
    """T tables on one daphne: the quiet window, then the measured play."""
    from games.models import Hand

    data = seat_tables(options.tables, label="scale")
    with ExitStack() as stack:
        (daphne,) = start_daphnes(stack, 1, logs=logs, name="daphne")
        counters.servers = [daphne]

        async def measured() -> tuple[LoadRun, dict[str, float], dict[str, float]]:
            run = load_run(site_seats(data, [daphne]), options)
            try:
                budget = options.connect_budget
                await run.connect(concurrency=options.connect_concurrency, budget=budget)
                await run.warm_up(options.warmup_timeout)
                low, high = options.lengthen
                if high > 0:
                    await run.lengthen((low, high), pace=(0.05, 0.25), seconds=120)
                await settle([daphne])
                first = await counters.take()
                await asyncio.sleep(options.quiet_seconds)
                second = await counters.take()
                await run.play(options.seconds, give_up=20)
                third = await counters.take()
                return run, difference(second, first), difference(third, second)
            finally:
                await run.close()

        run, quiet, window = asyncio.run(measured())
    table_ids = [tid for tid, _ in data]
    hands = list(
        Hand.objects.filter(match__table_id__in=table_ids, outcome__isnull=True).values_list(
            "pk", flat=True
        )
    )
    return Played(run, quiet, window, hands)


def report_play(played: Played, options: argparse.Namespace, logs: Path) -> None:
    run, quiet, window = played.run, played.quiet, played.window
    moves = len(run.latencies)
    per_move = per_unit(window, quiet, moves)
    raw = {key: value / max(1, moves) for key, value in window.items()}
    sockets = run.connected()
    print(
        f"scale: play tables={options.tables} daphne=1 pacing=open pace="
        f"{options.pace[0]:g}-{options.pace[1]:g} s per table seconds={options.seconds:.0f} "
        f"moves={moves} (sent {run.moves_sent}, {moves / max(1e-9, run.window):.1f}/s) "
        f"latency {latency_summary(run.latencies)} ms {run.errors.summary()}"
    )
    print(f"  per move, less the background: {figures(per_move)}")
    print(f"  per move, raw (background included): {figures(raw)}")
    background = {key: value / quiet["seconds"] for key, value in quiet.items()}
    print(
        f"  background per second ({sockets} sockets open, nobody moving, worker and beat "
        f"running; quiet {quiet['seconds']:.0f} s): {figures(background)}"
    )
    print(
        f"  window {window['seconds']:.1f} s (play {run.window:.1f} s and the moves in flight); "
        f"machine busy {machine_share(window):.0%} (quiet {machine_share(quiet):.0%}), "
        f"stolen {machine_share(window, 'stolen'):.0%}; "
        f"client cpu {window['cpu.client'] / window['seconds']:.0%} of a core; new hands "
        f"{run.new_hands}; server logs: {tracebacks(logs)} tracebacks"
    )
    for line in run.errors.details():
        print(f"  play: {line}")
    sys.stdout.flush()


# --- idle ------------------------------------------------------------------------------------


def idle(options: argparse.Namespace, counters: Counters, logs: Path) -> None:
    """K sockets on a fresh daphne, against the same daphne with one table's four."""
    tables = seat_tables(max(1, math.ceil(options.idle_sockets / 4)), label="idle")
    with ExitStack() as stack:
        (server,) = start_daphnes(stack, 1, logs=logs, name="idle")
        counters.servers = [server]
        seats = site_seats(tables, [server])

        async def hold() -> tuple[list[int], dict, dict, LoadRun, LoadRun]:
            first, rest = load_run(seats[:1], options), load_run(seats[1:], options)
            try:
                await first.connect()
                await first.warm_up(30)
                await settle([server])
                a = await counters.take()
                await asyncio.sleep(options.quiet_seconds)
                b = await counters.take()
                before = rss_kb(server.proc.pid)
                budget = options.connect_budget
                await rest.connect(concurrency=options.connect_concurrency, budget=budget)
                await rest.warm_up(options.warmup_timeout)
                await settle([server])
                connected = rss_kb(server.proc.pid)
                c = await counters.take()
                await asyncio.sleep(options.idle_seconds)
                d = await counters.take()
                rss = [before, connected, rss_kb(server.proc.pid)]
                return rss, difference(b, a), difference(d, c), first, rest
            finally:
                await rest.close()
                await first.close()

        rss, few, many, first, rest = asyncio.run(hold())
    added = max(1, rest.connected())
    per_socket_second = per_unit(
        {key: value / many["seconds"] for key, value in many.items()} | {"seconds": 1.0},
        few,
        added,
    )
    before, connected, after = rss
    print(
        f"scale: idle sockets={first.connected() + rest.connected()} (of "
        f"{len(first.seats) + len(rest.seats)}) seconds={options.idle_seconds:.0f} against 4 "
        f"sockets for {options.quiet_seconds:.0f} s: rss/socket={(after - before) / added:.1f} "
        f"KB (daphne {before / 1024:.0f} MB with 4, {connected / 1024:.0f} MB connected, "
        f"{after / 1024:.0f} MB after); {first.errors.total() + rest.errors.total()} errors"
    )
    print(f"  per idle socket per second, less the 4-socket daphne's: {figures(per_socket_second)}")
    print(
        f"  per 1000 idle sockets: daphne "
        f"{per_socket_second['cpu.daphne'] * 1000:.1%} of a core, redis "
        f"{per_socket_second['redis.calls'] * 1000:.0f} commands/s, postgres "
        f"{per_socket_second['pg.xact'] * 1000:.1f} transactions/s"
    )
    sys.stdout.flush()


# --- ceilings ------------------------------------------------------------------------------


def postgres_ceiling(options: argparse.Namespace, counters: Counters, hand_ids: list[int]) -> None:
    """W writers, each on a hand of its own, writing its move again and again."""
    import orjson

    from games import rows
    from games.models import Action
    from games.services.moves import RECORDED_FIELDS
    from live.adb import AsyncConnections

    writers = min(options.writers, len(hand_ids))
    if writers == 0:
        print("scale: postgres ceiling: no live hand to write")
        return
    prepared = []
    for hand_id in random.sample(hand_ids, writers):
        hand, players = rows.hand_for_move(hand_id)
        last = Action.objects.filter(hand_id=hand_id).order_by("-index").first()
        move = last.move if last else {"type": "play", "cards": ["QH"]}
        entry = last.entry if last else {"seat": 0, "move": move}
        prepared.append((hand, players, last.seat if last else 0, move, entry))
    sizes = [len(orjson.dumps(hand.state)) for hand, *_ in prepared]
    action_size = len(orjson.dumps(prepared[0][3])) + len(orjson.dumps(prepared[0][4]))
    pool = AsyncConnections(size=writers)
    counters.servers = []

    async def write(prepared_hand: tuple, until: float, latencies: list[float]) -> int:
        hand, players, seat, move, entry = prepared_hand
        index, failed = 1_000_000, 0
        async with pool.connection() as conn:
            while time.monotonic() < until:
                version = hand.version
                hand.version += 1
                action = Action(
                    hand=hand, index=index, seat=seat, move=move, entry=entry, time_used_ms=1500
                )
                index += 1
                began = time.monotonic()
                written = await rows.move_if_unchanged_async(
                    conn, hand, RECORDED_FIELDS, [action], version=version, players=players
                )
                latencies.append((time.monotonic() - began) * 1000)
                failed += not written
        return failed

    async def run() -> tuple[dict, list[float], int]:
        latencies: list[float] = []
        before = await counters.take(flush=0.0)
        until = time.monotonic() + options.ceiling_seconds
        failed = await asyncio.gather(*(write(p, until, latencies) for p in prepared))
        cpu = cpu_of(counters.postgres.pids())  # before the writers' backends end
        pool.close_all()  # a backend that ends reports its counts
        after = await counters.take(flush=1.0)
        return difference(after | {"cpu.postgres": cpu}, before), latencies, sum(failed)

    window, latencies, failed = asyncio.run(run())
    writes = len(latencies)
    seconds = options.ceiling_seconds
    per_write_cpu = window["cpu.postgres"] / max(1, writes)
    print(
        f"scale: postgres ceiling writers={writers} seconds={seconds:g} durable="
        f"{'yes' if options.durable else 'no'} ({counters.postgres.settings()}): "
        f"{writes / seconds:.0f} move writes/s (writes={writes}, not written={failed}; "
        f"one statement: UPDATE of the hand's state, {quantile(sizes, 0.5) / 1024:.1f} KB "
        f"JSON (min {min(sizes) / 1024:.1f} max {max(sizes) / 1024:.1f}), + INSERT of one "
        f"action, {action_size} B of JSON) latency {latency_summary(latencies)} ms"
    )
    print(
        f"  postgres cpu/write={per_write_cpu * 1000:.3f} ms (its processes at "
        f"{window['cpu.postgres'] / seconds:.0%} of a core: one core would take "
        f"~{1 / max(per_write_cpu, 1e-9):.0f} writes/s); transactions/write="
        f"{window['pg.xact'] / max(1, writes):.2f} statements/write="
        f"{window['pg.statements'] / max(1, writes):.2f} wal/write="
        f"{window['pg.wal'] / max(1, writes):.0f} B; client cpu "
        f"{window['cpu.client'] / seconds:.0%} of a core; machine busy {machine_share(window):.0%}"
    )
    sys.stdout.flush()


def redis_ceiling(options: argparse.Namespace, counters: Counters) -> None:
    """P publishers (one connection each) PUBLISH ``--message-bytes`` messages to C
    channels in turn; channel c is read by subscriber c mod S (each message reaches one
    subscriber, as a table's event reaches the one daphne of its sockets)."""
    from redis.asyncio import Redis

    url, payload = counters.redis_server.url, os.urandom(options.message_bytes)
    channels = [f"scale-{c}" for c in range(options.channels)]

    async def run() -> tuple[dict, int, list[int]]:
        readers = [Redis.from_url(url) for _ in range(options.subscribers)]
        pubsubs = [reader.pubsub(ignore_subscribe_messages=True) for reader in readers]
        for c, channel in enumerate(channels):
            await pubsubs[c % len(pubsubs)].subscribe(channel)
        received = [0] * len(pubsubs)

        async def read(i: int) -> None:
            async for _message in pubsubs[i].listen():
                received[i] += 1

        async def publish(p: int, until: float) -> int:
            client, sent = Redis.from_url(url), 0
            try:
                while time.monotonic() < until:
                    await client.publish(channels[(p + sent) % len(channels)], payload)
                    sent += 1
            finally:
                await client.aclose()
            return sent

        reading = [asyncio.create_task(read(i)) for i in range(len(pubsubs))]
        before = await counters.take(flush=0.0)
        until = time.monotonic() + options.ceiling_seconds
        sent = await asyncio.gather(*(publish(p, until) for p in range(options.publishers)))
        after = await counters.take(flush=0.0)
        for task in reading:
            task.cancel()
        for pubsub, reader in zip(pubsubs, readers, strict=True):
            await pubsub.aclose()
            await reader.aclose()
        return difference(after, before), sum(sent), received

    window, sent, received = asyncio.run(run())
    seconds = options.ceiling_seconds
    per_publish_cpu = window["cpu.redis"] / max(1, sent)
    print(
        f"scale: redis ceiling publishers={options.publishers} subscribers="
        f"{options.subscribers} channels={options.channels} message={options.message_bytes} B "
        f"seconds={seconds:g}: {sent / seconds:.0f} PUBLISH/s (sent {sent}, received "
        f"{sum(received)}: {sum(received) / seconds:.0f}/s)"
    )
    print(
        f"  redis cpu/publish={per_publish_cpu * 1e6:.1f} us (at "
        f"{window['cpu.redis'] / seconds:.0%} of its one core: it would take "
        f"~{1 / max(per_publish_cpu, 1e-9):.0f} PUBLISH/s); in/publish="
        f"{window['redis.in'] / max(1, sent):.0f} B out/publish="
        f"{window['redis.out'] / max(1, sent):.0f} B; client cpu "
        f"{window['cpu.client'] / seconds:.0%} of a core; machine busy "
        f"{machine_share(window):.0%}"
    )
    sys.stdout.flush()


# --- the run -------------------------------------------------------------------------------


def header(options: argparse.Namespace) -> str:
    return (
        f"bench-scale: cores={os.cpu_count()} (load average {os.getloadavg()[0]:.1f}), own "
        f"Redis and PostgreSQL ({'durable' if options.durable else 'not durable'}); play: "
        f"tables={options.tables} of 4 signed-in players on 1 daphne, open loop, pace "
        f"{options.pace[0]:g}-{options.pace[1]:g} s per move per table, hands lengthened to "
        f"versions {options.lengthen[0]}-{options.lengthen[1]}, players {options.players}, "
        f"seconds={options.seconds:g}, background window {options.quiet_seconds:g} s; idle: "
        f"{options.idle_sockets} sockets x {options.idle_seconds:g} s; ceilings "
        f"{options.ceiling_seconds:g} s: postgres {options.writers} writers, redis "
        f"{options.publishers} publishers {options.subscribers} subscribers "
        f"{options.channels} channels {options.message_bytes} B; clock ticks {CLOCK_TICKS}/s; "
        f"{code_version()}"
    )


def main() -> None:
    options = parse_options()
    raise_open_files()
    logs = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    print(header(options))
    sys.stdout.flush()
    try:
        with (
            stopped_on_sigterm(),
            own_services(logs, durable=options.durable) as (redis_server, postgres),
        ):
            start_django(fresh=True)
            counters = Counters(redis_server, postgres)
            try:
                with ExitStack() as stack:
                    start_workers(stack, logs)
                    played = play(options, counters, logs)
                    report_play(played, options, logs)
                    if options.idle_sockets:
                        idle(options, counters, logs)
                postgres_ceiling(options, counters, played.hands)
                redis_ceiling(options, counters)
            finally:
                counters.close()
    except KeyboardInterrupt:
        print("interrupted: every process this run started has been stopped")
        raise SystemExit(130) from None
    finally:
        print(f"logs: {logs}")


if __name__ == "__main__":
    main()
