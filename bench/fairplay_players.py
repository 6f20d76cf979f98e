"""The players of the fair-play simulation (``bench/bench_fairplay.py``): how each kind of
honest or cheating player chooses a move and how long he thinks.

Each takes the full state of the hand (a cheater sees what his partner shows him; an
honest player reads only his own view) and returns a move's JSON. Pure: the randomness
comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from fairplay.signals import informed_knowledge
from games.bots import choose_move
from games.bots.analysis import seat_loss_chances
from games.bots.knowledge import Knowledge
from games.engine import HandState

# The estimates a cheater's helper makes per decision (more than the detector's own).
CHEAT_PLAYOUTS = 32
CHEAT_PLIES = 8


@dataclass(frozen=True)
class Player:
    """``kind``: honest, feeder (plays for the pair with ``partner``, seeing only his own
    cards), sharer (the same, and the partner shows him his hand), assisted (plays the
    strong bot's moves), dumper (loses so that ``partner`` gains) or gainer (his partner,
    who plays honestly).
    ``level``: an honest player's bot (random, greedy, good: the search at 60 playouts).
    ``noise``: the share of his decisions made by the greedy bot instead."""

    kind: str
    level: str = "greedy"
    noise: float = 0.0
    partner: int | None = None  # the partner's seat at the table, set per match


def honest_move(level: str, state: HandState, rng: random.Random) -> dict:
    view = state.view_for(state.to_move)
    seed = str(rng.random())
    if level == "good":
        return choose_move("ismcts", view, seed=seed, playouts=60)
    return choose_move(level, view, seed=seed)


def best_for(
    state: HandState, rng: random.Random, weights: dict[int, float], *, knows: int | None
) -> dict:
    """The move minimising ``sum(weight * chance of losing)`` of the seats weighted,
    estimated from the mover's view, with ``knows``'s hand shown to him (or not)."""
    seat = state.to_move
    view = state.view_for(seat)
    knowledge = (
        Knowledge.from_view(view)
        if knows is None
        else informed_knowledge(view, knows, state.hand(knows))
    )
    chances = seat_loss_chances(view, knowledge, rng, CHEAT_PLAYOUTS, CHEAT_PLIES)
    _, move, _ = min(chances, key=lambda c: sum(w * c[2][s] for s, w in weights.items()))
    return move


def player_move(player: Player, state: HandState, rng: random.Random) -> dict:
    """The move ``player`` (to move in ``state``) makes."""
    seat = state.to_move
    view = state.view_for(seat)
    if len(view["legal_moves"]) == 1:
        return view["legal_moves"][0]
    if player.noise and rng.random() < player.noise:
        return choose_move("greedy", view, seed="noise")
    if player.kind in ("sharer", "feeder") and player.partner is not None:
        knows = player.partner if player.kind == "sharer" else None
        return best_for(state, rng, {seat: 1.0, player.partner: 1.0}, knows=knows)
    if player.kind == "dumper" and player.partner is not None:
        # He takes the letter for his partner: the partner's chance first, his own last.
        return best_for(state, rng, {player.partner: 1.0, seat: -0.3}, knows=None)
    if player.kind == "assisted":
        return choose_move("ismcts", view, seed=str(rng.random()), playouts=500)
    return honest_move(player.level, state, rng)


def thinking_ms(player: Player, state: HandState, rng: random.Random) -> int:
    """How long he takes: a person's time varies (log-normal, longer with more moves to
    weigh); a relay of a program's answer takes about the same few seconds each time."""
    moves = len(state.legal_moves())
    if player.kind == "assisted":
        return int(rng.uniform(3500, 5500))
    if moves == 1:
        return int(rng.lognormvariate(math.log(900), 0.5))
    return int(rng.lognormvariate(math.log(1500 + 400 * min(moves, 8)), 0.8))
