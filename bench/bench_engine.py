"""Engine throughput and the bots: ``python -m bench.bench_engine``.

Engine: plays whole hands (default rules, 4 players) choosing uniformly among
``legal_moves()`` with a seeded ``random.Random`` -- randomness lives here,
never in the engine -- and counts plays and pick-ups per second, single
core. Each hand ends by its outcome or at ``max_actions``. Several runs of
at least ``--seconds`` each; the median is printed as::

    engine actions/s: N

Bots (``games.bots.choose_move``, always through the view of the seat to
move, as the site calls it), after that line, one row per level and budget the
bench offers -- random, greedy, ismcts at ``--playouts`` (a cheap budget, for
comparison) and ismcts at :data:`~games.bots.DEFAULT_PLAYOUTS`, the budget the
site's strong bot plays with and names::

    bot <level> [at N playouts]: letters share X % vs 3 greedy over H hands (losers: L);
        M ms/decision

The level takes one seat of four, greedy bots the others, default rules; the
seat and the dealer rotate; X is the level's letters out of the L letters
given (a hand cut off at ``max_actions`` or tied gives none), fair share 25 %.
M is timed on positions from real hands where the seat to move has a real
choice (two moves at least that differ in effect). An ismcts row plays fewer
hands the larger its budget (``--hands`` x 50 / budget, at least 100), so that
the whole bench stays within about half an hour on two cores. Then:

- ``all-ismcts hands ending before max_actions: X % over N hands`` (at ``--playouts``);
- ``analysis of a hand: ...``: seconds of one core to analyse the loser's
  decisions in a greedy hand of four (``games.bots.analysis``, its budget), as
  the replay page's "where did I lose it" does.

The strength hands are spread over ``--processes`` worker processes. Every hand
and every decision is seeded, so the figures are the same on every run and
machine; only the timings vary. ``--quick`` runs a short version. Nothing is
asserted: figures only.

More rows: write a ``chooser`` (state, rng) -> move and pass it to
:func:`measure` with its own label in :func:`main`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from games.bots import DEFAULT_PLAYOUTS, LEVELS, choose_move
from games.bots.analysis import ANALYSIS_PLAYOUTS, analyse_hand
from games.bots.features import distinct_moves
from games.engine import HandState, Move, Rules, deal, move_from_json, move_to_json

Chooser = Callable[[HandState, random.Random], Move]

PLAYERS = 4
STRENGTH_PLAYOUTS = 50


def random_chooser(state: HandState, rng: random.Random) -> Move:
    """Uniformly random legal move."""
    return rng.choice(state.legal_moves())


def play_for(
    seconds: float,
    chooser: Chooser,
    *,
    rules: Rules,
    players: int,
    rng: random.Random,
) -> tuple[int, float]:
    """Play hands for at least ``seconds``; return (actions, elapsed seconds)."""
    actions = 0
    hand_no = 0
    clock = time.perf_counter
    start = clock()
    while True:
        state = deal(rules, players, hand_no % players, f"bench:{hand_no}")
        while state.outcome is None:
            state = state.apply(chooser(state, rng))
        actions += state.action_count
        hand_no += 1
        elapsed = clock() - start
        if elapsed >= seconds:
            return actions, elapsed


def measure(
    chooser: Chooser,
    *,
    runs: int,
    seconds: float,
    rules: Rules | None = None,
    players: int = 4,
    seed: int = 12345,
) -> float:
    """Median actions per second over ``runs`` runs of ``seconds`` each."""
    rules = rules or Rules()
    rates = []
    for run in range(runs):
        rng = random.Random(seed + run)
        actions, elapsed = play_for(seconds, chooser, rules=rules, players=players, rng=rng)
        rates.append(actions / elapsed)
    return statistics.median(rates)


# -- bots ----------------------------------------------------------------------


def bot_move(level: str, state: HandState, seed: str, playouts: int | None = None) -> Move:
    """The move of the bot of ``level`` for the seat to move, from that seat's view."""
    view = state.view_for(state.to_move)
    return move_from_json(choose_move(level, view, seed=seed, playouts=playouts))


def decision_views(count: int, *, seed: str = "decisions") -> list[dict[str, Any]]:
    """``count`` views from greedy hands (default rules) in which the seat to move has a choice."""
    views: list[dict[str, Any]] = []
    rng = random.Random(seed)
    hand_no = 0
    while len(views) < count:
        state = deal(Rules(), PLAYERS, hand_no % PLAYERS, f"{seed}:{hand_no}")
        while state.outcome is None and len(views) < count:
            choices = distinct_moves(state.legal_moves(), state.rules.spades_back)
            # Sampled thinly, so the positions come from every stage of many hands.
            if len(choices) >= 2 and rng.random() < 0.1:
                views.append(state.view_for(state.to_move))
            state = state.apply(bot_move("greedy", state, "decisions"))
        hand_no += 1
    return views


def decision_rate(
    level: str, views: list[dict[str, Any]], *, min_seconds: float, playouts: int | None = None
) -> tuple[float, float]:
    """(decisions per second, ms per decision) of ``level`` at ``playouts`` (None: its
    default budget)."""
    clock = time.perf_counter
    done = 0
    start = clock()
    while True:
        for k, view in enumerate(views):
            choose_move(level, view, seed=f"rate:{k}", playouts=playouts)
        done += len(views)
        elapsed = clock() - start
        if elapsed >= min_seconds:
            return done / elapsed, 1000 * elapsed / done


@dataclass(frozen=True)
class HandResult:
    """One strength hand: who lost (None: no letter), the studied seat, how it ended."""

    loser: int | None
    hero: int
    reason: str


