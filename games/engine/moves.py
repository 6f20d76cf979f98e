"""Moves and their JSON form.

A move is one of:

- ``Play(cards)``: cards laid on the pile at once. The LAST card listed lies
  on top; for the opening four the base card comes first (it stays at the
  bottom). JSON: ``{"type": "play", "cards": ["9H", "9S", "9D", "9C"]}``.
- ``PickUp(count)``: take ``count`` cards from the top of the pile.
  JSON: ``{"type": "pickup", "count": 3}``.
- ``Timeout()``: the clock of the player to move ran out (RULES §8); it is
  never offered by ``legal_moves()`` but may be applied and appear in a move
  list given to ``replay``. JSON: ``{"type": "timeout"}``.

Moves are immutable, hashable and compare by value. Instances handed out by
``HandState.legal_moves()`` are shared (interned) and carry precomputed int
data so that applying them is cheap; a ``Play`` built by a caller is equal to
the interned one with the same cards and is accepted the same way.
"""

from __future__ import annotations

from typing import Any

from games.engine.cards import card_code, parse_card

__all__ = ["IllegalMove", "Move", "PickUp", "Play", "Timeout", "move_from_json", "move_to_json"]

JOKER_RANK = -2  # _rank of a lone joker
MIXED_RANK = -1  # _rank of a play whose cards are not all of one rank (or hold a joker)


class IllegalMove(ValueError):
    """The move breaks a rule; the message names the rule (and its RULES.md section)."""


_setattr = object.__setattr__


class Play:
    """Lay ``cards`` on the pile; the last one listed lies on top."""

    __slots__ = ("_ids", "_mask", "_n", "_rank", "_top", "cards")

    cards: tuple[str, ...]

    def __init__(self, cards: str | tuple[str, ...] | list[str]) -> None:
        """Build a play from card codes (a single code may be passed as a string).

        Raises ``ValueError`` for an empty play, an unknown code or a card
        listed twice; whether the play is legal is decided by ``apply``.
        """
        codes = (cards,) if isinstance(cards, str) else tuple(cards)
        if not codes:
            raise ValueError("a play must lay at least one card")
        ids = tuple(parse_card(c) for c in codes)
        if len(set(ids)) != len(ids):
            raise ValueError(f"a card is listed twice in the play {list(codes)}")
        self._init(ids)

    def _init(self, ids: tuple[int, ...]) -> None:
        mask = 0
        for card_id in ids:
            mask |= 1 << card_id
        ranks = {card_id >> 2 if card_id < 52 else JOKER_RANK for card_id in ids}
        if len(ranks) == 1 and (len(ids) == 1 or JOKER_RANK not in ranks):
            rank = ranks.pop()
        else:
            rank = MIXED_RANK
        _setattr(self, "cards", tuple(card_code(i) for i in ids))
        _setattr(self, "_ids", ids)
        _setattr(self, "_mask", mask)
        _setattr(self, "_n", len(ids))
        _setattr(self, "_rank", rank)
        _setattr(self, "_top", ids[-1])

    @classmethod
    def _of_ids(cls, ids: tuple[int, ...]) -> Play:
        """The shared instance for these card ids (built on first use)."""
        play = _PLAYS.get(ids)
        if play is None:
            play = object.__new__(cls)
            play._init(ids)
            _PLAYS[ids] = play
        return play

    @property
    def top(self) -> str:
        """The card that lies on top after this play."""
        return self.cards[-1]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("moves are immutable")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Play:
            return NotImplemented
        return self._ids == other._ids  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._ids)

    def __repr__(self) -> str:
        return f"Play({self.cards!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Play, (self.cards,))


class PickUp:
    """Take ``count`` cards from the top of the pile."""

    __slots__ = ("count",)

    count: int

    def __init__(self, count: int) -> None:
        """``count`` must be a positive int; whether it is allowed is decided by ``apply``."""
        if type(count) is not int or count < 1:
            raise ValueError(f"a pick-up takes a positive whole number of cards, not {count!r}")
        _setattr(self, "count", count)

    @classmethod
    def _of(cls, count: int) -> PickUp:
        pickup = _PICKUPS.get(count)
        if pickup is None:
            pickup = _PICKUPS[count] = cls(count)
        return pickup

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("moves are immutable")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not PickUp:
            return NotImplemented
        return self.count == other.count  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(("pickup", self.count))

    def __repr__(self) -> str:
        return f"PickUp({self.count})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (PickUp, (self.count,))


class Timeout:
    """The player to move ran out of time (RULES §8)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Timeout

    def __hash__(self) -> int:
        return hash("timeout")

    def __repr__(self) -> str:
        return "Timeout()"


Move = Play | PickUp | Timeout

_PLAYS: dict[tuple[int, ...], Play] = {}
_PICKUPS: dict[int, PickUp] = {}
TIMEOUT = Timeout()


def move_to_json(move: Move) -> dict[str, Any]:
    """The JSON form of a move (see the module docstring)."""
    if isinstance(move, Play):
        return {"type": "play", "cards": list(move.cards)}
    if isinstance(move, PickUp):
        return {"type": "pickup", "count": move.count}
    if isinstance(move, Timeout):
        return {"type": "timeout"}
    raise TypeError(f"not a move: {move!r}")


_FIELDS = {"play": {"type", "cards"}, "pickup": {"type", "count"}, "timeout": {"type"}}


def move_from_json(data: Any) -> Move:
    """Parse the JSON form of a move; ``ValueError`` with a clear message if malformed."""
    if not isinstance(data, dict):
        raise ValueError(f"a move must be a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    if kind not in _FIELDS:
        raise ValueError(f"a move's 'type' must be 'play', 'pickup' or 'timeout', not {kind!r}")
    keys = set(data)
    if keys != _FIELDS[kind]:
        missing = sorted(_FIELDS[kind] - keys)
        extra = sorted(keys - _FIELDS[kind])
        problems = []
        if missing:
            problems.append(f"missing {', '.join(map(repr, missing))}")
        if extra:
            problems.append(f"unexpected {', '.join(map(repr, extra))}")
        expected = sorted(_FIELDS[kind])
        raise ValueError(f"a {kind} move has the keys {expected}: {'; '.join(problems)}")
    if kind == "play":
        cards = data["cards"]
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ValueError("a play's 'cards' must be a list of card codes")
        return Play(tuple(cards))
    if kind == "pickup":
        return PickUp(data["count"])
    return TIMEOUT
