"""Engine throughput and the bots: ``python -m bench.bench_engine``.

Engine: plays whole hands (default rules, 4 players) choosing uniformly among
``legal_moves()`` with a seeded ``random.Random`` -- randomness lives here,
never in the engine -- and counts plays and pick-ups per second of CPU time
of this process (single core). Each hand ends by its outcome or at
``max_actions``. The reference engine (``bench.reference_engine``: the same
rules written the plain way) plays the same workload: the same deals, the
same ``max_actions``, a generator seeded alike choosing among moves listed in
the same order, so both play the very same hands, a few hands each in turn.
Several runs of at least ``--seconds`` each; the medians are printed, and the
median of the runs' ratios::

    engine actions/s: N
    reference actions/s: N
    engine/reference: N.NNx

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

from bench import reference_engine
from games.bots import DEFAULT_PLAYOUTS, LEVELS, choose_move
from games.bots.analysis import ANALYSIS_PLAYOUTS, analyse_hand
from games.bots.features import distinct_moves
from games.engine import HandState, Move, Rules, deal, move_from_json, move_to_json
from games.engine.shuffle import shuffled_deck

Chooser = Callable[[HandState, random.Random], Move]

PLAYERS = 4
STRENGTH_PLAYOUTS = 50
BATCH_HANDS = 4  # hands played at a time: a few milliseconds


def random_chooser(state: HandState, rng: random.Random) -> Move:
    """Uniformly random legal move."""
    return rng.choice(state.legal_moves())


def play_random_hands(
    numbers: range,
    chooser: Chooser,
    *,
    rules: Rules,
    players: int,
    rng: random.Random,
) -> tuple[int, float]:
    """Play the hands ``numbers`` (hand ``n``: seed ``bench:n``, dealer ``n % players``)
    to their ends; return (actions, seconds of CPU time of this process)."""
    actions = 0
    clock = time.process_time
    start = clock()
    for number in numbers:
        state = deal(rules, players, number % players, f"bench:{number}")
        while state.outcome is None:
            state = state.apply(chooser(state, rng))
        actions += state.action_count
    return actions, clock() - start


def play_for(
    seconds: float,
    chooser: Chooser,
    *,
    rules: Rules,
    players: int,
    rng: random.Random,
) -> tuple[int, float]:
    """Play hands (from hand 0 on) for at least ``seconds`` of CPU time; return (actions,
    seconds)."""
    actions, elapsed, first = 0, 0.0, 0
    while elapsed < seconds:
        batch = range(first, first + BATCH_HANDS)
        done, took = play_random_hands(batch, chooser, rules=rules, players=players, rng=rng)
        actions, elapsed, first = actions + done, elapsed + took, first + BATCH_HANDS
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


ReferenceChooser = Callable[[reference_engine.ReferenceHand, random.Random], tuple[int, ...]]


def reference_random_chooser(
    hand: reference_engine.ReferenceHand, rng: random.Random
) -> tuple[int, ...]:
    """Uniformly random legal move of the reference engine."""
    return rng.choice(hand.legal_moves())


def reference_play_random_hands(
    numbers: range,
    chooser: ReferenceChooser,
    *,
    max_actions: int,
    players: int,
    rng: random.Random,
) -> tuple[int, float]:
    """:func:`play_random_hands` with the reference engine: the same deals, in the same loop."""
    actions = 0
    codes = list(reference_engine.CODES)
    clock = time.process_time
    start = clock()
    for number in numbers:
        deck = shuffled_deck(f"bench:{number}", codes)
        hand = reference_engine.deal(deck, players, number % players, max_actions)
        while hand.outcome is None:
            hand.apply(chooser(hand, rng))
        actions += hand.actions
    return actions, clock() - start


@dataclass(frozen=True)
class Comparison:
    """Median actions per second of the engine and of the reference engine over the
    runs, and the median of the runs' ratios (engine's rate / reference's)."""

    engine: float
    reference: float
    ratio: float


def compare_with_reference(
    *, runs: int, seconds: float, players: int = PLAYERS, seed: int = 12345
) -> Comparison:
    """Random play with default rules by the engine and by the reference engine.

    In each run both play the same hands, in turns of :data:`BATCH_HANDS` hands each
    (so that whatever else the machine does touches both alike), each with its own
    generator seeded alike, until each has used ``seconds`` of CPU time.
    """
    rules = Rules()
    engine_rates, reference_rates, ratios = [], [], []
    for run in range(runs):
        engine_rng, reference_rng = random.Random(seed + run), random.Random(seed + run)
        engine_actions, engine_time, reference_actions, reference_time = 0, 0.0, 0, 0.0
        first = 0
        while min(engine_time, reference_time) < seconds:
            batch = range(first, first + BATCH_HANDS)
            first += BATCH_HANDS
            done, took = play_random_hands(
                batch, random_chooser, rules=rules, players=players, rng=engine_rng
            )
            engine_actions, engine_time = engine_actions + done, engine_time + took
            done, took = reference_play_random_hands(
                batch,
                reference_random_chooser,
                max_actions=rules.max_actions,
                players=players,
                rng=reference_rng,
            )
            reference_actions, reference_time = reference_actions + done, reference_time + took
        engine_rates.append(engine_actions / engine_time)
        reference_rates.append(reference_actions / reference_time)
        ratios.append(engine_rates[-1] / reference_rates[-1])
    return Comparison(
        statistics.median(engine_rates),
        statistics.median(reference_rates),
        statistics.median(ratios),
    )


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
    parser.add_argument(
        "--engine-only",
        "--no-bots",
        dest="no_bots",
        action="store_true",
        help="only the engine rows (the engine beside the reference engine)",
    )
    args = parser.parse_args(argv)
    compared = compare_with_reference(runs=args.runs, seconds=args.seconds)
    print(f"engine actions/s: {compared.engine:.0f}")
    print(f"reference actions/s: {compared.reference:.0f}")
    print(f"engine/reference: {compared.ratio:.2f}x", flush=True)
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
