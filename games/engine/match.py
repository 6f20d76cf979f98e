"""The match: letters P-A-N across hands and the dealer's rotation (RULES §2, §7)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from games.engine.records import Outcome
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["LETTERS", "MatchState"]

LETTERS: tuple[str, ...] = ("", "P", "PA", "PAN")
PAN = len(LETTERS) - 1


@dataclass(frozen=True)
class MatchState:
    """Letters per seat (0-3), the current dealer and how many hands were played.

    Immutable: :meth:`after_hand` returns the next match.
    """

    players: int
    dealer: int
    letters: tuple[int, ...]
    hands_played: int = 0

    def __post_init__(self) -> None:
        if type(self.players) is not int or not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"a match has {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if type(self.dealer) is not int or not 0 <= self.dealer < self.players:
            raise ValueError(f"the dealer must be a seat 0..{self.players - 1}")
        letters = self.letters
        if (
            not isinstance(letters, tuple)
            or len(letters) != self.players
            or any(type(x) is not int or not 0 <= x <= PAN for x in letters)
        ):
            raise ValueError(f"letters must be a tuple of {self.players} ints 0..{PAN}")
        if sum(1 for x in letters if x == PAN) > 1:
            raise ValueError("the match ends at the first PAN: two cannot have it")
        if type(self.hands_played) is not int or self.hands_played < 0:
            raise ValueError("hands_played must be an int >= 0")

    @classmethod
    def new(cls, players: int, first_dealer: int) -> MatchState:
        """A fresh match; the site picks ``first_dealer`` at random (RULES §2)."""
        return cls(players=players, dealer=first_dealer, letters=(0,) * players)

    @property
    def is_over(self) -> bool:
        """True once somebody has completed P-A-N (RULES §7)."""
        return PAN in self.letters

    @property
    def pan_seat(self) -> int | None:
        """The seat that completed P-A-N and lost the match, if any."""
        return self.letters.index(PAN) if self.is_over else None

    def letters_text(self, seat: int) -> str:
        """``""``, ``"P"``, ``"PA"`` or ``"PAN"``."""
        return LETTERS[self.letters[seat]]

    def after_hand(self, outcome: Outcome) -> MatchState:
        """The match after a hand: the loser (a timeout too) gets his next letter,
        a tie gives none, and the dealer moves one seat clockwise (RULES §2, §7).

        Raises ``ValueError`` once the match is over.
        """
        if self.is_over:
            raise ValueError("the match is over")
        if not isinstance(outcome, Outcome):
            raise ValueError(f"not a hand outcome: {outcome!r}")
        letters = list(self.letters)
        if outcome.loser is not None:
            if not 0 <= outcome.loser < self.players:
                raise ValueError(f"no seat {outcome.loser} in this match")
            letters[outcome.loser] += 1
        return replace(
            self,
            letters=tuple(letters),
            dealer=(self.dealer + 1) % self.players,
            hands_played=self.hands_played + 1,
        )

    def ranking(self) -> list[tuple[int, int]]:
        """``(place, seat)`` pairs, best first: fewer letters rank higher.

        Equal letters share a place, and the next place skips (1, 1, 3): the
        usual sports ranking. The PAN seat, alone with three letters, is last.
        Seats sharing a place are listed by seat number.
        """
        order = sorted(range(self.players), key=lambda s: (self.letters[s], s))
        return [
            (1 + sum(1 for x in self.letters if x < self.letters[seat]), seat) for seat in order
        ]

    def to_json(self) -> dict[str, Any]:
        """``{"players", "dealer", "letters": [0-3 per seat], "hands_played"}``."""
        return {
            "players": self.players,
            "dealer": self.dealer,
            "letters": list(self.letters),
            "hands_played": self.hands_played,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchState:
        """Inverse of :meth:`to_json`; ``ValueError`` if malformed."""
        if not isinstance(data, dict) or set(data) != {
            "players",
            "dealer",
            "letters",
            "hands_played",
        }:
            raise ValueError(f"malformed match state: {data!r}")
        return cls(
            players=data["players"],
            dealer=data["dealer"],
            letters=tuple(data["letters"]),
            hands_played=data["hands_played"],
        )
