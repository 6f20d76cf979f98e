"""What a hand leaves on record: each action, and how the hand ended.

- :class:`HistoryEntry`: one public action (who did what, which cards moved).
- :class:`Outcome` and its :class:`Reason`: how a hand ended (RULES §6, §8).

Each record knows its own JSON form (stored in the database, so it never
changes shape). A state keeps its history as a *chain*: ``None`` for no
action, else a cell ``(previous_cell, seat, move, extra)``, newest first, so
that recording an action costs one tuple. ``extra`` is the card ids a pick-up
took (bottom to top), :data:`AUTO` for the automatic final play, else None.
:func:`chain_entries` and :func:`chain_of` convert between chains and entries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from games.engine.cards import card_code, parse_card
from games.engine.moves import TIMEOUT, Move, PickUp, Play, move_from_json, move_to_json

__all__ = [
    "AUTO",
    "REASONS",
    "HistoryEntry",
    "Outcome",
    "Reason",
    "chain_entries",
    "chain_length",
    "chain_of",
]

AUTO = True
"""The ``extra`` of a chain cell that records the automatic final play."""


class Reason(StrEnum):
    """Why a hand ended; its value is what the JSON of an outcome holds."""

    LAST_PLAYER = "last_player"
    """One player is left holding cards and loses (RULES §6)."""
    FINAL_PLAY_TIE = "final_play_tie"
    """The last player emptied his hand with the automatic final play: a tie (RULES §6)."""
    TIMEOUT = "timeout"
    """The player to move ran out of time and loses (RULES §8)."""
    MAX_ACTIONS = "max_actions"
    """The hand reached its action limit: a tie, or the most cards lose (RULES §6)."""
    ABORTED = "aborted"
    """Stopped from outside the rules (a moderator, a tournament): nobody loses."""


REASONS: tuple[Reason, ...] = tuple(Reason)


def _interned_play(codes: tuple[str, ...]) -> Play:
    """The shared ``Play`` of these card codes (``MalformedMove`` if they are none)."""
    return Play._of_ids(Play(codes)._ids)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a hand ended (RULES §6, §8).

    ``loser`` is the seat that gets a letter, or None for a tie; ``reason``
    is a :class:`Reason` (given as its value, it is made one). ``final_play`` /
    ``final_seat`` record the automatic final play that made a tie (None
    otherwise).
    """

    loser: int | None
    tie: bool
    reason: Reason
    final_play: Play | None = None
    final_seat: int | None = None

    def __post_init__(self) -> None:
        if self.reason.__class__ is not Reason:
            object.__setattr__(self, "reason", Reason(self.reason))

    def to_json(self) -> dict[str, Any]:
        """``{"loser", "tie", "reason", "final_play": {"seat", "cards"} | None}``."""
        return {
            "loser": self.loser,
            "tie": self.tie,
            "reason": self.reason.value,
            "final_play": None
            if self.final_play is None
            else {"seat": self.final_seat, "cards": list(self.final_play.cards)},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        """Inverse of :meth:`to_json`; ``ValueError`` if malformed."""
        if not isinstance(data, dict) or set(data) != {"loser", "tie", "reason", "final_play"}:
            raise ValueError(f"malformed outcome: {data!r}")
        if data["reason"] not in REASONS:
            raise ValueError(f"unknown outcome reason {data['reason']!r}")
        final = data["final_play"]
        if final is None:
            return cls(data["loser"], bool(data["tie"]), data["reason"])
        return cls(
            data["loser"],
            bool(data["tie"]),
            data["reason"],
            _interned_play(tuple(final["cards"])),
            final["seat"],
        )


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One public action: ``seat`` did ``move``.

    ``cards``: for a play, the cards laid (last on top); for a pick-up, the
    cards taken, bottom to top as they lay; empty for a timeout. ``auto`` is
    True for the automatic final play of a tie (RULES §6).
    """

    seat: int
    move: Move
    cards: tuple[str, ...]
    auto: bool = False

    def to_json(self) -> dict[str, Any]:
        """The move's JSON plus ``seat``; pick-ups add ``cards``, the final play ``auto``."""
        data: dict[str, Any] = {"seat": self.seat, **move_to_json(self.move)}
        if isinstance(self.move, PickUp):
            data["cards"] = list(self.cards)
        if self.auto:
            data["auto"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HistoryEntry:
        """Inverse of :meth:`to_json`; ``ValueError`` if malformed."""
        if not isinstance(data, dict):
            raise ValueError(f"a history entry must be a JSON object, not {data!r}")
        rest = dict(data)
        seat = rest.pop("seat", None)
        auto = rest.pop("auto", False)
        cards = rest.pop("cards", None) if rest.get("type") == "pickup" else None
        if type(seat) is not int:
            raise ValueError(f"a history entry needs an int 'seat': {data!r}")
        move = move_from_json(rest)
        if isinstance(move, Play):
            cards = move.cards
        elif isinstance(move, PickUp):
            if not isinstance(cards, list) or len(cards) != move.count:
                raise ValueError(f"a pick-up entry lists the {move.count} cards taken: {data!r}")
            for code in cards:
                parse_card(code)
            cards = tuple(cards)
        else:
            cards = ()
        return cls(seat, move, cards, bool(auto))


def chain_entries(chain: tuple | None, limit: int | None = None) -> list[HistoryEntry]:
    """The entries of ``chain``, oldest first; with ``limit``, only the latest ones."""
    cells = []
    while chain is not None and (limit is None or len(cells) < limit):
        cells.append(chain)
        chain = chain[0]
    entries = []
    for _, seat, move, extra in reversed(cells):
        if move.__class__ is PickUp:
            entries.append(HistoryEntry(seat, move, tuple(card_code(i) for i in extra)))
        elif move.__class__ is Play:
            entries.append(HistoryEntry(seat, move, move.cards, extra is AUTO))
        else:
            entries.append(HistoryEntry(seat, move, ()))
    return entries


def chain_length(chain: tuple | None, known: tuple | None = None, known_length: int = 0) -> int:
    """The number of entries in ``chain``; ``known`` is an earlier chain, of
    ``known_length`` entries, that it may extend: then only the newer cells are counted
    (a move adds one or two to a history of hundreds)."""
    length = 0
    while chain is not None:
        if chain is known:
            return length + known_length
        length += 1
        chain = chain[0]
    return length


def chain_of(entries: Iterable[HistoryEntry | dict]) -> tuple | None:
    """The chain of ``entries`` (oldest first; entries or their JSON), with interned moves.

    ``ValueError`` if one is neither an entry nor an entry's valid JSON.
    """
    chain = None
    for entry in entries:
        if isinstance(entry, dict):
            entry = HistoryEntry.from_json(entry)
        if not isinstance(entry, HistoryEntry):
            raise ValueError(f"not a history entry: {entry!r}")
        move = entry.move
        if isinstance(move, Play):
            extra = AUTO if entry.auto else None
            move = Play._of_ids(move._ids)
        elif isinstance(move, PickUp):
            extra = tuple(parse_card(c) for c in entry.cards)
            move = PickUp._of(move.count)
        else:
            extra = None
            move = TIMEOUT
        chain = (chain, entry.seat, move, extra)
    return chain
