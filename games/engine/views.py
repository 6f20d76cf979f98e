"""What a seat sees of a hand (RULES §10), and a whole position guessed back from it.

- :func:`public_view`: what every player and spectator may see: the counts
  of every hand and beton, the pile, whose turn it is, the history, the outcome.
- :func:`private_view`: what only one seat may see besides: his own hand and,
  on his turn, his legal moves. A seat's whole view is both together
  (:func:`view_for`); a server that shows many viewers builds the public part
  once and adds each one's own.
- :func:`position_from_view`: a full position from a view and a guess of the
  cards it hides, as a bot's search needs (the fields ``HandState.from_position``
  takes).

All are JSON-ready dicts. This module reads a state through its public
interface only; ``HandState``'s methods of the same names are these functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from games.engine.moves import move_to_json
from games.engine.rules import Rules

if TYPE_CHECKING:
    from games.engine.hand import HandState

__all__ = ["position_from_view", "private_view", "public_view", "view_for"]


def public_view(state: HandState) -> dict[str, Any]:
    """What every player and spectator may see (RULES §10), JSON-ready."""
    outcome = state.outcome
    return {
        "players": state.players,
        "dealer": state.dealer,
        "rules": state.rules.to_json(),
        "hand_counts": list(state.hand_counts),
        "beton_counts": list(state.beton_counts),
        "pile": list(state.pile),
        "top": state.top,
        "top_rank": state.top_rank,
        "to_move": state.to_move,
        "action_count": state.action_count,
        "history": state.history_json(),
        "outcome": None if outcome is None else outcome.to_json(),
    }


def private_view(state: HandState, seat: int) -> dict[str, Any]:
    """What only ``seat`` may see beside the public view: his hand and legal moves.

    His beton is in ``hand`` only once revealed (it then is his hand);
    ``legal_moves`` is empty unless it is his turn. ``ValueError`` for no seat
    of the table.
    """
    if type(seat) is not int or not 0 <= seat < state.players:
        raise ValueError(f"no seat {seat!r} at a table of {state.players}")
    return {
        "seat": seat,
        "hand": list(state.hand(seat)),
        "legal_moves": (
            [move_to_json(m) for m in state.legal_moves()] if seat == state.to_move else []
        ),
    }


def view_for(state: HandState, seat: int) -> dict[str, Any]:
    """What ``seat`` may see: ``{**public_view(state), **private_view(state, seat)}``."""
    return {**public_view(state), **private_view(state, seat)}


def position_from_view(
    view: dict[str, Any],
    *,
    hands: Sequence[Iterable[str] | None],
    betons: Sequence[Iterable[str]] | None = None,
) -> dict[str, Any]:
    """The fields of a full position from ``view_for(seat)`` plus a guess of the unknown
    cards, as ``HandState.from_position`` takes them.

    ``hands[i]`` are the guessed cards of seat ``i`` (``None`` for the viewer's own
    seat: taken from the view), ``betons[i]`` the guessed unrevealed betons.
    ``ValueError`` unless the counts match the view's.
    """
    seat = view.get("seat")
    rules = Rules.from_json(view["rules"])
    full_hands = []
    for i, guess in enumerate(hands):
        cards = list(view["hand"]) if i == seat and guess is None else list(guess or ())
        if len(cards) != view["hand_counts"][i]:
            raise ValueError(
                f"seat {i} holds {view['hand_counts'][i]} cards, the guess has {len(cards)}"
            )
        full_hands.append(cards)
    full_betons = [list(b) for b in betons] if betons is not None else [[] for _ in hands]
    for i, cards in enumerate(full_betons):
        if len(cards) != view["beton_counts"][i]:
            raise ValueError(
                f"seat {i} has {view['beton_counts'][i]} beton cards, the guess has {len(cards)}"
            )
    return {
        "rules": rules,
        "hands": full_hands,
        "betons": full_betons,
        "pile": view["pile"],
        "to_move": view["to_move"],
        "action_count": view["action_count"],
        "history": view["history"],
        "dealer": view.get("dealer"),
    }
