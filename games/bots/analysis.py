"""Where a player lost a hand: the bot's estimate of his chance of losing after each move.

For every decision of one seat in a finished hand, :func:`analyse_hand` takes that
seat's own view at that moment (``view_for(seat)``: his cards, the pile, the counts,
the public history; never the others' cards) and, for each legal move, estimates the
chance that the seat ends the hand with the letter. The estimate is the ismcts bot's
(:mod:`games.bots.ismcts`) without its tree: flat determinised Monte Carlo with the
bot's own parts. ``playouts`` deals of the unseen cards consistent with the view
(:class:`~games.bots.knowledge.Knowledge`) are drawn once per decision and shared by
every move (common random numbers: the moves are compared on the same deals); after
the move every seat plays on greedily (the bot's rollout policy) for at most
``rollout_plies`` actions; a finished hand counts 1 if the seat is the loser, 0
otherwise (a tie is no letter); a hand still running counts the chance the bot's
fitted evaluation gives the seat of losing from there.

The *decisive* decision is the one where the chance of losing after the move made rose
most above the chance after his previous move; None when it never rose. His first
decision has no previous move, so no rise. That rise counts the others' moves since
his last turn as well as his own; what his own move cost is its *cost*, its chance of
losing minus that of the best move, and the *costliest* decision is the one where it
was highest (None when he always chose a best move).

Each decision is estimated anew from the view at that turn: the moves of one decision
are compared on the same deals, but two decisions are two estimates. A later view knows
more (the others' real moves, the cards picked up), and the seat may then choose better
than the greedy play the earlier rollouts assumed of him, so a chance estimated near 1
after one move can be followed by much lower ones at his next turn.

Pure and deterministic: no clock, all randomness from ``random.Random(seed)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from games.bots.features import distinct_moves, move_key
from games.bots.greedy import DEFAULT_STYLE, greedy_for_state
from games.bots.ismcts import DEFAULT_SETTINGS, make_evaluator
from games.bots.knowledge import Knowledge
from games.engine import HandState, Timeout, move_from_json, move_to_json

__all__ = [
    "ANALYSIS_PLAYOUTS",
    "ANALYSIS_ROLLOUT_PLIES",
    "Analysis",
    "Decision",
    "MoveChance",
    "analyse_hand",
    "decisions_of",
    "move_chances",
    "seat_loss_chances",
]

# Deals per decision, each played out after every legal move. With the rollout below
# a hand of four takes a few seconds of one core (bench/bench_engine.py prints it).
ANALYSIS_PLAYOUTS = 200
ANALYSIS_ROLLOUT_PLIES = 24


@dataclass(frozen=True)
class MoveChance:
    """One legal move (JSON) and the estimated chance of losing the hand after it."""

    move: dict[str, Any]
    loss: float


@dataclass(frozen=True)
class Decision:
    """One turn of the seat: ``step`` is its index in the hand's list of moves."""

    step: int
    moves: tuple[MoveChance, ...]  # one per move distinct in effect, best first
    made: MoveChance
    best: MoveChance
    rise: float | None  # loss after the move made, minus after his previous move (None: first)

    @property
    def cost(self) -> float:
        """What the move made cost him beside the best: ``made.loss - best.loss``."""
        return round(self.made.loss - self.best.loss, 4)

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "moves": [{"move": m.move, "loss": m.loss} for m in self.moves],
            "made": {"move": self.made.move, "loss": self.made.loss},
            "best": {"move": self.best.move, "loss": self.best.loss},
            "rise": self.rise,
            "cost": self.cost,
        }


@dataclass(frozen=True)
class Analysis:
    seat: int
    players: int
    playouts: int
    decisions: tuple[Decision, ...]
    decisive: int | None  # index into ``decisions``: where the chance rose most
    costliest: int | None  # index into ``decisions``: the move that cost most beside the best

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "players": self.players,
            "playouts": self.playouts,
            "decisions": [d.to_json() for d in self.decisions],
            "decisive": self.decisive,
            "costliest": self.costliest,
        }


def decisions_of(
    start: HandState, moves: Sequence[dict[str, Any]], seat: int
) -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    """``(step, view, move made)`` for each of ``seat``'s decisions in the hand that
    ``moves`` (move JSON, timeouts included, the automatic final play left out) play
    from ``start``. ``view`` is ``view_for(seat)``: all a decision is judged on. A
    timeout is no decision (nothing was chosen)."""
    found = []
    state = start
    for step, data in enumerate(moves):
        move = move_from_json(data)
        if isinstance(move, Timeout):
            state = state.timeout()
            continue
        if state.to_move == seat:
            found.append((step, state.view_for(seat), data))
        state = state.apply(move)
    return found


