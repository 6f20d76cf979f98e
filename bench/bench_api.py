"""API bots under load (`make bench-api`): N bot accounts (default 100) play T tables
(default 25, so four seats each) through the Bot API's streams against a daphne of the
site with production settings, a Celery worker (the next hands), PostgreSQL and Redis.

Each bot does what the reference client does (``pan_bot``), on asyncio with a small
HTTP/1.1 client of its own (the standard library has no asynchronous one): it opens its
event stream, opens the game stream of each ``gameStart``, and whenever a ``gameState``
says it is its turn chooses a move as the site's greedy bot would and POSTs it at once
(closed loop: no thinking time, ``--think`` adds some). Measured, after ``--warmup``
seconds, for ``--seconds``:

    api: bots=N tables=T moves=M moves/s=.. p50=.. p95=.. p99=.. max=.. ms
         errors=E (refused=R http=H dropped=D lost=L) daphne_cpu=..% cpu/move=.. ms

The latency of a move is the time from its POST until the last of its table's seats has
read the resulting ``gameState`` on its game stream; ``lost``: a move some seat never
read. Uses its own database ``pan_bench_api`` (dropped and created at every run), Redis
database 3, key prefix and Celery queue ``pan-bench-api``; every process it starts is
stopped at the end. The servers' logs stay in a temporary folder (printed at the end).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import production_site, start_django, use_services
from bench.processes import (
    VENV_BIN,
    base_env,
    celery_worker_args,
    free_port,
    running,
    wait_for_log,
    wait_for_port,
)

production_site("bench-api")
use_services(database="pan_bench_api", queue="pan-bench-api")

BASE_SECONDS = 3600  # nobody runs out of time: the load is the moves
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--tables", type=int, default=25)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured play")
    parser.add_argument("--warmup", type=float, default=5.0, help="play before measuring")
    parser.add_argument("--think", type=float, default=0.0, help="s a bot waits before a move")
    options = parser.parse_args()
    seats, extra = divmod(options.bots, options.tables)
    if extra or not 2 <= seats <= 4:
        raise SystemExit("--bots must be 2, 3 or 4 times --tables")
    return options


# --- a small asynchronous HTTP/1.1 client ------------------------------------------------------


class HttpError(Exception):
    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"HTTP {status}: {body[:200]!r}")
        self.status = status


def _request(method: str, path: str, token: str, body: bytes = b"") -> bytes:
    head = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Authorization: Bearer {token}",
        "Accept-Language: en",
    ]
    if body:
        head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    head.append("Connection: close")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def _head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    status = int((await reader.readline()).split()[1])
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


async def post(port: int, path: str, token: str, payload: dict[str, Any]) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(_request("POST", path, token, json.dumps(payload).encode()))
        status, headers = await _head(reader)
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        else:
            body = await reader.read()
    finally:
        writer.close()
    if status != 200:
        raise HttpError(status, body)
    return json.loads(body)


async def stream(port: int, path: str, token: str, opened: asyncio.Event | None = None):
    """The lines of an NDJSON stream (chunked), keep-alives left out."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(_request("GET", path, token))
        status, _headers = await _head(reader)
        if status != 200:
            raise HttpError(status, await reader.read(500))
        if opened is not None:
            opened.set()
        buffer = b""
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            if size == 0:
                return
            buffer += await reader.readexactly(size)
            await reader.readexactly(2)
            while b"\n" in buffer:
                line, _, buffer = buffer.partition(b"\n")
                if line.strip():
                    yield json.loads(line)
    finally:
        writer.close()


# --- the bots --------------------------------------------------------------------------------


@dataclass
class Move:
    table: int
    hand: int
    version: int  # the version the move makes
    posted: float
    seen_by: set[int] = field(default_factory=set)  # the bots (by index) that read it
    done: float | None = None
    measured: bool = False


