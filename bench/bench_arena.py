"""An arena at scale: ``python -m bench.bench_arena`` (``make bench-arena``).

500 players in a 20-minute bullet arena (1+0, tables of 3 to 4), run through the real
services on a PostgreSQL database of its own (``pan_bench_arena``, dropped, created and
migrated at every run), on a simulated clock: every service is called with the moment it
would run at (``now``), so 20 minutes take as long as the work, not the minutes.

* Players join in waves (300 at the start, 70 at 1, 3 and 5 minutes) and 25 withdraw at
  10 and at 15 minutes.
* Each game's players make random legal moves, one every ``--action-every`` seconds, up
  to a number drawn per game (5 to 40); then the clock of the player to move runs out.
  Every move and every timeout is ``games.services.execute``.
* Pairing runs as it does in production: ``tournament_advance`` at the beat's sweep
  (every 3 s) and after each game's pause (3 s after it ends).
* Nothing listens: no channel layer, and the Celery messages go nowhere (the loop does
  what the tasks would do, at the moment they would do it).

It prints the games played; the wait from a game's end to the next seat (p50, p95, max)
and the longest wait while three others waited; how long a pairing wave takes (wall
time); how long the leaderboard's live parts take to render with 500 and with 2,000
entries (the median of five renders); and the points that disagree with a recount from
the hands (must be 0).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import datetime, timedelta

from bench.bench_tournament import prepare_environment, recreate_database, silence_events

BENCH_DATABASE = "postgres://postgres@127.0.0.1:5432/pan_bench_arena"
SWEEP_EVERY = 3  # seconds: the beat's tournaments.sweep
PAUSE = 3.0  # seconds between a game's end and its players' next pairing (the arena's)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--minutes", type=int, default=20)
    parser.add_argument("--action-every", type=float, default=2.0, help="simulated seconds")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--database-url", default=BENCH_DATABASE)
    parser.add_argument("--quick", action="store_true", help="120 players, 20 minutes")
    args = parser.parse_args(argv)
    if args.quick:
        args.players = 120
    prepare_environment(args.database_url)

    import django

    django.setup()
    silence_events()
    recreate_database(synchronous_commit=False)
    return run(args)


def run(args: argparse.Namespace) -> int:
    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from accounts.models import User
    from games import services as games
    from games.engine import move_to_json
    from games.models import Hand, MatchPlayer
    from tournaments import services
    from tournaments.arena_selectors import arena_recount
    from tournaments.calendar import organiser
    from tournaments.models import ArenaGame, ArenaPlayer, Format, Tournament, TournamentEntry
    from tournaments.renderers import tournament_fragments

    rng = random.Random(args.seed)
    staff = organiser()
    users = User.objects.bulk_create(
        User(username=f"arena{i:04d}", password=make_password(None)) for i in range(args.players)
    )
    base = timezone.now().replace(microsecond=0)

    def at(seconds: float) -> datetime:
        return base + timedelta(seconds=seconds)

    arena = services.tournament_create(
        by=staff,
        settings=services.TournamentSettings(
            name="Bench arena",
            starts_at=at(60),
            format=Format.ARENA,
            minutes=args.minutes,
            seats_per_table=4,
            seats_min=3,
            max_players=512,
            max_actions=60,
            base_seconds=60,
            increment_seconds=0,
            seconds_between_hands=PAUSE,
            rated=True,
        ),
        now=base,
    )
    first = users[: min(300, len(users))]
    for user in first:
        services.tournament_register(tournament_id=arena.pk, user=user, now=at(1))
    rest = users[len(first) :]
    waves = {60: rest[0::3], 180: rest[1::3], 300: rest[2::3]}
    length = args.minutes * 60
    leaving = {600: 25, 900: 25}
    services.tournament_start(tournament_id=arena.pk, now=at(60))
    arena.refresh_from_db()
    start = 60
    end = start + length
    print(
        f"arena: {args.players} players ({len(first)} at the start, the rest in waves at"
        f" 1, 3 and 5 min; 25 withdraw at 10 and at 15 min), {args.minutes} min, 1+0,"
        f" tables of 3 to 4; a move every {args.action_every:g} s of simulated time"
    )

    plan: dict[int, tuple[int, float]] = {}  # hand id -> (moves to make, next move at)
    wave_ms: list[float] = []
    wave_tables: list[int] = []
    long_waits: list[float] = []  # each waiting player's wait while 3 others waited
    withdrawn: set[int] = set()
    people_at: dict[tuple[int, int], User] = {}  # (match, seat) -> the person there
    came_back = 0
    due_advances: set[int] = {start}
    wall = time.perf_counter()
    second = start
    while True:
        second += 1
        now = at(second)
        for user in waves.get(second - start, []):
            services.arena_join(tournament_id=arena.pk, user=user, now=now)
        if second - start in leaving:
            seated = TournamentEntry.objects.filter(
                tournament=arena, paused=False, user__isnull=False
            ).order_by("?")[: leaving[second - start]]
            for entry in list(seated):
                services.arena_pause(tournament_id=arena.pk, user=entry.user, now=now)
                withdrawn.add(entry.pk)
        in_play = Hand.objects.filter(
            match__arena_game__tournament=arena, outcome__isnull=True
        ).only("id", "version", "deadline", "state", "match_id")
        for hand in in_play:
            moves, next_at = plan.setdefault(hand.pk, (rng.randint(5, 40), second))
            if moves > 0 and next_at <= second:
                state = hand.engine_state
                mover = people_at.get((hand.match_id, state.to_move))
                if mover is None:
                    mover = people_at[hand.match_id, state.to_move] = (
                        MatchPlayer.objects.select_related("user")
                        .get(match_id=hand.match_id, seat=state.to_move)
                        .user
                    )
                after = games.execute(
                    games.move_action(
                        move_to_json(rng.choice(state.legal_moves())),
                        hand_id=hand.pk,
                        version=hand.version,
                        user=mover,
                    ),
                    now=now,
                )
                plan[hand.pk] = (moves - 1, second + args.action_every)
                if after.is_over:
                    due_advances.add(second + int(PAUSE))
            elif (
                moves <= 0
                and hand.deadline is not None
                and hand.deadline <= now
                and games.execute(games.Timeout(hand_id=hand.pk), now=now)
            ):
                due_advances.add(second + int(PAUSE))
        # A player a timeout paused (he made no move in a game) comes back at once.
        if second < start + length * 0.9:
            for entry in (
                TournamentEntry.objects.filter(tournament=arena, paused=True, table__isnull=True)
                .exclude(pk__in=withdrawn)
                .select_related("user")
            ):
                services.arena_join(tournament_id=arena.pk, user=entry.user, now=now)
                came_back += 1
        if second % SWEEP_EVERY == 0 or second in due_advances:
            due_advances.discard(second)
            started = time.perf_counter()
            report = services.tournament_advance(tournament_id=arena.pk, now=now)
            if report.started:
                wave_ms.append((time.perf_counter() - started) * 1000)
                wave_tables.append(report.started)
            # Who waits past the pause after his game, while the arena still pairs.
            pool = list(
                TournamentEntry.objects.filter(
                    tournament=arena,
                    waiting_since__lte=now - timedelta(seconds=PAUSE),
                    table__isnull=True,
                    paused=False,
                ).values_list("waiting_since", flat=True)
            )
            if len(pool) >= 4 and second < end:
                long_waits.extend((now - since).total_seconds() - PAUSE for since in pool)
        arena.refresh_from_db(fields=["status"])
        if arena.status == Tournament.Status.FINISHED or second > end + 3600:
            break
    wall = time.perf_counter() - wall

    # The waits: from a game's end to the player's next seat, while the arena pairs.
    waits: list[float] = []
    parts = ArenaPlayer.objects.filter(game__tournament=arena).order_by("entry_id", "game_id")
    previous: dict[int, datetime | None] = {}
    for entry_id, started_at, finished_at in parts.values_list(
        "entry_id", "game__started_at", "game__finished_at"
    ):
        ended = previous.get(entry_id)
        if ended is not None and started_at < at(end):
            waits.append((started_at - ended).total_seconds())
        previous[entry_id] = finished_at
    games_played = ArenaGame.objects.filter(tournament=arena, counted=True).count()
    stopped = ArenaGame.objects.filter(tournament=arena, counted=False).count()
    recount = arena_recount(arena)
    disagree = sum(
        1 for e in TournamentEntry.objects.filter(tournament=arena) if recount[e.pk] != e.points
    )

    # The leaderboard's live parts, as a socket renders them for a player, at 500 and 2,000.
    viewer = users[0]
    renders = {"this arena": render_ms(tournament_fragments, arena.pk, viewer)}
    big = services.tournament_create(
        by=staff,
        settings=services.TournamentSettings(
            name="Bench arena 2000",
            starts_at=at(7200),
            format=Format.ARENA,
            minutes=60,
            max_players=512,
        ),
        now=base,
    )
    many = User.objects.bulk_create(
        User(username=f"crowd{i:05d}", password=make_password(None)) for i in range(2000)
    )
    TournamentEntry.objects.bulk_create(
        TournamentEntry(
            tournament=big,
            user=user,
            display_name=user.username,
            points=rng.randint(0, 80),
            games_played=rng.randint(0, 20),
            start_rating=rng.randint(1200, 1900),
        )
        for user in many
    )
    Tournament.objects.filter(pk=big.pk).update(status=Tournament.Status.RUNNING)
    renders["2,000 entries"] = render_ms(tournament_fragments, big.pk, many[1500])
    entries = TournamentEntry.objects.filter(tournament=arena).count()

    print(f"entries: {entries}; paused by a timeout without a move and back: {came_back}")
    print(f"simulated: {second - start} s; wall time: {wall:.0f} s")
    print(f"games played: {games_played} (stopped at the end: {stopped})")
    print(
        f"wait from a game's end to the next seat (s): p50 {percentile(waits, 0.5):.1f},"
        f" p95 {percentile(waits, 0.95):.1f}, max {max(waits, default=0):.1f}"
        f" ({len(waits)} waits)"
    )
    print(f"longest wait seen while three others waited (s): {max(long_waits, default=0):.1f}")
    print(
        f"pairing wave (wall ms, {len(wave_ms)} waves that seated someone):"
        f" p50 {percentile(wave_ms, 0.5):.1f}, p95 {percentile(wave_ms, 0.95):.1f},"
        f" max {max(wave_ms, default=0):.1f}; tables per wave p50"
        f" {percentile([float(n) for n in wave_tables], 0.5):.0f},"
        f" max {max(wave_tables, default=0)}"
    )
    for label, (median, entries_shown) in renders.items():
        print(f"leaderboard live parts, {label} ({entries_shown} entries): {median:.1f} ms")
    print(f"points that disagree with a recount from the hands: {disagree}")
    return 0 if disagree == 0 else 1


def render_ms(render, tournament_id: int, viewer) -> tuple[float, int]:
    from tournaments.models import TournamentEntry

    times = []
    for _ in range(5):
        started = time.perf_counter()
        render(tournament_id=tournament_id, viewer=viewer, language="pl", csrf_token="x")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), TournamentEntry.objects.filter(
        tournament_id=tournament_id
    ).count()


if __name__ == "__main__":
    sys.exit(main())
