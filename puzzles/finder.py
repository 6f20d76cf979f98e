"""Puzzles found in finished hands: the decision where the player's move cost most.

Pure and deterministic, like the analysis it reads (:mod:`games.bots.analysis`): the
strong bot's estimate, for each legal move of one seat's decisions, of his chance of
ending the hand with the letter.

A decision makes a puzzle when it has *one clear answer*: the moves whose chance is
within :data:`TOLERANCE` of the best's are one move in effect (two moves that close are
the same to the estimate, so a puzzle never asks for a distinction the bot cannot
make), and every other move costs at least :data:`THRESHOLD` more than it. Those moves
are the puzzle's *solutions* (the answer and the legal moves the same in effect). Its
*wrong* move is the move made if it was not a solution (the mistake the player made
there), else the worst move.

Of a hand's decisions that make a puzzle, those where the move made was the mistake
come first: the puzzle is cut where the player lost the hand, not where he played
well and some other move would have been worse. Among them the one whose wrong move
cost most is taken (the first of equals).

A candidate is estimated again with :data:`RECHECK_FACTOR` times the deals, on other
deals, and kept only if the re-check agrees: it has one clear answer too, the first
best move is that answer, and the wrong move still costs at least the threshold. The
kept puzzle's numbers are the re-check's.

Themes (:func:`themes_of`) are named by what the solution does, from rules on the
move and the position alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.bots.analysis import (
    ANALYSIS_PLAYOUTS,
    MoveChance,
    analyse_hand,
    decisions_of,
    move_chances,
)
from games.bots.features import RANK_OF, move_key
from games.engine import HandState, move_from_json

__all__ = [
    "RECHECK_FACTOR",
    "THEMES",
    "THRESHOLD",
    "TOLERANCE",
    "Candidate",
    "Finding",
    "candidate_of",
    "find_puzzle",
    "position_hash",
    "recheck",
    "themes_of",
]

# Two moves whose chances of the letter differ by less than this are equally good.
TOLERANCE = 0.05
# A decision is a puzzle only if every move but its answer costs at least this chance of
# the letter more than the answer: the answer is clear, no move is nearly as good.
THRESHOLD = 0.30
# The re-check's deals, as a multiple of the first estimate's.
RECHECK_FACTOR = 4

# Theme keys, in the order a puzzle lists them; their words are in puzzles/data/themes.toml
# (read by puzzles.themes).
THEMES = (
    "pick_up",
    "go_out",
    "four_of_a_kind",
    "three_of_a_kind",
    "play_on",
    "save_high_cards",
    "play_low",
    "keep_nines",
    "spade_back",
    "best_card",
)


@dataclass(frozen=True)
class Candidate:
    """A puzzle as found: the solver's ``view`` (``view_for`` of the seat to move),
    every legal move within the tolerance of the best (``solutions``), the wrong move
    it is set against (``made``: the move the player made there), and every move
    distinct in effect with its chance, best first."""

    step: int
    view: dict[str, Any]
    solutions: tuple[dict[str, Any], ...]
    wrong: MoveChance
    best: MoveChance
    chances: tuple[MoveChance, ...]
    playouts: int
    made: bool = False

    @property
    def spread(self) -> float:
        return round(self.wrong.loss - self.best.loss, 4)

    @property
    def themes(self) -> tuple[str, ...]:
        return themes_of(self.view, self.solutions, self.wrong.move)


@dataclass(frozen=True)
class Finding:
    """What one analysed hand gave: the candidate (None: no decision mattered enough)
    and the puzzle kept after the re-check (None: none, or the re-check disagreed)."""

    candidate: Candidate | None
    kept: Candidate | None


def _key(view: dict[str, Any], move: dict[str, Any]) -> int:
    return move_key(move_from_json(move), view["rules"]["spades_back"])


def _candidate(
    step: int,
    view: dict[str, Any],
    chances: dict[int, MoveChance],
    made: dict[str, Any] | None,
    playouts: int,
) -> Candidate | None:
    """The candidate of one decision from its chances by move key, or None if the
    decision has no clear answer (module docstring)."""
    ranked = sorted(chances.values(), key=lambda c: c.loss)
    best = ranked[0]
    answers = [c for c in ranked if c.loss <= best.loss + TOLERANCE]
    others = ranked[len(answers) :]
    if len(answers) > 1 or not others or others[0].loss - best.loss < THRESHOLD:
        return None
    wrong, made_wrong = ranked[-1], False
    if made is not None and _key(view, made) != _key(view, best.move):
        wrong, made_wrong = MoveChance(made, chances[_key(view, made)].loss), True
    solutions = tuple(m for m in view["legal_moves"] if _key(view, m) == _key(view, best.move))
    return Candidate(step, view, solutions, wrong, best, tuple(ranked), playouts, made_wrong)


def candidate_of(
    decisions: Sequence[tuple[int, dict[str, Any], dict[str, Any], dict[int, MoveChance]]],
    playouts: int,
) -> Candidate | None:
    """The decision of ``(step, view, move made, chances by move key)`` that makes the
    puzzle: one where the move made was the mistake if there is one, the costliest of
    them (the first of equals); None if no decision has one clear answer."""
    found = [
        _candidate(step, view, chances, made, playouts) for step, view, made, chances in decisions
    ]
    kept = [c for c in found if c is not None]
    return max(kept, key=lambda c: (c.made, c.spread)) if kept else None


def recheck(candidate: Candidate, *, seed: str, factor: int = RECHECK_FACTOR) -> Candidate | None:
    """The candidate estimated again on ``factor`` times its deals (other deals, from
    ``seed``), if the re-check agrees with it (module docstring), else None."""
    playouts = candidate.playouts * factor
    view = candidate.view
    chances = move_chances(view, seed=seed, playouts=playouts)
    best = min(c.loss for c in chances.values())
    first_best = chances[_key(view, candidate.best.move)]
    wrong = chances[_key(view, candidate.wrong.move)]
    if first_best.loss > best + TOLERANCE or wrong.loss - best < THRESHOLD:
        return None
    again = _candidate(candidate.step, view, chances, None, playouts)
    if again is None:
        return None
    return Candidate(
        candidate.step,
        view,
        again.solutions,
        MoveChance(candidate.wrong.move, wrong.loss),
        again.best,
        again.chances,
        playouts,
        candidate.made,
    )


def find_puzzle(
    start: HandState,
    moves: Sequence[dict[str, Any]],
    seat: int,
    *,
    seed: str,
    playouts: int = ANALYSIS_PLAYOUTS,
    factor: int = RECHECK_FACTOR,
) -> Finding:
    """The puzzle of ``seat``'s decisions in the hand ``moves`` play from ``start``
    (as :func:`~games.bots.analysis.analyse_hand` takes them), re-checked."""
    analysis = analyse_hand(start, moves, seat, seed=seed, playouts=playouts)
    views = {step: view for step, view, _ in decisions_of(start, moves, seat)}
    decisions = []
    for decision in analysis.decisions:
        view = views[decision.step]
        chances = {_key(view, c.move): c for c in decision.moves}
        decisions.append((decision.step, view, decision.made.move, chances))
    candidate = candidate_of(decisions, playouts)
    if candidate is None:
        return Finding(None, None)
    return Finding(candidate, recheck(candidate, seed=f"{seed}:recheck", factor=factor))


# -- themes -----------------------------------------------------------------------------


def _rank(code: str) -> int:
    return RANK_OF[code]


def themes_of(
    view: dict[str, Any], solutions: Sequence[dict[str, Any]], wrong: dict[str, Any]
) -> tuple[str, ...]:
    """The themes of a puzzle, named by what its solution does (keys of :data:`THEMES`,
    at least one)."""
    seat = view["seat"]
    held = len(view["hand"]) + view["beton_counts"][seat]
    plays = [m["cards"] for m in solutions if m["type"] == "play"]
    singles = [cards[0] for cards in plays if len(cards) == 1]
    found: set[str] = set()
    if not plays:
        found.add("pick_up")
    if any(len(cards) == held for cards in plays):
        found.add("go_out")
    if any(len(cards) == 4 for cards in plays):
        found.add("four_of_a_kind")
    if any(len(cards) == 3 for cards in plays):
        found.add("three_of_a_kind")
    if wrong["type"] == "pickup" and plays:
        found.add("play_on")
    if wrong["type"] == "play" and singles:
        wrong_rank = _rank(wrong["cards"][-1])
        if all(_rank(code) < wrong_rank for code in singles):
            found.add("save_high_cards")
        base_rank = _rank(view["pile"][0]) if view["pile"] else None
        if (
            base_rank is not None
            and wrong_rank == base_rank
            and base_rank not in map(_rank, singles)
        ):
            found.add("keep_nines")
    legal_singles = [
        m["cards"][0] for m in view["legal_moves"] if m["type"] == "play" and len(m["cards"]) == 1
    ]
    lowest = min(map(_rank, legal_singles), default=None)
    if singles and min(map(_rank, singles)) == lowest and len(set(map(_rank, legal_singles))) > 1:
        found.add("play_low")
    if view["rules"]["spades_back"] and any(cards[-1][-1] == "S" for cards in plays):
        found.add("spade_back")
    if not found:
        found.add("best_card")
    return tuple(t for t in THEMES if t in found)


def position_hash(view: dict[str, Any]) -> str:
    """What makes two puzzles the same: the rules, the seat's cards, the pile and the
    counts (not the way the hand came there)."""
    key = {
        "rules": view["rules"],
        "seat": view["seat"],
        "players": view["players"],
        "hand": sorted(view["hand"]),
        "pile": view["pile"],
        "hand_counts": view["hand_counts"],
        "beton_counts": view["beton_counts"],
    }
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
