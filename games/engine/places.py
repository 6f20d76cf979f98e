"""The places of a finished hand: who went out first, second, … and who is last.

A hand is a race to empty one's hand (RULES §6): the first player to go out is first,
the player left holding cards is last. A seat goes out with the play that empties his
hand (and his beton), after which he never acts again, so the order of going out is
the order of the seats' last actions among those that hold no cards.

How each ending places the seats:

- ``last_player``: the order of going out; the loser last.
- ``final_play_tie``: the last player emptied his hand with the automatic final play
  (the rules' tie rule): he shares the last two places with the player who went out
  just before him, as a tie shares the letter nobody gets.
- ``timeout`` and ``max_actions`` with a loser: those who went out in their order, the
  loser last, and the players still holding cards share the places between.
- ``max_actions`` without a loser (a tie): the players still holding cards share the
  last places.
- ``aborted``: nobody is placed (``None``): the hand was stopped from outside the rules.

Pure: no Django, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine.hand import HandState
from games.engine.records import Reason

__all__ = ["Place", "hand_places"]


@dataclass(frozen=True)
class Place:
    """A seat's place in a hand: ``best`` and ``worst`` are equal unless the seat shares
    places with others (``best`` < ``worst``; every sharing seat has the same range)."""

    best: int
    worst: int

    @property
    def shared(self) -> bool:
        return self.best != self.worst


def hand_places(state: HandState) -> tuple[Place, ...] | None:
    """Each seat's place in the finished hand ``state``, by seat; ``None`` for a hand
    stopped from outside the rules (``aborted``). Raises ``ValueError`` while the hand
    is still in play."""
    outcome = state.outcome
    if outcome is None:
        raise ValueError("the hand is still in play")
    if outcome.reason is Reason.ABORTED:
        return None
    n = state.players
    last_action: dict[int, int] = {}
    for index, entry in enumerate(state.history):
        last_action[entry.seat] = index
    holding = state.holding
    loser = outcome.loser
    gone = [seat for seat in range(n) if not holding[seat] and seat != loser]
    gone.sort(key=lambda seat: last_action.get(seat, -1))
    places: dict[int, Place] = {}
    for number, seat in enumerate(gone, 1):
        places[seat] = Place(number, number)
    if outcome.reason is Reason.FINAL_PLAY_TIE and len(gone) >= 2:
        # The final play emptied the last hand: its player and the one out before him tie.
        tied = Place(len(gone) - 1, len(gone))
        places[gone[-1]] = places[gone[-2]] = tied
    still = [seat for seat in range(n) if holding[seat] and seat != loser]
    if still:
        first = len(gone) + 1
        last = first + len(still) - 1
        for seat in still:
            places[seat] = Place(first, last)
    if loser is not None:
        places[loser] = Place(n, n)
    return tuple(places[seat] for seat in range(n))
