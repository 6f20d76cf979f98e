"""Bots: each chooses a move from the view of its own seat only (it cannot cheat).

Placeholder dispatch until the bot levels land: every level plays uniformly at random.
"""

from __future__ import annotations

import random
from typing import Any

LEVELS = ("random", "greedy", "ismcts")


def choose_move(level: str, view: dict[str, Any], *, seed: str) -> dict[str, Any]:
    """The move JSON the bot of ``level`` makes from ``view`` (a ``view_for(seat)``)."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}")
    return random.Random(seed).choice(view["legal_moves"])
