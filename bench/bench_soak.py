"""Live tables played for half an hour: does anything grow? (`make bench-soak`)

The production shape of ``make bench-load`` (``bench.bench_load``'s machinery, imported):
production settings, PostgreSQL, Redis, the Celery worker and beat, ``--daphne`` daphnes
(default 2) with every socket of a table on one of them (``--proxy none``, as
``--route table`` routes them) or all sockets through nginx (``--proxy nginx``). N
tables (default 250) of four signed-in players, one real websocket each, greedy players
on the open-loop schedule (a table's next move due 1 to 3 s after the previous one was
due), for ``--minutes`` (default 30). Hands end and new ones are dealt as the players
play them; a table whose match ended is given a rematch by its owner and plays on.

Every ``--window-minutes`` (default 5) and at the end it prints one line per window:

    window K: M-M min moves=.. (../s) p50=.. p99=.. ms errors=.. cpu/move=.. ms
              stolen=..% tables moved=../N new hands=.. rematches=..
              hands in play=.. actions on average
      rss MB: daphne1=.. daphne2=.. worker=.. beat=.. client=..;
      postgres connections=..; redis clients=.. (ours ..) keys=..
      collections: daphne1 longest=.. ms (gen .., cpu .. ms) complete passes=.. set aside=..

(the hands in play: the mean of their actions so far at the window's end, from the
database: a move's write carries its hand's history, and a hand its players never end
runs until ``--max-actions`` (the rules' 500, some 17 minutes at this pace) cuts it
off, so until then the load itself costs more per move; RSS at the window's end;
PostgreSQL's connections to the bench database from ``pg_stat_activity``; Redis's
``connected_clients`` of the whole server and those on our database from ``CLIENT
LIST``; the keys under our prefix; each daphne's longest collection pause in the window,
the complete passes it made and how many objects it holds set aside, from its log's
``core.collector`` lines, one a minute: ``GC_FULL_EVERY`` in the environment asks for
the complete pass more often than every 600 s). Then the verdict, by these rules
(printed with it):

* **flat memory**: each daphne's and the worker's RSS at the end is at most 10 % above
  its RSS at the end of the first window (the first window holds the warm-up: the
  pools, the templates, the first hands of every table);
* **no drift in latency**: the last window's p99 is at most 1.5 times the second
  window's (the first's when there are only two);
* **play never stopped**: 0 errors, and every table made a move in every window;
* **no long stop**: no collection stopped a daphne for more than 50 ms.

Uses its own database ``pan_bench_soak`` (dropped and created at every run), channel
prefix and Celery queue ``pan-bench-soak`` (Redis database 3 unless ``REDIS_URL`` says
otherwise). Every process it starts is stopped at the end, also on Ctrl-C or SIGTERM;
the servers' logs stay in a temporary folder (printed at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from bench import production_site, start_django, use_services

production_site("bench-soak")
use_services(database="pan_bench_soak", queue="pan-bench-soak")

from bench.bench_load import (  # noqa: E402
    BASE_SECONDS,
    CpuMeter,
    Server,
    add_socket_options,
    code_version,
    load_run,
    raise_open_files,
    redis_client,
    rss_kb,
    seat_tables,
    site_seats,
    start_daphnes,
    start_nginx,
    start_workers,
    stopped_on_sigterm,
    tracebacks,
)
from bench.load_client import COLLECTOR, Errors, LoadRun, quantile  # noqa: E402
from games.engine import Rules  # noqa: E402

RSS_GROWTH = 0.10  # at most this much above the end of the first window
P99_DRIFT = 1.5  # the last window's p99 at most this times the second's
LONGEST_PAUSE_MS = 50.0  # no collection stops a daphne for longer


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="of play")
    parser.add_argument("--window-minutes", type=float, default=5.0, help="one line each")
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--daphne", type=int, default=2, help="processes")
    parser.add_argument(
        "--proxy",
        choices=("none", "nginx"),
        default="none",
        help="none: each table's sockets straight to daphne (table i on daphne i mod D); "
        "nginx: through nginx, which routes them by the table's path",
    )
    parser.add_argument("--pace", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"))
    parser.add_argument("--catch-up", type=float, default=4.0, help="s of backlog at most")
    parser.add_argument("--players", choices=("greedy", "random"), default="greedy")
    parser.add_argument(
        "--max-actions",
        type=int,
        default=None,
        help="the hands' cut-off (the rules' default 500: a hand its players never end "
        "runs some 17 minutes at this pace before it is cut off)",
    )
    add_socket_options(parser)
    parser.set_defaults(give_up=60.0)  # a soak stops only when the site stopped playing
    parser.add_argument("--label", default="", help="printed in the header (e.g. the commit)")
    return parser.parse_args()


# --- what a window shows -----------------------------------------------------------------


@dataclass
class Window:
    number: int
    began: float  # minutes since play began
    ended: float
    moves: int
    p50: float
    p99: float
    errors: Errors
    cpu_per_move_ms: float
    stolen: float  # share of the cores' time the hypervisor gave to other machines
    tables_moved: int
    new_hands: int
    rematches: int
    hand_actions: float  # the mean actions so far of the hands in play at the end
    rss_mb: dict[str, float]
    postgres_connections: int
    redis_clients: int
    redis_clients_ours: int
    redis_keys: int
    collections: dict[str, Collections]

    def lines(self, tables: int) -> list[str]:
        seconds = max(1e-6, (self.ended - self.began) * 60)
        rss = " ".join(f"{name}={mb:.0f}" for name, mb in self.rss_mb.items())
        return [
            f"window {self.number}: {self.began:.1f}-{self.ended:.1f} min moves={self.moves} "
            f"({self.moves / seconds:.1f}/s) p50={self.p50:.0f} p99={self.p99:.0f} ms "
            f"{self.errors.summary()} cpu/move={self.cpu_per_move_ms:.1f} ms "
            f"stolen={self.stolen:.0%} tables moved={self.tables_moved}/{tables} "
            f"new hands={self.new_hands} rematches={self.rematches} "
            f"hands in play={self.hand_actions:.0f} actions on average",
            f"  rss MB: {rss}; postgres connections={self.postgres_connections}; redis "
            f"clients={self.redis_clients} (ours {self.redis_clients_ours}) "
            f"keys={self.redis_keys}",
            "  collections: "
            + " ".join(f"{name} {seen.summary()}" for name, seen in self.collections.items()),
            *(f"  {text}" for text in self.errors.details()),
        ]


@dataclass
class Collections:
    """A daphne's collections in a window, as its collector logged them."""

    longest_ms: float = 0.0
    generation: int = -1
    cpu_ms: float = 0.0  # the CPU its thread spent in the longest (less: the core was taken)
    complete: list[float] | None = None  # the complete passes' durations, ms
    dead: list[int] | None = None  # the dead cycles each complete pass freed
    aside: int = 0  # objects set aside at its last report

    def summary(self) -> str:
        passes = (
            ",".join(
                f"{ms:.0f} ({dead} dead cycles)"
                for ms, dead in zip(self.complete or [], self.dead or [], strict=True)
            )
            or "none"
        )
        return (
            f"longest={self.longest_ms:.1f} ms (gen {self.generation}, cpu "
            f"{self.cpu_ms:.1f} ms) "
            f"complete passes={passes} ms set aside={self.aside}"
        )


