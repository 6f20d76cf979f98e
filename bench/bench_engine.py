"""Engine throughput: ``python -m bench.bench_engine``.

Plays whole hands (default rules, 4 players) choosing uniformly among
``legal_moves()`` with a seeded ``random.Random`` -- randomness lives here,
never in the engine -- and counts plays and pick-ups per second, single
core. Each hand ends by its outcome or at ``max_actions``. Several runs of
at least ``--seconds`` each; the median is printed as::

    engine actions/s: N

Rows for bots can be added later: write a ``chooser`` (state, rng) -> move
and pass it to :func:`measure` with its own label in :func:`main`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from games.engine import HandState, Move, Rules, deal

Chooser = Callable[[HandState, random.Random], Move]


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is printed")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of one run")
    args = parser.parse_args(argv)
    rate = measure(random_chooser, runs=args.runs, seconds=args.seconds)
    print(f"engine actions/s: {rate:,.0f}".replace(",", ""))


if __name__ == "__main__":
    main()
