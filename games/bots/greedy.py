"""The greedy bot: one look at the legal moves, no search. Also the search's rollout policy.

Pan punishes low cards: a card lower than the top cannot be played until the
pile is picked back down to it, and the seat left holding nines at the end is
the usual loser. High cards are easy to shed (anything goes on a low top, an
ace goes on anything). So, among the plays:

1. a play that empties the hand is made at once;
2. otherwise the lowest rank is shed first, all of a set at once: four of a
   rank (or three, where ``three_cards`` allows them) beat a single of that
   rank, and a single that would break up four of a kind (or three, where
   they can go down together) is only played when nothing else can be;
3. a joker goes on anything and keeps the top's rank, so it is kept as the
   last play before a pick-up;
4. with ``spades_back``, of two plays otherwise equal the spade is preferred:
   a spade on top brings the turn back sooner.

Picking up is what a player must do when he has no play; the greedy bot also
picks up of its own accord (when ``voluntary_pickup`` allows) in one case
that paid off best of the thresholds tried: every card it would take is a
queen or higher and its cheapest play is a king or higher. It then keeps its
high card and gains more, and the top drops for its low cards. It never picks
up otherwise, and takes the fewest cards a pick-up allows. That also breaks
the loops in which players only ever play the cards they just picked up: four
greedy bots end about four hands in five before ``max_actions``, against one
in three without that pick-up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from games.bots.features import JOKER_RANK, RANK_OF, move_infos
from games.engine import HandState, Move, move_from_json

__all__ = ["DEFAULT_STYLE", "Style", "greedy_for_state", "greedy_for_view", "greedy_move"]

RANK_OF_QUEEN = 10
RANK_OF_KING = 11


@dataclass(frozen=True)
class Style:
    """The greedy bot's constants (the defaults won the most against the alternatives tried).

    ``set_break``: extra cost, in quarter ranks, of a single that breaks up a
    set. ``joker_cost``: the cost of playing a joker (a single ace costs 47).
    The bot picks up of its own accord when every card taken is at least
    ``pickup_takes_from`` and its cheapest play is at least ``pickup_instead_of``
    (rank indices: 10 = queen, 11 = king; 99 turns it off).
    """

    set_break: int = 40
    joker_cost: int = 60
    pickup_takes_from: int = RANK_OF_QUEEN
    pickup_instead_of: int = RANK_OF_KING


DEFAULT_STYLE = Style()


def greedy_move(
    legal: Sequence[Move],
    hand_size: int,
    pile_of: Callable[[], Sequence[str]],
    threes: bool,
    spades_back: bool,
    style: Style = DEFAULT_STYLE,
) -> Move:
    """The greedy choice among ``legal`` (module docstring); deterministic.

    ``hand_size``: cards in the mover's hand; ``pile_of()`` returns the pile
    (called only when a voluntary pick-up is considered); ``threes``: whether
    three cards of a rank may go down together beyond the opening nines.
    """
    if len(legal) == 1:
        return legal[0]
    infos = move_infos(legal)
    # Every card of the top's rank or higher is a legal single, so the singles
    # listed count how many cards of each playable rank the hand holds.
    singles = [0] * (JOKER_RANK + 1)
    for _, rank, size, _ in infos:
        if size == 1 and rank >= 0:
            singles[rank] += 1
    best = None
    best_cost = 1 << 30
    best_rank = -1
    pickup = None
    for move, (_, rank, size, spade) in zip(legal, infos, strict=True):
        if rank < 0:
            if pickup is None or size < pickup[0]:
                pickup = (size, move)
            continue
        if size == hand_size:
            return move
        if rank == JOKER_RANK:
            cost = style.joker_cost
        else:
            # Quarter ranks: at one rank, four cards beat three beat one.
            cost = rank * 4 - size
            if size == 1:
                have = singles[rank]
                if have == 4 or (have == 3 and threes):
                    cost += style.set_break
        if cost < best_cost or (cost == best_cost and spades_back and spade):
            best, best_cost, best_rank = move, cost, rank
    if best is None:
        return pickup[1]  # type: ignore[index]
    if pickup is not None and best_rank >= style.pickup_instead_of:
        taken = pile_of()[-pickup[0] :]
        if min(RANK_OF[code] for code in taken) >= style.pickup_takes_from:
            return pickup[1]
    return best


def greedy_for_state(state: HandState, style: Style = DEFAULT_STYLE) -> Move:
    """The greedy move of the player to move in ``state``, seeing only his own hand.

    Reads the legal moves, the size of the mover's hand and the pile: all of
    it in the mover's view, so a rollout that uses it plays fair for him.
    """
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]
    rules = state.rules
    return greedy_move(
        legal,
        state.hand_counts[state.to_move],
        lambda: state.pile,
        rules.three_cards != "nines",
        rules.spades_back,
        style,
    )


def greedy_for_view(view: dict[str, Any], style: Style = DEFAULT_STYLE) -> Move:
    """The greedy move from a ``view_for(seat)`` of the seat to move."""
    legal = [move_from_json(m) for m in view["legal_moves"]]
    if not legal:
        raise ValueError("the view has no legal moves: it is not this seat's turn")
    rules = view["rules"]
    return greedy_move(
        legal,
        len(view["hand"]),
        lambda: view["pile"],
        rules["three_cards"] != "nines",
        rules["spades_back"],
        style,
    )