def analyse_hand(
    start: HandState,
    moves: Sequence[dict[str, Any]],
    seat: int,
    *,
    seed: str,
    playouts: int = ANALYSIS_PLAYOUTS,
    rollout_plies: int = ANALYSIS_ROLLOUT_PLIES,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """The analysis of ``seat``'s decisions (module docstring), each judged from his view.

    ``progress(done, total)`` is called after each decision. The result depends only on
    the seat's views, the moves made, ``seed``, ``playouts`` and ``rollout_plies``.
    """
    if type(playouts) is not int or playouts < 1:
        raise ValueError(f"playouts must be a positive whole number, not {playouts!r}")
    found = decisions_of(start, moves, seat)
    players = start.players
    decisions: list[Decision] = []
    previous: float | None = None
    for done, (step, view, made) in enumerate(found, start=1):
        rng = random.Random(f"{seed}:{step}")
        chances = _move_chances(view, rng, playouts, rollout_plies)
        key = move_key(move_from_json(made), view["rules"]["spades_back"])
        made_chance = next(c for k, c in chances if k == key)
        ranked = sorted((c for _, c in chances), key=lambda c: c.loss)
        made_chance = MoveChance(made, made_chance.loss)
        decisions.append(
            Decision(
                step=step,
                moves=tuple(ranked),
                made=made_chance,
                best=ranked[0],
                rise=None if previous is None else round(made_chance.loss - previous, 4),
            )
        )
        previous = made_chance.loss
        if progress is not None:
            progress(done, len(found))
    return Analysis(
        seat,
        players,
        playouts,
        tuple(decisions),
        decisive=_first_highest([d.rise for d in decisions]),
        costliest=_first_highest([d.cost for d in decisions]),
    )


def _first_highest(values: list[float | None]) -> int | None:
    """The index of the first highest of ``values`` (None left out) if it is above 0,
    else None."""
    known = [v for v in values if v is not None]
    if not known or max(known) <= 0:
        return None
    return values.index(max(known))


def move_chances(
    view: dict[str, Any],
    *,
    seed: str,
    playouts: int = ANALYSIS_PLAYOUTS,
    rollout_plies: int = ANALYSIS_ROLLOUT_PLIES,
) -> dict[int, MoveChance]:
    """``move_key -> MoveChance`` for each move distinct in effect of the seat to move in
    ``view`` (his ``view_for``), estimated as one decision of :func:`analyse_hand` is, on
    ``playouts`` deals drawn from ``random.Random(seed)``."""
    return dict(_move_chances(view, random.Random(seed), playouts, rollout_plies))


def _move_chances(
    view: dict[str, Any], rng: random.Random, playouts: int, rollout_plies: int
) -> list[tuple[int, MoveChance]]:
    seat = view["seat"]
    return [
        (key, MoveChance(move, losses[seat]))
        for key, move, losses in seat_loss_chances(
            view, Knowledge.from_view(view), rng, playouts, rollout_plies
        )
    ]


def seat_loss_chances(
    view: dict[str, Any],
    knowledge: Knowledge,
    rng: random.Random,
    playouts: int,
    rollout_plies: int,
) -> list[tuple[int, dict[str, Any], tuple[float, ...]]]:
    """``(move_key, move JSON, every seat's chance of losing after it)`` for each move
    distinct in effect of the seat to move in ``view``, on ``playouts`` deals drawn from
    ``knowledge`` (his own view's, or one that knows more: the fair-play check deals a
    partner's real hand) and shared by every move, each played on greedily for at most
    ``rollout_plies`` actions (module docstring)."""
    spades_back = view["rules"]["spades_back"]
    legal = [move_from_json(m) for m in view["legal_moves"]]
    choices = distinct_moves(legal, spades_back)
    loss_chances = _loss_chances_for(knowledge)
    deals = [knowledge.determinise(rng) for _ in range(playouts)]
    players = view["players"]
    result = []
    for key, move in choices.items():
        totals = [0.0] * players
        for state in deals:
            after = state.apply(move)
            plies = rollout_plies
            while after.outcome is None and plies > 0:
                after = after.apply(greedy_for_state(after, DEFAULT_STYLE))
                plies -= 1
            for s, loss in enumerate(loss_chances(after)):
                totals[s] += loss
        losses = tuple(round(total / playouts, 4) for total in totals)
        result.append((key, move_to_json(move), losses))
    return result


def _loss_chances_for(knowledge: Knowledge) -> Callable[[HandState], list[float]]:
    """``state -> each seat's chance of losing from it``: the outcome when the hand is
    over (a tie is no letter), else what the ismcts bot's fitted evaluation gives him
    (its reward is ``(1 - chance) * (1 - holding_penalty)`` for a seat holding cards)."""
    evaluate = make_evaluator(knowledge.rules, DEFAULT_SETTINGS)
    holding = 1.0 - DEFAULT_SETTINGS.holding_penalty

    def loss_chances(state: HandState) -> list[float]:
        outcome = state.outcome
        if outcome is not None:
            return [1.0 if outcome.loser == s else 0.0 for s in range(state.players)]
        rewards = evaluate(state)
        return [
            max(0.0, 1.0 - reward / holding) if count else 0.0
            for reward, count in zip(rewards, state.hand_counts, strict=True)
        ]

    return loss_chances
