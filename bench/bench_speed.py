"""N of the speeds' estimated hand duration (``python -m bench.bench_speed``).

``games.speeds`` estimates how long a hand lasts for one player as ``base + N ×
increment``. N is measured here: bots of the site play whole hands with default rules,
through the view of the seat to move as the site calls them (``games.bots.choose_move``),
and the bench counts each seat's own actions in each hand (an automatic final play of a
tie is not his action: no increment is added for it). It prints, for 2, 3 and 4 seats
and for all together, the median and the quartiles of a player's own actions per hand::

    greedy, 4 seats: median 18, quartiles 10-27 over 8000 player-hands

Every hand is seeded (hand ``n``: seed ``speed:n``, dealer ``n % seats``), so the
figures are the same on every run. ``--level`` picks the bots (greedy by default: the
strong bot plays much like it and costs a hundred times more); ``--hands`` the hands per
table size. Nothing is asserted: figures only.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter

from games.bots import LEVELS, choose_move
from games.engine import Rules, deal, move_from_json

SEATS = (2, 3, 4)


def own_actions(*, level: str, seats: int, hands: int) -> list[int]:
    """Each seat's own actions in each of ``hands`` hands of ``seats`` bots of ``level``."""
    counts = []
    for number in range(hands):
        state = deal(Rules(), seats, number % seats, f"speed:{number}")
        while state.outcome is None:
            seat = state.to_move
            move = choose_move(
                level, state.view_for(seat), seed=f"speed:{number}:{state.action_count}"
            )
            state = state.apply(move_from_json(move))
        done = Counter(entry.seat for entry in state.history if not entry.auto)
        counts.extend(done[seat] for seat in range(seats))
    return counts


def summary(label: str, counts: list[int]) -> str:
    low, _, high = statistics.quantiles(counts, n=4)
    return (
        f"{label}: median {statistics.median(counts):g}, quartiles {low:g}-{high:g}"
        f" over {len(counts)} player-hands"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", choices=LEVELS, default="greedy")
    parser.add_argument("--hands", type=int, default=2000, help="hands per table size")
    args = parser.parse_args()
    every: list[int] = []
    for seats in SEATS:
        counts = own_actions(level=args.level, seats=seats, hands=args.hands)
        every.extend(counts)
        print(summary(f"{args.level}, {seats} seats", counts), flush=True)
    print(summary(f"{args.level}, all", every))


if __name__ == "__main__":
    main()
