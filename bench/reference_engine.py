"""A small reference implementation of one hand of Pan, for random play.

It plays the default rules of RULES.md (24 cards, three nines only on the lone
nine of hearts, pick up three, voluntary pick-ups, no spades, any final play
ties, a tie at ``max_actions``) the plain way: a mutable hand, cards as ints,
each hand a sorted list, the pile a list. It shares no code with
``games.engine`` and exists so that ``bench.bench_engine`` can say how the
engine's speed compares with the straightforward way of writing the same rules;
``tests/engine/test_reference_engine.py`` checks that both agree.

A card is ``rank * 4 + suit`` (rank 0 = nine ... 5 = ace; suits S H D C), so
:data:`CODES` gives the engine's card codes. A move is a tuple: the cards of a
play (the last on top), or ``(PICKUP, count)``.
"""

from __future__ import annotations

CODES: tuple[str, ...] = tuple(r + s for r in ("9", "10", "J", "Q", "K", "A") for s in "SHDC")
NINE_OF_HEARTS = CODES.index("9H")
OTHER_NINES = [c for c in range(4) if c != NINE_OF_HEARTS]
PICKUP = -1


class ReferenceHand:
    """One hand in play: ``hands[seat]`` sorted, ``pile`` bottom to top, ``to_move``,
    ``actions`` (plays and pick-ups so far) and ``outcome``: None while the hand is on,
    then ``(loser, reason)`` with loser None for a tie."""

    def __init__(self, hands: list[list[int]], max_actions: int = 500) -> None:
        self.hands = [sorted(hand) for hand in hands]
        self.pile: list[int] = []
        self.to_move = next(s for s, hand in enumerate(hands) if NINE_OF_HEARTS in hand)
        self.actions = 0
        self.max_actions = max_actions
        self.outcome: tuple[int | None, str] | None = None

    def legal_moves(self) -> list[tuple[int, ...]]:
        """Every legal move of the player to move, in the engine's order."""
        hand, pile = self.hands[self.to_move], self.pile
        if not pile:
            nines = [c for c in hand if c < 4]
            if len(nines) == 4:
                return [(NINE_OF_HEARTS,), (NINE_OF_HEARTS, *OTHER_NINES)]
            return [(NINE_OF_HEARTS,)]
        top = pile[-1] >> 2
        moves = []
        for i, card in enumerate(hand):
            if card >> 2 >= top:
                moves.append((card,))
                if i >= 3 and hand[i - 3] >> 2 == card >> 2:
                    moves.append(tuple(hand[i - 3 : i + 1]))
        if len(pile) == 1 and [c for c in hand if c < 4] == OTHER_NINES:
            moves.append(tuple(OTHER_NINES))
        if len(pile) > 1:
            moves.append((PICKUP, min(3, len(pile) - 1)))
        return moves

    def apply(self, move: tuple[int, ...]) -> None:
        """Make ``move`` (one of :meth:`legal_moves`) for the player to move."""
        seat = self.to_move
        hand = self.hands[seat]
        if move[0] == PICKUP:
            taken = self.pile[-move[1] :]
            del self.pile[-move[1] :]
            hand += taken
            hand.sort()
        else:
            for card in move:
                hand.remove(card)
            self.pile += move
        self.actions += 1
        if not hand:
            holders = [s for s, cards in enumerate(self.hands) if cards]
            if len(holders) == 1:
                self.finish(holders[0])
                return
        seat = (seat + 1) % len(self.hands)
        while not self.hands[seat]:
            seat = (seat + 1) % len(self.hands)
        self.to_move = seat
        if self.actions >= self.max_actions:
            self.outcome = (None, "max_actions")

    def finish(self, last: int) -> None:
        """One player holds cards: a play that empties his hand ties, else he lost."""
        self.to_move = last
        hand = self.hands[last]
        if any(len(move) == len(hand) and move[0] != PICKUP for move in self.legal_moves()):
            self.pile += hand
            self.hands[last] = []
            self.outcome = (None, "final_play_tie")
        else:
            self.outcome = (last, "last_player")


def deal(deck: list[str], players: int, dealer: int, max_actions: int = 500) -> ReferenceHand:
    """A hand dealt from ``deck`` (shuffled card codes) one card at a time from the
    player left of ``dealer``, clockwise."""
    hands: list[list[int]] = [[] for _ in range(players)]
    for k, code in enumerate(deck):
        hands[(dealer + 1 + k) % players].append(CODES.index(code))
    return ReferenceHand(hands, max_actions)