_PAUSES = re.compile(
    r"the longest ([\d.]+) ms \(generation (-?\d+), ([\d.]+) ms of CPU\); (\d+) objects set aside"
)
_COMPLETE = re.compile(
    r"complete collection in (\d+) ms: of \d+ objects set aside, (\d+) were dead cycles"
)


class CollectorLogs:
    """What each daphne's collector logged (``core.collector``) since the last read."""

    def __init__(self, logs: Path, daphnes: list[Server]) -> None:
        self.files = {s.name: next(logs.glob(f"*-{s.port}.log")) for s in daphnes}
        self.read_to = dict.fromkeys(self.files, 0)

    def take(self) -> dict[str, Collections]:
        taken = {}
        for name, path in self.files.items():
            with path.open(errors="replace") as log:
                log.seek(self.read_to[name])
                text = log.read()
                self.read_to[name] = log.tell()
            passes = _COMPLETE.findall(text)
            seen = Collections(
                complete=[float(ms) for ms, _ in passes], dead=[int(dead) for _, dead in passes]
            )
            for longest, generation, cpu, aside in _PAUSES.findall(text):
                seen.aside = int(aside)
                if float(longest) > seen.longest_ms:
                    seen.longest_ms, seen.generation = float(longest), int(generation)
                    seen.cpu_ms = float(cpu)
            taken[name] = seen
        return taken


def postgres_connections() -> int:
    """Connections to the bench database: the servers' (this question's own left out)."""
    import psycopg

    with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchone()
    return row[0] if row else 0


