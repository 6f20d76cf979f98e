"""What ``games.rows`` saves a move against the ORM (`python -m bench.bench_rows`).

For each piece of the move's database work that ``games.rows`` does beside the ORM, the
CPU of this process per call (``time.process_time``, every thread of the process: the
ORM from the event loop runs in the thread pool) with the bypass and with the ORM doing
the same, in alternating batches on one hand in play late in a hand (its state tens of
kilobytes), on PostgreSQL:

- ``hand_for_move``: the hand with its table's id and its match's players, from a thread
  (ORM: ``annotate(...).get`` and ``filter(...).order_by``);
- ``hand_for_move_async``: the same from the event loop on ``live.adb``'s connection in
  one round trip (ORM: the same in the thread pool, ``live.in_pool``);
- ``move_if_unchanged``: a move's compare-and-set write, the hand's fields and the log's
  row, from a thread inside a transaction (ORM: ``filter(pk, version).update``, the
  players read again, ``bulk_create``, in a savepoint);
- ``move_if_unchanged_async``: the same from the event loop, one statement (ORM: the
  same in the thread pool);
- ``copied``: the copy of the live room's hand a move is judged on, made field by field
  (ORM: ``copy.copy``, which ``games.services.moves`` uses).

Each saving is printed against the CPU of a whole move: ``hand_act``'s in this process
(judge, write, the events queued) and, given with ``--move-cpu-ms``, daphne's CPU per
move at 250 tables from ``bench.bench_load``. Uses its own database (``pan_bench_rows``)
unless DATABASE_URL says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import time
import uuid
from collections.abc import Callable
from typing import Any

from bench import start_django, use_services

use_services(database="pan_bench_rows", queue="pan-bench-rows")


def shallow_copy(instance: Any) -> Any:
    """A saved row's copy made beside ``copy.copy`` (no pickling protocol): its own
    ``__dict__``, state and cache of related rows."""
    cls = instance.__class__
    new = cls.__new__(cls)
    new.__dict__.update(instance.__dict__)
    state = instance._state
    new_state = new._state = state.__class__.__new__(state.__class__)
    new_state.__dict__.update(state.__dict__)
    new_state.fields_cache = dict(state.fields_cache)
    return new


def cpu_per_call(run: Callable[[], Any], calls: int) -> float:
    """ms of this process's CPU per call of ``run``."""
    started = time.process_time()
    for _ in range(calls):
        run()
    return (time.process_time() - started) * 1000 / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="per batch")
    parser.add_argument("--rounds", type=int, default=5, help="alternating batches")
    parser.add_argument(
        "--move-cpu-ms", type=float, default=0.0, help="daphne's CPU per move (bench_load)"
    )
    options = parser.parse_args()
    start_django(fresh=True)

    from django.db import transaction
    from django.db.models import F

    from accounts.models import User
    from games import rows, services
    from games.engine import Rules, move_to_json
    from games.models import Action, Hand, MatchPlayer, Table
    from live import adb, in_pool

    def make_table(*, players: int, base_seconds: int) -> Table:
        users = [
            User.objects.create_user(username=f"rows-{uuid.uuid4().hex[:12]}")
            for _ in range(players)
        ]
        table = services.table_create(
            owner=users[0], name="bench_rows", rules=Rules(), base_seconds=base_seconds
        )
        for user in users[1:]:
            services.table_sit(table_id=table.pk, user=user)
        return table

    table = make_table(players=4, base_seconds=3600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    users = {p.seat: p.user for p in hand.match.players.select_related("user")}
    # Late in a long hand: the state is large, as the live room's hands are.
    while hand.version < 30 and not hand.is_over:
        state = hand.engine_state
        legal = state.legal_moves()
        pick = next((m for m in legal if move_to_json(m)["type"] == "pickup"), legal[0])
        hand = services.execute(
            services.move_action(
                move_to_json(pick), hand_id=hand.pk, version=hand.version, user=users[state.to_move]
            )
        )
    hand_id = hand.pk
    players = list(MatchPlayer.objects.filter(match_id=hand.match_id).order_by("seat"))
    names = ("state", "version", "clock_ms", "turn_started_at", "deadline")
    index = [10_000]

    def orm_read() -> tuple[Hand, list[MatchPlayer]]:
        row = Hand.objects.annotate(table_id=F("match__table_id")).get(pk=hand_id)
        return row, list(MatchPlayer.objects.filter(match_id=row.match_id).order_by("seat"))

    def next_write() -> tuple[Hand, list[Action], int]:
        row = Hand.objects.get(pk=hand_id)
        index[0] += 1
        action = Action(hand=row, index=index[0], seat=0, move={}, entry={}, time_used_ms=0)
        version = row.version
        row.version += 1
        return row, [action], version

    def orm_write(row: Hand, actions: list[Action], version: int) -> bool:
        with transaction.atomic():
            values = {name: getattr(row, name) for name in names}
            if Hand.objects.filter(pk=row.pk, version=version).update(**values) != 1:
                return False
            now = list(MatchPlayer.objects.filter(match_id=row.match_id).order_by("seat"))
            if rows.players_key(now) != rows.players_key(players):
                transaction.set_rollback(True)
                return False
            Action.objects.bulk_create(actions)
        return True

    def bypass_write(row: Hand, actions: list[Action], version: int) -> bool:
        with transaction.atomic():
            return rows.move_if_unchanged(row, names, actions, version=version, players=players)

    def timed_write(write: Callable[[Hand, list[Action], int], bool]) -> Callable[[], float]:
        def batch() -> float:
            spent = 0.0
            for _ in range(options.calls):
                args = next_write()
                started = time.process_time()
                assert write(*args)
                spent += time.process_time() - started
            return spent * 1000 / options.calls

        return batch

    async def bypass_read_async() -> None:
        async with adb.CONNECTIONS.connection(pipeline=True) as conn:
            await rows.hand_for_move_async(conn, hand_id)

    async def orm_read_async() -> None:
        await in_pool(orm_read)()

    async def bypass_write_async(row: Hand, actions: list[Action], version: int) -> bool:
        async with adb.CONNECTIONS.connection() as conn:
            return await rows.move_if_unchanged_async(
                conn, row, names, actions, version=version, players=players
            )

    async def orm_write_async(row: Hand, actions: list[Action], version: int) -> bool:
        return await in_pool(orm_write)(row, actions, version)

    def loop_batch(make: Callable[[], Any], *, write: bool) -> Callable[[], float]:
        async def run() -> float:
            spent = 0.0
            for _ in range(options.calls):
                args = await in_pool(next_write)() if write else ()
                started = time.process_time()
                result = await make(*args)
                spent += time.process_time() - started
                assert result is not False
            return spent * 1000 / options.calls

        loop = asyncio.new_event_loop()
        return lambda: loop.run_until_complete(run())

    row = Hand.objects.annotate(table_id=F("match__table_id")).get(pk=hand_id)

    def one_move() -> float:
        """CPU of ``hand_act`` (sync) on a fresh hand, per move."""
        spent, made = 0.0, 0
        t = make_table(players=2, base_seconds=3600)
        services.match_start(table_id=t.pk, by=t.owner)
        h = Hand.objects.get(match__table=t)
        by = {p.seat: p.user for p in h.match.players.select_related("user")}
        while made < options.calls // 10 and not h.is_over:
            state = h.engine_state
            move = move_to_json(state.legal_moves()[0])
            started = time.process_time()
            h = services.execute(
                services.move_action(move, hand_id=h.pk, version=h.version, user=by[state.to_move])
            )
            spent += time.process_time() - started
            made += 1
        return spent * 1000 / max(made, 1)

    pieces: dict[str, tuple[Callable[[], float], Callable[[], float]]] = {
        "hand_for_move": (
            lambda: cpu_per_call(lambda: rows.hand_for_move(hand_id), options.calls),
            lambda: cpu_per_call(orm_read, options.calls),
        ),
        "hand_for_move_async": (
            loop_batch(bypass_read_async, write=False),
            loop_batch(orm_read_async, write=False),
        ),
        "move_if_unchanged": (timed_write(bypass_write), timed_write(orm_write)),
        "move_if_unchanged_async": (
            loop_batch(bypass_write_async, write=True),
            loop_batch(orm_write_async, write=True),
        ),
        "copied": (
            lambda: cpu_per_call(lambda: shallow_copy(row), options.calls * 10),
            lambda: cpu_per_call(lambda: copy.copy(row), options.calls * 10),
        ),
    }
    figures: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in pieces}
    move_cpu: list[float] = []
    for _ in range(options.rounds):
        move_cpu.append(one_move())
        for name, (bypass, orm) in pieces.items():
            figures[name][0].append(bypass())
            figures[name][1].append(orm())
    move_ms = sorted(move_cpu)[len(move_cpu) // 2]
    print(
        f"bench-rows: PostgreSQL, state {len(str(row.state)) // 1000} k characters,"
        f" {options.calls} calls x {options.rounds} alternating rounds; CPU of this process"
    )
    print(f"hand_act (sync, whole move): median {move_ms:.3f} ms CPU per move")
    if options.move_cpu_ms:
        print(f"daphne per move (bench_load, given): {options.move_cpu_ms:.3f} ms")
    print("piece                     bypass ms  ORM ms   saving  of hand_act  of daphne's move")
    for name, (bypass_ms, orm_ms) in figures.items():
        b, o = sorted(bypass_ms)[len(bypass_ms) // 2], sorted(orm_ms)[len(orm_ms) // 2]
        of_daphne = f"{(o - b) / options.move_cpu_ms:7.1%}" if options.move_cpu_ms else "      -"
        print(
            f"{name:25} {b:8.3f} {o:8.3f} {o - b:8.3f}   {(o - b) / move_ms:7.1%}     {of_daphne}"
        )


if __name__ == "__main__":
    main()
