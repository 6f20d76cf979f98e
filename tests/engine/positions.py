"""Positions for engine and bot tests, written as space-separated card strings."""

from __future__ import annotations

from typing import Any

from games.engine import HandState, Rules


def pos(
    hands: list[str],
    pile: str = "9H",
    to_move: int = 0,
    rules: Rules | None = None,
    betons: list[str] | None = None,
    **kw: Any,
) -> HandState:
    """A position from space-separated card strings ("" = a seat that is out)."""
    return HandState.from_position(
        rules=rules or Rules(),
        hands=[h.split() for h in hands],
        betons=None if betons is None else [b.split() for b in betons],
        pile=pile.split(),
        to_move=to_move,
        **kw,
    )
