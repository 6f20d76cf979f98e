"""What one seat knows about the hidden cards, and deals (determinisations) consistent with it.

Read from a ``view_for(seat)`` alone: the seat's own hand, the pile, and the
history, in which every pick-up names the cards taken. A card a seat was seen
picking up stays known to be in that seat's hand until the history shows it
played (cards leave a hand only by being played). Everything else -- the
other hands apart from those known cards, and every unrevealed beton, the
seat's own included -- is unknown: a determinisation deals the unknown cards
uniformly at random into the unknown places, keeping every count of the view.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.engine import HandState, Rules

__all__ = ["Knowledge"]


@dataclass(frozen=True)
class Knowledge:
    """The hidden cards as ``seat`` sees them, and the public position around them.

    ``known[s]``: cards known to be in seat ``s``'s hand (for ``seat`` itself,
    its whole hand). ``unknown``: every other card not on the pile, in the
    deck's canonical order. ``hand_slots[s]`` / ``beton_slots[s]``: how many
    unknown cards seat ``s``'s hand / beton holds; they add up to
    ``len(unknown)`` in a real hand (less only in a position built with
    cards out of play, where a random part of ``unknown`` is dealt).
    """

    seat: int
    known: tuple[tuple[str, ...], ...]
    unknown: tuple[str, ...]
    hand_slots: tuple[int, ...]
    beton_slots: tuple[int, ...]
    rules: Rules
    pile: tuple[str, ...]
    to_move: int
    action_count: int
    dealer: int | None

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> Knowledge:
        """Read what ``view["seat"]`` knows from its view, and nothing else.

        Raises ``ValueError`` if the view's counts cannot be right (they always
        are in a view the engine made).
        """
        seat = view["seat"]
        players = view["players"]
        rules = Rules.from_json(view["rules"])
        seen: list[dict[str, None]] = [{} for _ in range(players)]  # ordered sets
        if not view["pile"]:
            # Before the opening the player to move holds the base card (RULES §3).
            seen[view["to_move"]][rules.base_card] = None
        for entry in view["history"]:
            kind = entry["type"]
            holder = seen[entry["seat"]]
            if kind == "pickup":
                for code in entry["cards"]:
                    holder[code] = None
            elif kind == "play":
                for code in entry["cards"]:
                    holder.pop(code, None)
        own = tuple(view["hand"])
        own_set = set(own)
        counts = view["hand_counts"]
        known: list[tuple[str, ...]] = []
        for s in range(players):
            if s == seat:
                known.append(own)
                continue
            cards = tuple(c for c in seen[s] if c not in own_set)
            if len(cards) > counts[s]:
                # Impossible in a view the engine made; guessing freely beats failing.
                cards = ()
            known.append(cards)
        placed = own_set.union(view["pile"], *known)
        unknown = tuple(c for c in rules.deck_codes() if c not in placed)
        hand_slots = tuple(0 if s == seat else counts[s] - len(known[s]) for s in range(players))
        beton_slots = tuple(view["beton_counts"])
        # More unknown cards than places only in a position built with cards out
        # of play (HandState.from_position allows it); fewer is impossible.
        if sum(hand_slots) + sum(beton_slots) > len(unknown):
            raise ValueError("the view's counts exceed the cards unaccounted for")
        return cls(
            seat=seat,
            known=tuple(known),
            unknown=unknown,
            hand_slots=hand_slots,
            beton_slots=beton_slots,
            rules=rules,
            pile=tuple(view["pile"]),
            to_move=view["to_move"],
            action_count=view["action_count"],
            dealer=view.get("dealer"),
        )

    def sample(self, rng: random.Random) -> tuple[list[list[str]], list[list[str]]]:
        """One deal of the unknown cards: ``(hands, betons)``, card codes per seat.

        The unknown cards are shuffled by ``rng`` and dealt into the unknown
        places, so every deal consistent with the view is equally likely.
        """
        cards = list(self.unknown)
        rng.shuffle(cards)
        hands: list[list[str]] = []
        betons: list[list[str]] = []
        at = 0
        for s, known in enumerate(self.known):
            take = self.hand_slots[s]
            hands.append([*known, *cards[at : at + take]])
            at += take
        for take in self.beton_slots:
            betons.append(cards[at : at + take])
            at += take
        return hands, betons

    def determinise(self, rng: random.Random) -> HandState:
        """A full state consistent with the view, its hidden cards drawn by :meth:`sample`.

        Equivalent to ``HandState.from_view(view, hands=..., betons=...)`` but
        with an empty history: the engine's moves never read it, and rebuilding
        it for every determinisation would cost more than everything else.
        """
        hands, betons = self.sample(rng)
        return HandState.from_position(
            rules=self.rules,
            hands=hands,
            betons=betons,
            pile=self.pile,
            to_move=self.to_move,
            action_count=self.action_count,
            dealer=self.dealer,
        )
