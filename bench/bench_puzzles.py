"""Puzzles from finished hands (`make bench-puzzles`): what one analysis worker makes.

Plays ``--hands`` bot hands (puzzles.making: the strong bot at one seat, greedy bots at
the others, default rules, a table of four), then does for each hand with a loser what
the analysis queue's task does (puzzles.finder: the loser's decisions analysed, the
candidate re-checked on four times the deals) and prints:

- puzzles made per minute of one analysis worker (its one thread: the CPU time of the
  analyses and re-checks alone, the hands' play not counted, as on the site);
- the share of analysed hands that yield a puzzle;
- the share of candidates that survive the re-check.

Pure Python: no database, no broker.
"""

from __future__ import annotations

import argparse
import time

from puzzles.making import find_in_bot_hand, play_bot_hand


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=30, help="bot hands to play (default 30)")
    parser.add_argument("--seed", default="bench-puzzles")
    options = parser.parse_args(argv)

    analysed = candidates = kept = 0
    seconds = 0.0
    for number in range(options.hands):
        hand = play_bot_hand(number, seed=options.seed)
        began = time.process_time()
        finding = find_in_bot_hand(hand, seed=f"{options.seed}:{number}")
        seconds += time.process_time() - began
        if finding is None:
            continue
        analysed += 1
        candidates += finding.candidate is not None
        kept += finding.kept is not None

    def share(part: int, whole: int) -> str:
        return f"{100 * part / whole:.0f} %" if whole else "n/a"

    per_minute = 60 * kept / seconds if seconds else 0.0
    print(
        f"puzzles made per minute of one analysis worker: {per_minute:.1f}"
        f" ({kept} puzzles in {seconds:.0f} s of one core)"
    )
    print(
        f"analysed hands that yield a puzzle: {share(kept, analysed)}"
        f" ({kept} of {analysed}; {options.hands - analysed} of {options.hands} hands were ties)"
    )
    print(f"puzzles that survive the re-check: {share(kept, candidates)} ({kept} of {candidates})")


if __name__ == "__main__":
    main()