def play_strength_hand(task: tuple[int, tuple[str, ...], int]) -> HandResult:
    """Play hand ``number``, ``levels[i]`` at seat ``(hero + i) % 4``; the hero is ``levels[0]``.

    The hero seat and the dealer rotate with the hand number so that the hero
    sits at every seat, before and after the dealer, equally often. A
    top-level function, so that worker processes can receive it.
    """
    number, levels, playouts = task
    hero = number % PLAYERS
    dealer = (number // PLAYERS) % PLAYERS
    seat_levels = [levels[(seat - hero) % PLAYERS] for seat in range(PLAYERS)]
    state = deal(Rules(), PLAYERS, dealer, f"strength:{number}")
    while state.outcome is None:
        level = seat_levels[state.to_move]
        seed = f"strength:{number}:{state.action_count}"
        budget = playouts if level == "ismcts" else None
        state = state.apply(bot_move(level, state, seed, budget))
    return HandResult(state.outcome.loser, hero, state.outcome.reason)


def play_hands(
    levels: tuple[str, ...], hands: int, *, playouts: int, processes: int
) -> list[HandResult]:
    """Play ``hands`` strength hands with ``levels`` (seat by seat from the rotating hero)."""
    tasks: Iterable[tuple[int, tuple[str, ...], int]] = (
        (number, levels, playouts) for number in range(hands)
    )
    if processes <= 1:
        return [play_strength_hand(task) for task in tasks]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        return list(pool.imap(play_strength_hand, tasks, chunksize=2))


def letters_share(level: str, hands: int, *, playouts: int, processes: int) -> str:
    """``letters share X % vs 3 greedy over H hands (losers: L)`` of ``level``."""
    results = play_hands(
        (level, "greedy", "greedy", "greedy"), hands, playouts=playouts, processes=processes
    )
    losers = [r for r in results if r.loser is not None]
    taken = sum(1 for r in losers if r.loser == r.hero)
    share = 100 * taken / len(losers) if losers else 0.0
    return f"letters share {share:.1f} % vs 3 greedy over {hands} hands (losers: {len(losers)})"


def analysis_row(hands: int) -> str:
    """The ``analysis of a hand`` row: the loser's decisions in greedy hands of four."""
    seconds, decisions = [], []
    for number in range(hands):
        start = deal(Rules(), PLAYERS, number % PLAYERS, f"analysis:{number}")
        state, moves = start, []
        while state.outcome is None:
            move = bot_move("greedy", state, f"analysis:{number}:{state.action_count}")
            moves.append(move_to_json(move))
            state = state.apply(move)
        seat = state.outcome.loser if state.outcome.loser is not None else 0
        began = time.process_time()
        analysis = analyse_hand(start, moves, seat, seed=f"analysis:{number}")
        seconds.append(time.process_time() - began)
        decisions.append(len(analysis.decisions))
    return (
        f"analysis of a hand ({ANALYSIS_PLAYOUTS} deals per decision): mean"
        f" {statistics.mean(seconds):.1f} s, max {max(seconds):.1f} s of one core over"
        f" {hands} greedy hands of four (the loser's decisions: {statistics.mean(decisions):.0f}"
        f" on average, at most {max(decisions)})"
    )


def all_ismcts_row(hands: int, *, playouts: int, processes: int) -> str:
    """The ``all-ismcts hands ending before max_actions`` row."""
    results = play_hands(("ismcts",) * PLAYERS, hands, playouts=playouts, processes=processes)
    ended = sum(1 for r in results if r.reason != "max_actions")
    return (
        f"all-ismcts hands ending before max_actions: {100 * ended / hands:.1f} %"
        f" over {hands} hands"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is printed")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of one run")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a short version of the bot rows (the engine row keeps --runs and --seconds)",
    )
    parser.add_argument(
        "--hands", type=int, default=None, help="strength hands per level (default 2000)"
    )
    parser.add_argument(
        "--table-hands", type=int, default=None, help="all-ismcts hands (default 200)"
    )
    parser.add_argument("--processes", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--playouts",
        type=int,
        default=STRENGTH_PLAYOUTS,
        help=f"the cheap ismcts budget beside the site's (default {STRENGTH_PLAYOUTS})",
    )
    parser.add_argument("--no-bots", action="store_true", help="only the engine row")
    args = parser.parse_args(argv)
    rate = measure(random_chooser, runs=args.runs, seconds=args.seconds)
    print(f"engine actions/s: {rate:,.0f}".replace(",", ""))
    if args.no_bots:
        return
    hands = args.hands or (200 if args.quick else 2000)
    table_hands = args.table_hands or (12 if args.quick else 200)
    views = decision_views(30 if args.quick else 120)
    rows: list[tuple[str, int | None]] = [(level, None) for level in LEVELS if level != "ismcts"]
    rows += [("ismcts", args.playouts), ("ismcts", DEFAULT_PLAYOUTS)]
    for level, playouts in rows:
        label = level
        if playouts is not None:
            label += f" at {playouts} playouts"
            label += " (the site's budget)" if playouts == DEFAULT_PLAYOUTS else ""
            sample = views[: 10 if args.quick else 40]
            _, ms = decision_rate(level, sample, min_seconds=0, playouts=playouts)
            level_hands = max(20 if args.quick else 100, hands * STRENGTH_PLAYOUTS // playouts)
            level_hands = min(hands, level_hands)
        else:
            _, ms = decision_rate(level, views, min_seconds=1.0)
            level_hands = hands
        share = letters_share(level, level_hands, playouts=playouts or 1, processes=args.processes)
        print(f"bot {label}: {share}; {ms:.2f} ms/decision", flush=True)
    print(all_ismcts_row(table_hands, playouts=args.playouts, processes=args.processes), flush=True)
    print(analysis_row(4 if args.quick else 20))


if __name__ == "__main__":
    main()
