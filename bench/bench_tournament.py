"""Tournament throughput: ``python -m bench.bench_tournament`` (``make bench-tournament``).

Runs a tournament of 256 bots through the real services on a PostgreSQL database of its
own (``pan_bench_tournament``, dropped, created and migrated at every run): registration, the start,
every move through ``games.services.execute`` (the bot's choice from
``games.bots.choose_move``, from its own view), and the next hands and balancing through
``tournaments.services.tournament_advance`` called directly instead of waiting for Celery.
No websockets and no worker: the process runs in embedded mode (in-memory channel layer
and broker), so what leaves after each commit goes nowhere and touches no other database.

At the end it checks the invariants (one winner; everyone else eliminated with P-A-N;
places consistent with the Hand records) and prints wall time, hands played and hands/s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from games.models import Hand

BENCH_DATABASE = "postgres://postgres@127.0.0.1:5432/pan_bench_tournament"


def prepare_environment(database_url: str) -> None:
    """A database and a broker of the benchmark's own, set before Django reads settings."""
    os.environ["DATABASE_URL"] = database_url
    os.environ["REDIS_URL"] = ""  # embedded: nothing reaches a real worker or channel layer
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")


def silence_events() -> None:
    """Nobody listens here: no channel layer (``group_send`` returns at once) and no Celery
    messages (the loop below does what the tasks would do, without their countdowns)."""
    from celery.app.task import Task
    from django.conf import settings

    settings.CHANNEL_LAYERS = {}
    Task.apply_async = lambda *args, **kwargs: None


def recreate_database(*, synchronous_commit: bool) -> None:
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"] or None,
        password=db["PASSWORD"] or None,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{db["NAME"]}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{db["NAME"]}"')
        if not synchronous_commit:
            # A throwaway database: a commit need not wait for the disk (the sandbox's fsync
            # would otherwise dominate what is measured: the services).
            conn.execute(f'ALTER DATABASE "{db["NAME"]}" SET synchronous_commit = off')
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--bot", default="random", help="bot level: random, greedy or ismcts")
    parser.add_argument("--max-actions", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2, help="tables played at once")
    parser.add_argument("--database-url", default=BENCH_DATABASE)
    parser.add_argument(
        "--with-events", action="store_true", help="send broadcasts and Celery messages too"
    )
    parser.add_argument(
        "--synchronous-commit", action="store_true", help="commits wait for the disk"
    )
    args = parser.parse_args(argv)
    prepare_environment(args.database_url)

    import django

    django.setup()
    quiet = not args.with_events
    if quiet:
        silence_events()
    recreate_database(synchronous_commit=args.synchronous_commit)

    from django.utils import timezone

    from accounts.models import User
    from games import services as games
    from games.models import Action, Hand
    from tournaments import services
    from tournaments.models import Tournament
    from tournaments.selectors import tournament_audit

    staff = User.objects.create_user(
        username="bench_staff", password=None, is_staff=True, is_superuser=True
    )
    tournament = services.tournament_create(
        by=staff,
        settings=services.TournamentSettings(
            name="Benchmark",
            starts_at=timezone.now() + timedelta(minutes=1),
            min_players=3,
            max_players=max(args.players, 3),
            seats_per_table=args.seats,
            max_actions=args.max_actions,
            base_seconds=games.MAX_BASE_SECONDS,  # tables wait their turn here: no timeouts
            increment_seconds=0,
            bots_allowed=True,
            seconds_between_hands=0.0,
        ),
    )
    for _ in range(args.players):
        services.tournament_register_bot(tournament_id=tournament.pk, by=staff, level=args.bot)
    print(
        f"tournament: {args.players} bots ({args.bot}), {args.seats} seats per table,"
        f" max_actions={args.max_actions} (most cards loses), {args.threads} threads"
    )
    print(
        f"events and Celery messages: {'sent' if args.with_events else 'off (nobody listens)'};"
        f" synchronous_commit: {'on' if args.synchronous_commit else 'off'}"
    )

    in_play = Hand.objects.filter(
        match__table__tournament_table__tournament=tournament, outcome__isnull=True
    ).select_related("match")
    started = time.perf_counter()
    services.tournament_start(tournament_id=tournament.pk, by=staff)
    rounds = 0
    while True:
        hands = list(in_play.all())  # a fresh query every round
        if not hands:
            report = services.tournament_advance(tournament_id=tournament.pk)
            tournament.refresh_from_db()
            if tournament.status == Tournament.Status.FINISHED:
                break
            if not in_play.exists():
                print(f"STALLED after {rounds} rounds: {report}", file=sys.stderr)
                return 1
            continue
        rounds += 1
        play_round(hands, threads=args.threads)
        services.tournament_advance(tournament_id=tournament.pk)
    wall = time.perf_counter() - started

    tournament.refresh_from_db()
    hands_played = Hand.objects.filter(
        match__table__tournament_table__tournament=tournament, outcome__isnull=False
    ).count()
    actions = Action.objects.filter(
        hand__match__table__tournament_table__tournament=tournament
    ).count()
    problems = tournament_audit(tournament=tournament)
    entries = tournament.entries.all()
    winners = [e for e in entries if e.eliminated_at is None]
    if len(winners) != 1 or any(e.letters != 3 for e in entries if e.eliminated_at):
        problems.append("not one winner with everyone else at P-A-N")
    print(f"winner: {winners[0] if winners else '-'}; tables used: {tournament.tables.count()}")
    print(f"invariants: {'OK' if not problems else 'FAILED'}")
    for problem in problems[:20]:
        print(f"  {problem}")
    print(f"wall time: {wall:.1f} s")
    print(f"hands played: {hands_played}")
    print(f"hands/s: {hands_played / wall:.1f}")
    print(f"actions: {actions} ({actions / wall:.0f}/s)")
    return 0 if not problems else 1


def play_round(hands: list[Hand], *, threads: int) -> None:
    """Play every hand in play to its end, ``threads`` tables at a time (each thread with
    its own database connection, as the server's workers would)."""
    if threads <= 1:
        for hand in hands:
            play_to_the_end(hand)
        return
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    def play_share(share: list[Hand]) -> None:
        try:
            for hand in share:
                play_to_the_end(hand)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=threads) as pool:
        for future in [pool.submit(play_share, hands[i::threads]) for i in range(threads)]:
            future.result()


def play_to_the_end(hand: Hand) -> None:
    """Every bot to move asks ``choose_move`` (from its own view) and acts via ``execute``."""
    from games import bots
    from games import services as games

    levels = dict(hand.match.players.values_list("seat", "bot_level"))
    while hand.outcome is None:
        state = hand.engine_state
        seat = state.to_move
        move = bots.choose_move(
            levels[seat], state.view_for(seat), seed=f"{hand.pk}:{hand.version}"
        )
        hand = games.execute(
            games.move_action(move, hand_id=hand.pk, version=hand.version, as_bot=True)
        )


if __name__ == "__main__":
    sys.exit(main())
