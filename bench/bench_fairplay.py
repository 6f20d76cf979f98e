"""How well fair play's detection finds cheats: ``python -m bench.bench_fairplay``
(``make bench-fairplay``; ``--quick``: a smaller run, under ten minutes).

Simulated people play rated matches (tables of four, rapid 10+5) through the site's
services on a database of their own (``pan_bench_fairplay``, dropped, created and migrated
at every run), on a simulated clock (each move at the moment its thinking time says):

* honest players of every level (``bench.fairplay_players``: random, greedy, and "good",
  the search at 60 playouts with a tenth of greedy moves), with a person's thinking times,
  and honest friends who always sit together;
* card-sharing pairs: each sees his partner's hand and plays for the pair;
* assisted players: the strong bot's moves (500 playouts) with a tenth of greedy ones, and
  the relay's regular few seconds a move;
* dumpers: a pair of whom one plays so that the other (a good player, the gainer) does
  not take the letter.

``--quick``: 1, 2 and 3 matches per player, fewer players, and half the check's budget
(``FAIRPLAY_PLAYOUTS`` 12, ``FAIRPLAY_BOT_PLAYOUTS`` 50 unless set).

Every round each player plays one match; the pairs sit together, everyone else where the
shuffle puts him. After each hand the check the analysis worker would run
(``fairplay_hand_check``) runs here; after the rounds named it prints, per kind of cheat,
the share of cheaters with an open case (recall) and, for honest players and honest pairs
that sat together, the share with one (false positives), each with its 95 % Wilson
interval, and the median chance per signal (the signal that is short where recall is).

``--write-reference`` writes the honest players' and pairs' values to
``fairplay/reference.json``, the reference a case's statement is made against;
``--rejudge`` writes it again from the sums such a run left in its database, playing
nothing, after a statistic changed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from datetime import timedelta

from bench.bench_tournament import prepare_environment, recreate_database, silence_events

BENCH_DATABASE = "postgres://postgres@127.0.0.1:5432/pan_bench_fairplay"
# Hands cut off at 100 actions, the player holding most cards losing (as in tournaments):
# players who pick up for each other otherwise make hands of hundreds of actions.
MAX_ACTIONS = 100


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float, float]:
    """The share ``hits / total`` and its Wilson score interval."""
    if total == 0:
        return 0.0, 0.0, 1.0
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return p, max(0.0, centre - half), min(1.0, centre + half)


def share(hits: int, total: int) -> str:
    p, low, high = wilson(hits, total)
    return f"{100 * p:5.1f} % [{100 * low:5.1f}-{100 * high:5.1f}] ({hits}/{total})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run: 1, 2, 3 matches")
    parser.add_argument("--honest", type=int, default=40)
    parser.add_argument("--friends", type=int, default=4, help="honest pairs")
    parser.add_argument("--sharers", type=int, default=10, help="card-sharing pairs")
    parser.add_argument("--assisted", type=int, default=10)
    parser.add_argument("--dumpers", type=int, default=5, help="dumping pairs")
    parser.add_argument("--at", default="10,20,30", help="matches per player to report at")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write-reference", action="store_true")
    parser.add_argument(
        "--rejudge",
        action="store_true",
        help="write the reference from the sums an earlier --write-reference run left in"
        " --database-url, playing nothing (for statistics changed since)",
    )
    parser.add_argument("--database-url", default=BENCH_DATABASE)
    args = parser.parse_args(argv)
    if args.quick:
        args.honest, args.friends, args.sharers, args.assisted, args.dumpers = 10, 1, 3, 3, 2
        args.at = "1,2,3"
        # Half the production budget per hand, so that the run fits in minutes.
        os.environ.setdefault("FAIRPLAY_PLAYOUTS", "12")
        os.environ.setdefault("FAIRPLAY_BOT_PLAYOUTS", "50")
    prepare_environment(args.database_url)

    import django

    django.setup()
    silence_events()
    if args.rejudge:
        return rejudge(args)
    recreate_database(synchronous_commit=False)
    return run(args)


def rejudge(args: argparse.Namespace) -> int:
    """The reference from an earlier run's database: who was who from the names this
    bench gives, who sat together from the pairs' sums, judged by today's statistics."""
    from accounts.models import User
    from bench.fairplay_players import Player
    from fairplay.models import FairPlayHand, PairSignals, PlayerSignals
    from fairplay.reference import REFERENCE_PATH
    from fairplay.services import cases as fairplay_cases

    prefixes = {"honest": "honest", "friend": "honest", "sharer": "sharer"}
    prefixes |= {"assisted": "assisted", "dumper": "dumper", "gainer": "gainer"}
    kinds, friends = {}, {}
    for pk, name in User.objects.values_list("pk", "username"):
        kind = next((k for prefix, k in prefixes.items() if name.startswith(prefix)), None)
        if kind is not None:
            kinds[pk] = Player(kind)
            if name.startswith("friend"):
                friends.setdefault(name[:-1], []).append(pk)
    seen_together = {
        (a, b) for a, b in PairSignals.objects.values_list("user_id", "other_id") if a < b
    }
    hands = FairPlayHand.objects.count()
    write_reference(
        args, kinds, list(friends.values()), seen_together, PlayerSignals, PairSignals,
        fairplay_cases, REFERENCE_PATH, hands,
    )  # fmt: skip
    return 0


def run(args: argparse.Namespace) -> int:
    from django.conf import settings
    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from accounts.models import User
    from bench.fairplay_players import Player, player_move, thinking_ms
    from fairplay.models import FairPlayCase, PairSignals, PlayerSignals
    from fairplay.reference import REFERENCE_PATH, load_reference
    from fairplay.services import cases as fairplay_cases
    from games import services as games
    from games.engine import Rules
    from games.models import Match
    from games.services import tables as table_services

    # Every player opens a table now and then; the bench plays in minutes what a site plays
    # in weeks, so the limit on new tables per owner is lifted for it.
    table_services.TABLES_PER_WINDOW = 10**9
    rng = random.Random(args.seed)
    checkpoints = sorted(int(n) for n in args.at.split(","))
    levels = ("greedy", "good", "random", "good", "greedy")
    kinds: dict[int, Player] = {}
    groups: list[list[int]] = []  # who sits together (pairs); singles fill the tables
    names = []

    def person(name: str, player: Player) -> int:
        names.append(name)
        user = User.objects.create(username=name, password=make_password(None))
        kinds[user.pk] = player
        return user.pk

    singles = []
    for i in range(args.honest):
        level = levels[i % len(levels)]
        singles.append(person(f"honest{i}", Player("honest", level, 0.1 if level == "good" else 0)))
    for i in range(args.friends):
        level = levels[i % len(levels)]
        groups.append([person(f"friend{i}{x}", Player("honest", level)) for x in "ab"])
    for i in range(args.assisted):
        singles.append(person(f"assisted{i}", Player("assisted", noise=0.1)))
    for i in range(args.sharers):
        groups.append([person(f"sharer{i}{x}", Player("sharer")) for x in "ab"])
    for i in range(args.dumpers):
        groups.append(
            [person(f"dumper{i}", Player("dumper")), person(f"gainer{i}", Player("gainer", "good"))]
        )
    users = {u.pk: u for u in User.objects.filter(pk__in=kinds)}
    print(
        f"fair play: {args.honest} honest players, {args.friends} honest pairs of friends,"
        f" {args.sharers} card-sharing pairs, {args.assisted} assisted players,"
        f" {args.dumpers} dumping pairs; rated 10+5 tables of 4, hands cut off at"
        f" {MAX_ACTIONS} actions (most cards loses); budget"
        f" {settings.FAIRPLAY_PLAYOUTS} deals an estimate, {settings.FAIRPLAY_BOT_PLAYOUTS}"
        f" playouts of the strong bot; a case opens at a chance of"
        f" {settings.FAIRPLAY_CASE_CHANCE:g}"
    )
    reference = load_reference()
    print(f"reference: {reference.source or 'none yet (a standard normal per signal)'}")
    clock = timezone.now()
    wall = time.perf_counter()
    hands = 0
    seen_together: set[tuple[int, int]] = set()
    rows = []
    for round_number in range(1, checkpoints[-1] + 1):
        tables = seat_round(groups, singles, rng)
        for seated in tables:
            clock, played = play_match(
                [users[pk] for pk in seated], kinds, rng, clock, games, Rules, Match,
                player_move, thinking_ms, fairplay_cases,
            )  # fmt: skip
            hands += played
            for a in seated:
                for b in seated:
                    if a < b:
                        seen_together.add((a, b))
        if round_number in checkpoints:
            rows.append(report(round_number, kinds, groups, seen_together, FairPlayCase))
            print(
                f"  after {round_number} matches each: {hands} hands judged,"
                f" {time.perf_counter() - wall:.0f} s",
                flush=True,
            )
            print_table(rows)  # so far: a long run stopped early still says what it found
    print_signals(kinds, groups, PlayerSignals, PairSignals, fairplay_cases)
    if args.write_reference:
        write_reference(
            args, kinds, groups, seen_together, PlayerSignals, PairSignals, fairplay_cases,
            REFERENCE_PATH, hands,
        )  # fmt: skip
    return 0


def seat_round(groups: list[list[int]], singles: list[int], rng: random.Random) -> list[list[int]]:
    """Tables of four for one round: each pair with two players drawn at random, the rest
    of the players shuffled into tables of four (the last of three or five players split)."""
    free = singles[:]
    rng.shuffle(free)
    tables = []
    for group in groups:
        tables.append([*group, *(free.pop() for _ in range(min(2, len(free))))])
    while len(free) >= 4:
        tables.append([free.pop() for _ in range(4)])
    if len(free) >= 2:
        tables.append(free)
    elif free:
        short = next((t for t in tables if len(t) < 4), None)
        if short is not None:
            short.append(free.pop())  # else he sits this round out
    return tables


def play_match(seated, kinds, rng, clock, games, Rules, Match, player_move, thinking_ms, checks):
    """One rated match of ``seated`` (a table of theirs, the first its owner) to P-A-N,
    each move at the moment its thinking time says; each hand judged when it ends."""
    rules = Rules(max_actions=MAX_ACTIONS, max_actions_result="most_cards")
    table = games.table_create(
        owner=seated[0], name="", rules=rules, seats=len(seated), base_seconds=600,
        increment_seconds=5,
    )  # fmt: skip
    for user in seated[1:]:
        games.table_sit(table_id=table.pk, user=user)
    match = games.match_start(table_id=table.pk, by=seated[0], now=clock)
    by_seat = {p.seat: p.user for p in match.players.select_related("user")}
    seat_of = {user.pk: seat for seat, user in by_seat.items()}
    played = 0
    while True:
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            played += 1
            checks.fairplay_hand_check(hand_id=hand.pk, now=clock)
            match.refresh_from_db()
            if match.status != Match.Status.PLAYING:
                return clock, played
            clock += timedelta(seconds=5)
            games.match_next_hand(match_id=match.pk, after_number=hand.number, now=clock)
            continue
        while not hand.is_over:
            state = hand.engine_state
            user = by_seat[state.to_move]
            player = _with_partner(kinds[user.pk], user.pk, seat_of, kinds)
            move = player_move(player, state, rng)
            clock += timedelta(milliseconds=thinking_ms(player, state, rng))
            hand = games.execute(
                games.move_action(move, hand_id=hand.pk, version=hand.version, user=user),
                now=clock,
            )


def _with_partner(player, pk, seat_of, kinds):
    """The cheater's partner's seat at this table (sharers and dumpers come in pairs made
    one after the other: a pair's ids are neighbours)."""
    if player.kind not in ("sharer", "dumper", "feeder"):
        return player
    from dataclasses import replace

    for other in (pk - 1, pk + 1):
        if other in seat_of and (
            kinds[other].kind == player.kind or (player.kind == "dumper" and other == pk + 1)
        ):
            return replace(player, partner=seat_of[other])
    return player


def _subjects(cases) -> tuple[set[int], set[tuple[int, int]]]:
    players, pairs = set(), set()
    for user_id, other_id in cases:
        if other_id is None:
            players.add(user_id)
        else:
            pairs.add((min(user_id, other_id), max(user_id, other_id)))
    return players, pairs


def report(matches, kinds, groups, seen_together, FairPlayCase) -> dict:
    cases = FairPlayCase.objects.filter(status=FairPlayCase.Status.OPEN).values_list(
        "user_id", "other_id"
    )
    flagged_players, flagged_pairs = _subjects(cases)
    cheat_pairs = {
        kind: [tuple(sorted(g)) for g in groups if kinds[g[0]].kind == kind]
        for kind in ("sharer", "dumper")
    }
    friends = [tuple(sorted(g)) for g in groups if kinds[g[0]].kind == "honest"]
    honest = [pk for pk, p in kinds.items() if p.kind == "honest"]
    assisted = [pk for pk, p in kinds.items() if p.kind == "assisted"]
    honest_pairs = [
        pair for pair in seen_together if kinds[pair[0]].kind == kinds[pair[1]].kind == "honest"
    ]
    return {
        "matches": matches,
        "sharing": (
            sum(p in flagged_pairs for p in cheat_pairs["sharer"]),
            len(cheat_pairs["sharer"]),
        ),
        "assisted": (sum(p in flagged_players for p in assisted), len(assisted)),
        "dumping": (
            sum(p in flagged_pairs for p in cheat_pairs["dumper"]),
            len(cheat_pairs["dumper"]),
        ),
        "honest players": (sum(p in flagged_players for p in honest), len(honest)),
        "honest pairs": (sum(p in flagged_pairs for p in honest_pairs), len(honest_pairs)),
        "friends": (sum(p in flagged_pairs for p in friends), len(friends)),
    }


def print_table(rows: list[dict]) -> None:
    print()
    print("Open cases by matches played (share, 95 % Wilson interval, count)")
    columns = ["sharing", "assisted", "dumping", "honest players", "honest pairs", "friends"]
    heads = {
        "sharing": "card-sharing pairs (recall)",
        "assisted": "assisted players (recall)",
        "dumping": "dumping pairs (recall)",
        "honest players": "honest players (false pos.)",
        "honest pairs": "honest pairs sat together (false pos.)",
        "friends": "honest friends, always together (false pos.)",
    }
    for column in columns:
        cells = "  ".join(f"{share(*row[column]):>34}" for row in rows)
        print(f"{heads[column]:<46} {cells}")
    print(
        f"{'matches per player':<46} " + "  ".join(f"{row['matches']:>34}" for row in rows),
        flush=True,
    )


def print_signals(kinds, groups, PlayerSignals, PairSignals, checks) -> None:
    """The median chance (by the reference) of each signal per kind: where recall is short,
    the signal that is."""
    from fairplay.reference import load_reference

    reference = load_reference()
    per_kind: dict[str, dict[str, list[float]]] = {}
    for row in PlayerSignals.objects.filter(user_id__in=kinds):
        kind = kinds[row.user_id].kind
        for name, tail in checks.player_signals(row, reference).items():
            per_kind.setdefault(f"player {kind}", {}).setdefault(name, []).append(tail.chance)
    rows = {(r.user_id, r.other_id): r for r in PairSignals.objects.all()}
    for group in groups:
        a, b = sorted(group)
        if (a, b) not in rows:
            continue
        kind = kinds[group[0]].kind
        kind = "friends" if kind == "honest" else kind
        for name, tail in checks.pair_signals(rows[a, b], rows.get((b, a)), reference).items():
            per_kind.setdefault(f"pair {kind}", {}).setdefault(name, []).append(tail.chance)
    print()
    print("Median chance of each signal under honest play (smaller: more unusual)")
    for kind, found in sorted(per_kind.items()):
        cells = ", ".join(f"{name} {statistics.median(v):.2g}" for name, v in sorted(found.items()))
        print(f"  {kind:<16} {cells}")


def write_reference(
    args, kinds, groups, seen_together, PlayerSignals, PairSignals, checks, path, hands
) -> None:
    """The honest players' and honest pairs' values, and the honest rate of matching the
    strong bot by rating band, as the reference of the cases' statements."""
    from django.conf import settings

    from fairplay.reference import BAND_WIDTH, Reference
    from fairplay.signals import PlayerTotals
    from games.models import Rating
    from games.ratings import display_rating

    honest = [pk for pk, p in kinds.items() if p.kind == "honest"]
    ratings = {r.user_id: display_rating(r.mu) for r in Rating.objects.filter(user_id__in=honest)}
    band_of = {pk: ratings.get(pk, 1500) // BAND_WIDTH * BAND_WIDTH for pk in honest}
    matched: dict[int, list[int]] = {}
    player_rows = {r.user_id: r for r in PlayerSignals.objects.filter(user_id__in=honest)}
    for pk, row in player_rows.items():
        tally = matched.setdefault(band_of[pk], [0, 0])
        tally[0] += row.matched
        tally[1] += row.nontrivial
    rates = {band: round(m / n, 4) for band, (m, n) in matched.items() if n}
    bare = Reference(source="", values={}, match_rates=rates)
    values: dict[str, list[float]] = {}
    for pk, row in player_rows.items():
        # Judged again against the rate of his band, as the next runs will judge.
        rate = bare.match_rate(ratings.get(pk, 1500))
        totals = PlayerTotals(
            nontrivial=row.nontrivial,
            matched=row.matched,
            expected=rate * row.nontrivial,
            variance=rate * (1 - rate) * row.nontrivial,
        )
        values.setdefault("assistance", []).append(round(totals.match_excess[0], 4))
        for name, tail in checks.player_signals(row, bare).items():
            if name != "assistance":
                values.setdefault(name, []).append(round(tail.value, 4))
    rows = {(r.user_id, r.other_id): r for r in PairSignals.objects.all()}
    for a, b in sorted(seen_together):
        if kinds[a].kind == kinds[b].kind == "honest" and (a, b) in rows:
            for name, tail in checks.pair_signals(rows[a, b], rows.get((b, a)), bare).items():
                values.setdefault(name, []).append(round(tail.value, 4))
    source = (
        f"bench/bench_fairplay.py --write-reference (seed {args.seed}"
        f"{'; re-judged by --rejudge' if args.rejudge else ''}):"
        f" {len(player_rows)} honest simulated players and"
        f" {sum(1 for a, b in seen_together if kinds[a].kind == kinds[b].kind == 'honest')}"
        f" honest pairs, {hands} hands of rated matches, judged at {settings.FAIRPLAY_PLAYOUTS}"
        f" deals an estimate and {settings.FAIRPLAY_BOT_PLAYOUTS} playouts of the strong bot"
    )
    path.write_text(
        json.dumps({"source": source, "match_rates": rates, "values": values}, indent=1) + "\n"
    )
    print(f"\nreference written to {path}: {source}")


if __name__ == "__main__":
    sys.exit(main())