@dataclass
class Run:
    port: int
    seats: int
    think: float
    measuring: bool = False
    moves: list[Move] = field(default_factory=list)
    pending: dict[int, list[Move]] = field(default_factory=dict)  # by table, not yet seen by all
    errors: Counter = field(default_factory=Counter)

    def posted(self, move: Move) -> None:
        self.moves.append(move)
        self.pending.setdefault(move.table, []).append(move)

    def refused(self, move: Move) -> None:
        self.moves.remove(move)
        self.pending[move.table].remove(move)

    def saw(self, seat: int, table: int, hand: int | None, version: int | None) -> None:
        """Bot ``seat`` read its table at ``hand``/``version``: it has every move that led
        there (a stream under load may skip to the newest state)."""
        if hand is None or version is None:
            return
        waiting = self.pending.get(table, [])
        for move in list(waiting):
            if move.hand < hand or (move.hand == hand and move.version <= version):
                move.seen_by.add(seat)
                if len(move.seen_by) == self.seats:
                    move.done = time.monotonic()
                    waiting.remove(move)


async def bot(run: Run, index: int, token: str, opened: asyncio.Event) -> None:
    from games.bots import choose_move

    games: dict[int, asyncio.Task] = {}

    async def play(table: int) -> None:
        answered: set[tuple[int, int]] = set()
        try:
            async for line in stream(run.port, f"/api/bot/game/stream/{table}", token):
                state = line.get("state") if line["type"] == "gameFull" else line
                if line["type"] not in ("gameFull", "gameState"):
                    continue
                run.saw(index, table, state["handId"], state["version"])
                if not state["myTurn"] or (state["handId"], state["version"]) in answered:
                    continue
                answered.add((state["handId"], state["version"]))
                seed = f"{state['handId']}:{state['version']}"
                move = choose_move("greedy", state["view"], seed=seed)
                body: dict[str, Any] = {"version": state["version"], "handId": state["handId"]}
                if move["type"] == "play":
                    body["cards"] = move["cards"]
                else:
                    body["pickup"] = move["count"]
                if run.think:
                    await asyncio.sleep(random.uniform(0, 2 * run.think))
                record = Move(
                    table,
                    state["handId"],
                    state["version"] + 1,
                    time.monotonic(),
                    measured=run.measuring,
                )
                run.posted(record)
                try:
                    await post(run.port, f"/api/bot/game/{table}/move", token, body)
                except HttpError as exc:
                    run.refused(record)
                    run.errors["refused" if exc.status in (400, 409) else "http"] += 1
        except (OSError, asyncio.IncompleteReadError, HttpError):
            run.errors["dropped"] += 1

    try:
        async for line in stream(run.port, "/api/stream/event", token, opened):
            if line["type"] == "gameStart" and line["game"]["matchId"] not in games:
                games[line["game"]["matchId"]] = asyncio.ensure_future(
                    play(line["game"]["tableId"])
                )
    except (OSError, asyncio.IncompleteReadError, HttpError):
        run.errors["dropped"] += 1
    finally:
        for task in games.values():
            task.cancel()


# --- set-up ---------------------------------------------------------------------------------


def create_bots(bots: int, tables: int) -> tuple[list[str], list[int]]:
    """``bots`` bot accounts with tokens, seated ``bots // tables`` to a table."""
    from accounts.models import User
    from api import services as api_services
    from games import services
    from games.engine import Rules

    seats = bots // tables
    tokens, table_ids = [], []
    users = [
        User.objects.create_user(username=f"apibot{i}", is_bot_account=True) for i in range(bots)
    ]
    for user in users:
        tokens.append(
            api_services.token_create(owner=user, name="bench", scopes=["bot:play"]).token
        )
    for t in range(tables):
        group = users[t * seats : (t + 1) * seats]
        table = services.table_create(
            owner=group[0], name=f"api {t}", rules=Rules(), seats=seats, base_seconds=BASE_SECONDS
        )
        for user in group[1:]:
            services.table_sit(table_id=table.pk, user=user)
        table_ids.append(table.pk)
    return tokens, table_ids


