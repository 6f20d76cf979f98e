"""Table options (``Rules``) and the named rule profiles (RULES.md).

Every option of RULES.md is one field of :class:`Rules`; the engine reads
each one in one place. ``Rules`` is a frozen dataclass: two tables with equal
options have equal (and equally hashed) ``Rules``.

Impossible values are refused in ``__post_init__`` with a ``ValueError``
saying why. On its own, no combination of valid values is impossible: the
engine always has a legal move for the player to move (on the lone base card
every card can be played; on anything else a pick-up is possible), so every
table can be played to its end (``max_actions`` bounds it). What depends on
the number of players -- enough cards so that, after the betons, everyone
still gets a card in hand -- is checked by :meth:`Rules.validate_for_players`,
which ``deal`` calls.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields
from typing import Any

from games.engine.cards import RANK_OF_NINE, card_code, parse_card

__all__ = [
    "MAX_ACTIONS_MAX",
    "MAX_ACTIONS_MIN",
    "PROFILES",
    "Profile",
    "Rules",
    "profile_for",
]

MAX_ACTIONS_MIN = 10
MAX_ACTIONS_MAX = 10_000
MIN_PLAYERS = 2
MAX_PLAYERS = 4

_CHOICES: dict[str, tuple[Any, ...]] = {
    "deck": (24, 52),
    "jokers": (0, 2),
    "beton": (0, 2, 3),
    "three_cards": ("nines", "match", "any"),
    "pickup": ("three", "three_or_more", "three_or_all"),
    "tie_rule": ("any_final_play", "aces_only"),
    "max_actions_result": ("tie", "most_cards"),
}
_BOOLS = ("voluntary_pickup", "spades_back")


@dataclass(frozen=True)
class Rules:
    """The options of one table; defaults are this project's standard game.

    - ``deck``: 24 (9..A, base card 9H) or 52 (2..A, base card 2H) -- RULES §1.
    - ``jokers``: 0 or 2 jokers X1, X2 -- RULES §1.
    - ``beton``: 0, 2 or 3 face-down cards per player -- RULES §2.
    - ``three_cards``: when three cards of a rank may be played -- RULES §4.3
      (``nines`` means the base rank: the twos in the 52-card deck).
    - ``pickup``: how many cards a pick-up takes -- RULES §4.4.
    - ``voluntary_pickup``: may pick up while holding a legal play -- RULES §4.4.
    - ``spades_back``: a spade on top sends the turn back -- RULES §5.
    - ``tie_rule``: which final plays make a tie -- RULES §6.
    - ``max_actions`` / ``max_actions_result``: the cut-off -- RULES §6.
    """

    deck: int = 24
    jokers: int = 0
    beton: int = 0
    three_cards: str = "nines"
    pickup: str = "three"
    voluntary_pickup: bool = True
    spades_back: bool = False
    tie_rule: str = "any_final_play"
    max_actions: int = 500
    max_actions_result: str = "tie"

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            # bool is an int subclass: True must not pass for jokers=1 etc.
            if type(value) not in {type(c) for c in choices} or value not in choices:
                allowed = ", ".join(repr(c) for c in choices)
                raise ValueError(f"Rules.{name} must be one of {allowed}, not {value!r}")
        for name in _BOOLS:
            value = getattr(self, name)
            if type(value) is not bool:
                raise ValueError(f"Rules.{name} must be true or false, not {value!r}")
        if type(self.max_actions) is not int:
            raise ValueError(f"Rules.max_actions must be an integer, not {self.max_actions!r}")
        if not MAX_ACTIONS_MIN <= self.max_actions <= MAX_ACTIONS_MAX:
            raise ValueError(
                f"Rules.max_actions must be between {MAX_ACTIONS_MIN} and {MAX_ACTIONS_MAX}"
                f" (a shorter cut-off ends hands before they start, a longer one lets a hand"
                f" of endless pick-ups run for hours), not {self.max_actions}"
            )

    # -- derived facts ---------------------------------------------------

    @property
    def lowest_rank(self) -> int:
        """Internal rank index of the lowest rank (7 = nine, or 0 = two)."""
        return RANK_OF_NINE if self.deck == 24 else 0

    @property
    def base_card(self) -> str:
        """The lowest heart: ``9H`` in the 24-card deck, ``2H`` in the 52-card deck."""
        return "9H" if self.deck == 24 else "2H"

    @property
    def deck_size(self) -> int:
        """All cards of the table's deck, jokers included."""
        return self.deck + self.jokers

    def deck_ids(self) -> list[int]:
        """Internal ids of the deck in canonical (ascending) order."""
        ids = list(range(self.lowest_rank * 4, 52))
        ids += [52, 53][: self.jokers]
        return ids

    def deck_codes(self) -> list[str]:
        """Card codes of the deck in canonical order (9S 9H 9D 9C 10S … AC X1 X2)."""
        return [card_code(i) for i in self.deck_ids()]

    def contains(self, code: str) -> bool:
        """True if ``code`` is a card of this table's deck (``ValueError`` if no code)."""
        card_id = parse_card(code)
        if card_id >= 52:
            return card_id - 52 < self.jokers
        return card_id >> 2 >= self.lowest_rank

    def validate_for_players(self, players: int) -> None:
        """Raise ``ValueError`` unless a hand of these rules can be dealt to ``players``.

        2 to 4 players (RULES §2); with beton, every player must still get at
        least one card in hand after the betons are dealt.
        """
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(
                f"Pan is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}"
            )
        in_hands = self.deck_size - self.beton * players
        if in_hands < players:
            raise ValueError(
                f"a beton of {self.beton} for {players} players leaves {in_hands} cards for the"
                f" hands of a {self.deck_size}-card deck: every player needs at least one"
            )

    # -- JSON ------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """All options as a plain dict (JSON-ready), a new one at each call. Built once
        per rules: a hand's state carries its rules, and ``asdict`` (which walks and
        copies every field) would run at every move."""
        return dict(_options(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rules:
        """Build ``Rules`` from :meth:`to_json` output.

        Unknown keys are refused (a typo must not silently mean the default);
        missing keys take their default, so stored rules stay readable when an
        option is added.
        """
        if not isinstance(data, dict):
            raise ValueError(f"rules must be a JSON object, not {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown rule option(s) {', '.join(map(repr, unknown))}; "
                f"known options: {', '.join(sorted(known))}"
            )
        return cls(**data)


@dataclass(frozen=True)
class Profile:
    """A named set of options offered when a table is created."""

    key: str
    rules: Rules
    name_en: str
    name_pl: str
    description_en: str
    description_pl: str

    def to_json(self) -> dict[str, Any]:
        """All fields as a plain dict, the rules as :meth:`Rules.to_json`."""
        return {
            "key": self.key,
            "rules": self.rules.to_json(),
            "name_en": self.name_en,
            "name_pl": self.name_pl,
            "description_en": self.description_en,
            "description_pl": self.description_pl,
        }


PROFILES: dict[str, Profile] = {
    p.key: p
    for p in (
        Profile(
            key="kurnik",
            rules=Rules(),
            name_en="Standard",
            name_pl="Standardowy",
            description_en="24 cards, three nines only on the lone 9♥, pick up three, no spades.",
            description_pl=(
                "24 karty, trzy dziewiątki tylko na samą 9♥, bierze się trzy, bez pików."
            ),
        ),
        Profile(
            key="english",
            rules=Rules(three_cards="match", pickup="three_or_more", voluntary_pickup=False),
            name_en="English rules",
            name_pl="Zasady angielskie",
            description_en=(
                "Three cards on a card of their rank, pick up three or more,"
                " and only when you cannot play."
            ),
            description_pl=(
                "Trzy karty na kartę tej samej wartości, bierze się trzy lub więcej,"
                " i tylko gdy nie można zagrać."
            ),
        ),
        Profile(
            key="piki_cofane",
            rules=Rules(spades_back=True),
            name_en="Spades back",
            name_pl="Piki cofane",
            description_en="A spade on top sends the turn back to the previous player.",
            description_pl="Pik na wierzchu cofa kolejkę do poprzedniego gracza.",
        ),
        Profile(
            key="beton",
            rules=Rules(beton=3),
            name_en="Beton",
            name_pl="Beton",
            description_en="Everyone gets 3 face-down cards, revealed when the hand is empty.",
            description_pl="Każdy dostaje 3 zakryte karty, odkrywane gdy skończą się karty w ręce.",
        ),
        Profile(
            key="deck52",
            rules=Rules(deck=52),
            name_en="Full deck",
            name_pl="Pełna talia",
            description_en="All 52 cards, 2 to ace; the 2♥ opens.",
            description_pl="Wszystkie 52 karty, od dwójki do asa; otwiera 2♥.",
        ),
        Profile(
            key="tournament",
            rules=Rules(max_actions_result="most_cards"),
            name_en="Tournament",
            name_pl="Turniejowy",
            description_en="Standard rules; a hand cut off at the limit is lost by the most cards.",
            description_pl="Zasady standardowe; rozdanie przerwane na limicie przegrywa ten,"
            " kto ma najwięcej kart.",
        ),
    )
}


def profile_for(rules: Rules) -> Profile | None:
    """The profile whose options equal ``rules`` exactly, or None for custom rules."""
    for profile in PROFILES.values():
        if profile.rules == rules:
            return profile
    return None


@functools.cache
def _options(rules: Rules) -> dict[str, Any]:
    return asdict(rules)