def hand_actions() -> float:
    """The mean actions so far of the hands in play: what a move's write and render
    carry grows with its hand's history, so a load whose hands lengthen costs more per
    move without the process changing (hands nobody ends run to the cut-off)."""
    import psycopg

    from games.models import Action, Hand

    hands, actions = Hand._meta.db_table, Action._meta.db_table
    with psycopg.connect(os.environ["DATABASE_URL"]) as conn:
        row = conn.execute(
            f"SELECT avg(n) FROM (SELECT count(a.hand_id) AS n FROM {hands} h "
            f"LEFT JOIN {actions} a ON a.hand_id = h.id WHERE h.outcome IS NULL "
            "GROUP BY h.id) AS live"
        ).fetchone()
    return float(row[0] or 0.0) if row else 0.0


def redis_state() -> tuple[int, int, int]:
    """Redis's connected clients (the whole server; other work shares it), those on our
    database, and the keys under our prefix."""
    client = redis_client()
    database = client.connection_pool.connection_kwargs.get("db", 0)
    everyone = client.info("clients")["connected_clients"]
    ours = sum(1 for c in client.client_list() if int(c.get("db", -1)) == database)
    prefix = os.environ["CHANNELS_PREFIX"]
    keys = sum(1 for _ in client.scan_iter(match=f"{prefix}*", count=1000))
    return everyone, ours, keys


def take_window(
    run: LoadRun,
    meter: CpuMeter,
    daphnes: list[Server],
    watched: list[Server],
    collector_logs: CollectorLogs,
    *,
    number: int,
    began: float,
    ended: float,
) -> Window:
    """What the window just played showed; the run's measures then start again empty, so
    the load generator keeps nothing from one window to the next."""
    moves = len(run.latencies)
    redis_clients, redis_clients_ours, redis_keys = redis_state()
    window = Window(
        number=number,
        began=began,
        ended=ended,
        moves=moves,
        p50=quantile(run.latencies, 0.5),
        p99=quantile(run.latencies, 0.99),
        errors=run.errors,
        cpu_per_move_ms=meter.used(daphnes) * 1000 / max(1, moves),
        stolen=meter.shares()["stolen"],
        tables_moved=len({table.index for table, _ in run.journal}),
        new_hands=run.new_hands,
        rematches=run.rematches,
        hand_actions=hand_actions(),
        rss_mb={
            **{s.name: rss_kb(s.proc.pid) / 1024 for s in daphnes + watched},
            "client": rss_kb(os.getpid()) / 1024,
        },
        postgres_connections=postgres_connections(),
        redis_clients=redis_clients,
        redis_clients_ours=redis_clients_ours,
        redis_keys=redis_keys,
        collections=collector_logs.take(),
    )
    for measures in (
        run.latencies,
        run.from_due,
        run.versions,
        run.first_latencies,
        run.timeline,
        run.journal,
        run.loop_lag_ms,
    ):
        measures.clear()
    run.errors = Errors()
    run.moves_sent = run.new_hands = run.rematches = run.frames = run.frame_characters = 0
    run.frame_bytes = 0
    # The generator's collector never makes its complete pass while a run plays
    # (``load_client.COLLECTOR``): made here, between two windows, the garbage in cycles
    # of the window before does not pile up for the whole soak.
    COLLECTOR.collect_all()
    return window


# --- the verdict -------------------------------------------------------------------------


def verdict(windows: list[Window], tables: int, grown: list[str]) -> list[str]:
    """The goal's three rules, each with its figures; the last line says whether all hold."""
    first, last = windows[0], windows[-1]
    lines, held = [], True
    for name in grown:
        start, end = first.rss_mb[name], last.rss_mb[name]
        growth = end / start - 1 if start else 0.0
        ok = growth <= RSS_GROWTH
        held &= ok
        lines.append(
            f"  rss {name}: {start:.0f} MB at the end of window 1, {end:.0f} MB at the end "
            f"({growth:+.1%}; at most {RSS_GROWTH:+.0%}): {'flat' if ok else 'GROWS'}"
        )
    reference = windows[1] if len(windows) > 2 else first
    ratio = last.p99 / reference.p99 if reference.p99 else float("inf")
    ok = ratio <= P99_DRIFT
    held &= ok
    lines.append(
        f"  p99: window {last.number} {last.p99:.0f} ms against window {reference.number} "
        f"{reference.p99:.0f} ms (x{ratio:.2f}; at most x{P99_DRIFT:g}): "
        f"{'no drift' if ok else 'DRIFTS'}"
    )
    errors = sum(w.errors.total() for w in windows)
    still = min(w.tables_moved for w in windows)
    ok = errors == 0 and still == tables
    held &= ok
    lines.append(
        f"  play: errors={errors}, fewest tables that moved in a window {still}/{tables}: "
        f"{'never stopped' if ok else 'STOPPED OR FAILED'}"
    )
    longest = max((seen.longest_ms, name) for w in windows for name, seen in w.collections.items())
    ok = longest[0] <= LONGEST_PAUSE_MS
    held &= ok
    lines.append(
        f"  collections: the longest stopped {longest[1]} for {longest[0]:.1f} ms (at most "
        f"{LONGEST_PAUSE_MS:g}): {'no long stop' if ok else 'LONG STOP'}"
    )
    lines.insert(0, f"verdict: {'FLAT' if held else 'NOT FLAT'}")
    return lines


