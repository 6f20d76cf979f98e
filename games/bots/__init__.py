"""Bots: each chooses a move from the view of its own seat only, so it cannot cheat.

Three levels (``LEVELS``):

- ``random``: a uniformly random legal move;
- ``greedy``: a one-move heuristic (:mod:`games.bots.greedy`);
- ``ismcts``: information-set Monte Carlo tree search over deals of the cards
  the seat cannot see (:mod:`games.bots.ismcts`).

Pure Python on top of the engine: no Django, no I/O, no global random state;
the only clock read is the search's own deadline when ``budget_ms`` is given.
"""

from __future__ import annotations

import random
from typing import Any

from games.bots.greedy import greedy_for_view
from games.bots.ismcts import DEFAULT_PLAYOUTS, check_budget, ismcts_move
from games.engine import move_from_json, move_to_json

__all__ = ["DEFAULT_PLAYOUTS", "LEVELS", "choose_move"]

LEVELS = ("random", "greedy", "ismcts")


def choose_move(
    level: str,
    view: dict[str, Any],
    *,
    seed: str,
    budget_ms: int | None = None,
    playouts: int | None = None,
) -> dict[str, Any]:
    """The move JSON (e.g. ``{"type": "play", "cards": ["QH"]}``) the bot of ``level`` makes.

    ``view`` is ``HandState.view_for(seat)`` for the seat to move; nothing
    else is read, so the bot knows only what that seat may see. The result is
    always one of ``view["legal_moves"]`` (a new dict). ``seed`` seeds a local
    ``random.Random``: for a given ``(level, view, seed)`` and a budget in
    ``playouts`` (or none: the ``ismcts`` default is :data:`DEFAULT_PLAYOUTS`)
    the move is always the same. ``budget_ms`` bounds the ``ismcts`` search
    by time instead (then the move may vary with the machine's speed); the
    other levels ignore both budgets.

    Raises ``ValueError`` for an unknown level, a budget that is not a
    positive int, or a view without legal moves (not this seat's turn, or the
    hand is over).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")
    check_budget(playouts=playouts, budget_ms=budget_ms)
    legal = view["legal_moves"]
    if not legal:
        raise ValueError("the view has no legal moves: it is not this seat's turn")
    rng = random.Random(seed)
    if level == "random":
        move = move_from_json(rng.choice(legal))
    elif level == "greedy":
        move = greedy_for_view(view)
    else:
        move = ismcts_move(view, rng, playouts=playouts, budget_ms=budget_ms)
    return move_to_json(move)