def start_matches(table_ids: list[int]) -> None:
    from games import services
    from games.models import Table

    for table_id in table_ids:
        owner = Table.objects.select_related("owner").get(pk=table_id).owner
        services.match_start(table_id=table_id, by=owner)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure(options: argparse.Namespace, port: int, daphne_pid: int) -> str:
    tokens, table_ids = await asyncio.to_thread(create_bots, options.bots, options.tables)
    run = Run(port=port, seats=options.bots // options.tables, think=options.think)
    opened = [asyncio.Event() for _ in tokens]
    tasks = [asyncio.ensure_future(bot(run, i, token, opened[i])) for i, token in enumerate(tokens)]
    await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 60)
    await asyncio.to_thread(start_matches, table_ids)
    await asyncio.sleep(options.warmup)
    run.measuring = True
    started, cpu_before = time.monotonic(), cpu_seconds(daphne_pid)
    await asyncio.sleep(options.seconds)
    run.measuring = False
    elapsed, cpu = time.monotonic() - started, cpu_seconds(daphne_pid) - cpu_before
    await asyncio.sleep(2.0)  # the last moves reach their seats
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    measured = [m for m in run.moves if m.measured]
    latencies = [(m.done - m.posted) * 1000 for m in measured if m.done is not None]
    lost = sum(1 for m in measured if m.done is None)
    errors = sum(run.errors.values()) + lost
    rate = len(measured) / elapsed if elapsed else 0.0
    return (
        f"api: bots={options.bots} tables={options.tables} moves={len(measured)} "
        f"moves/s={rate:.1f} p50={quantile(latencies, 0.5):.0f} "
        f"p95={quantile(latencies, 0.95):.0f} p99={quantile(latencies, 0.99):.0f} "
        f"max={max(latencies, default=float('nan')):.0f} ms "
        f"mean={statistics.fmean(latencies) if latencies else float('nan'):.0f} ms "
        f"errors={errors} (refused={run.errors['refused']} http={run.errors['http']} "
        f"dropped={run.errors['dropped']} lost={lost}) "
        f"daphne_cpu={100 * cpu / elapsed:.0f}% "
        f"cpu/move={1000 * cpu / max(1, len(measured)):.1f} ms"
    )


def main() -> None:
    options = parse_options()
    start_django(fresh=True)
    logs = Path(tempfile.mkdtemp(prefix="bench-api-"))
    print(
        f"bench-api: {options.bots} bot accounts on {options.tables} tables, greedy moves, "
        f"think={options.think}s, warmup={options.warmup}s, measured {options.seconds}s; "
        f"{os.cpu_count()} cores"
    )
    sys.stdout.flush()
    previous = signal.signal(signal.SIGTERM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
    try:
        with ExitStack() as stack:
            from pan_site.management.commands.serve import DAPHNE_OPTIONS

            env = base_env()
            worker_log = logs / "worker.log"
            worker = stack.enter_context(
                running(celery_worker_args(concurrency=4), env=env, log=worker_log)
            )
            wait_for_log(worker_log, "ready.", proc=worker, timeout=60)
            port = free_port()
            daphne_log = logs / "daphne.log"
            app = "pan_site.asgi:application"
            args = [str(VENV_BIN / "daphne"), *DAPHNE_OPTIONS, "-b", "127.0.0.1", "-p", str(port)]
            daphne = stack.enter_context(running([*args, app], env=env, log=daphne_log))
            wait_for_port(port, proc=daphne, log=daphne_log, timeout=60)
            print(asyncio.run(measure(options, port, daphne.pid)))
    except KeyboardInterrupt:
        print("interrupted: every process this run started has been stopped")
        raise SystemExit(130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
        print(f"logs: {logs}")


if __name__ == "__main__":
    main()