# --- the run -----------------------------------------------------------------------------


async def soak(
    run: LoadRun,
    daphnes: list[Server],
    watched: list[Server],
    options: argparse.Namespace,
    tables: int,
    collector_logs: CollectorLogs,
) -> list[Window]:
    """Connect, then play window after window, printing each as it ends."""
    windows: list[Window] = []
    try:
        await run.connect(concurrency=options.connect_concurrency, budget=options.connect_budget)
        await run.warm_up(options.warmup_timeout)
        print(
            f"connected: sockets={run.connected()}/{len(run.seats)} "
            f"{run.handshakes()}, "
            f"{run.connect_seconds:.1f} s, first renders {run.warmup_seconds:.1f} s more; "
            f"{run.errors.summary()}"
        )
        sys.stdout.flush()
        started, total = time.monotonic(), options.minutes * 60
        while (elapsed := time.monotonic() - started) < total - 1:
            meter = CpuMeter(daphnes + watched)  # also gives the window's stolen share
            seconds = min(options.window_minutes * 60, total - elapsed)
            await run.play(seconds, give_up=options.give_up)
            window = take_window(
                run,
                meter,
                daphnes,
                watched,
                collector_logs,
                number=len(windows) + 1,
                began=elapsed / 60,
                ended=(time.monotonic() - started) / 60,
            )
            windows.append(window)
            for line in window.lines(tables):
                print(line)
            sys.stdout.flush()
            if run.stopped_early:
                print(f"stopped early: {run.stopped_early}")
                break
    finally:
        await run.close()
    return windows


def header(options: argparse.Namespace) -> str:
    low, high = options.pace
    return (
        f"bench-soak: cores={os.cpu_count()} (load average {os.getloadavg()[0]:.1f}), "
        f"minutes={options.minutes:g} in windows of {options.window_minutes:g}, "
        f"tables={options.tables} of 4 signed-in players, daphne={options.daphne} "
        f"proxy={options.proxy}, players {options.players}, open pacing {low:g}-{high:g} s "
        f"per move per table (catching up at most {options.catch_up:g} s), "
        f"clock={BASE_SECONDS}+0 s, max_actions={options.max_actions or Rules().max_actions}, "
        f"bots=0; collector's complete pass asked every "
        f"{os.environ.get('GC_FULL_EVERY', '600')} s; python {platform.python_version()}; "
        f"{code_version()}{'; ' + options.label if options.label else ''}"
    )


def main() -> None:
    options = parse_options()
    raise_open_files()
    start_django(fresh=True)
    logs = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    print(header(options))
    sys.stdout.flush()
    try:
        with stopped_on_sigterm(), ExitStack() as stack:
            workers = start_workers(stack, logs)
            daphnes = start_daphnes(stack, options.daphne, logs=logs, name="daphne")
            via = start_nginx(stack, daphnes, logs=logs) if options.proxy == "nginx" else None
            data = seat_tables(options.tables, label="soak", max_actions=options.max_actions)
            run = load_run(site_seats(data, daphnes, route="table", via=via), options)
            collector_logs = CollectorLogs(logs, daphnes)
            windows = asyncio.run(
                soak(run, daphnes, workers, options, options.tables, collector_logs)
            )
            grown = [s.name for s in daphnes] + [s.name for s in workers if s.name != "beat"]
            if windows:
                for line in verdict(windows, options.tables, grown):
                    print(line)
            errors = tracebacks(logs)
            if errors:
                print(f"server logs: {errors} tracebacks")
    except KeyboardInterrupt:
        print("interrupted: every process this run started has been stopped")
        raise SystemExit(130) from None
    finally:
        print(f"logs: {logs}")


if __name__ == "__main__":
    main()
