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

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from games.engine.cards import card_code, parse_card, unknown_card_sentence

__all__ = [
    "Illegal",
    "IllegalMove",
    "Malformed",
    "MalformedMove",
    "Move",
    "PickUp",
    "Play",
    "Timeout",
    "move_from_json",
    "move_to_json",
]

JOKER_RANK = -2  # _rank of a lone joker
MIXED_RANK = -1  # _rank of a play whose cards are not all of one rank (or hold a joker)


class Illegal(StrEnum):
    """Why a move is refused: the machine code an :class:`IllegalMove` carries.

    Each code has its parameters (``IllegalMove.params``); a rank is its label
    (``"9"``, ``"10"``, ``"J"``), a card its code (``"9H"``), and ``joker_on_top``
    says that the top rank is the one a joker on top covers (RULES §1).
    """

    HAND_OVER = "hand_over"
    """The hand has an outcome already: nothing more can happen in it. No parameters."""
    NOT_HELD = "not_held"
    """``cards``: the cards of the play that the player does not hold (codes)."""
    OPENING = "opening"
    """The first play is not the base card alone nor the four of its rank with it at the
    bottom (RULES §3). ``base``: the base card's code; ``base_rank``: its rank."""
    CARD_TOO_LOW = "card_too_low"
    """A single card below the top (RULES §4.1). ``card``, ``top``: ranks; ``joker_on_top``."""
    TWO_CARDS = "two_cards"
    """Two cards at once (RULES §4). No parameters."""
    TOO_MANY_CARDS = "too_many_cards"
    """More than four cards at once (RULES §4). ``count``: how many."""
    JOKER_IN_SET = "joker_in_set"
    """A joker in a set of three or four (RULES §1). No parameters."""
    MIXED_RANKS = "mixed_ranks"
    """Cards played together of several ranks (RULES §4.2, §4.3). No parameters."""
    FOUR_TOO_LOW = "four_too_low"
    """Four cards below the top (RULES §4.2). ``rank``, ``top``: ranks; ``joker_on_top``."""
    THREE_NOT_BASE_RANK = "three_not_base_rank"
    """``three_cards=nines``: three cards go down only as the other three of the base
    card's rank on the lone base card (RULES §4.3). ``rank``: the rank played;
    ``base_rank``: the base card's."""
    THREE_NOT_TOP_RANK = "three_not_top_rank"
    """``three_cards=match``: three cards not of the top's rank (RULES §4.3). ``rank``,
    ``top``: ranks; ``joker_on_top``."""
    THREE_TOO_LOW = "three_too_low"
    """``three_cards=any``: three cards below the top (RULES §4.3). ``rank``, ``top``:
    ranks; ``joker_on_top``."""
    PICKUP_BEFORE_OPENING = "pickup_before_opening"
    """A pick-up before the base card was played (RULES §3). No parameters."""
    PICKUP_BASE_ONLY = "pickup_base_only"
    """A pick-up while the pile holds only the base card (RULES §4.4). No parameters."""
    PICKUP_TAKES_ALL = "pickup_takes_all"
    """With three cards or fewer above the base card a pick-up takes them all (RULES
    §4.4). ``count``: the cards asked for; ``above``: the cards above the base card."""
    PICKUP_COUNT = "pickup_count"
    """A pick-up of a number of cards the table's ``pickup`` option forbids (RULES §4.4).
    ``count``: the cards asked for; ``above``: the cards above the base card;
    ``pickup``: the option (``three``, ``three_or_more``, ``three_or_all``)."""
    PICKUP_NOT_VOLUNTARY = "pickup_not_voluntary"
    """A pick-up by a player who could play, with ``voluntary_pickup`` off (RULES §4.4).
    No parameters."""


def _top(params: dict[str, Any]) -> str:
    top = params["top"]
    if params.get("joker_on_top"):
        return f"{top} (the joker on top counts as the {top} it covers)"
    return top


def _pickup_rule(params: dict[str, Any]) -> str:
    option, above = params["pickup"], params["above"]
    if option == "three":
        return "exactly three cards (pickup=three"
    if option == "three_or_more":
        return f"three to {above} cards from the top (pickup=three_or_more"
    return f"three cards or all {above} above the base card (pickup=three_or_all"


# The English sentence of each code, naming the rule (and its RULES.md section).
_SENTENCES: dict[Illegal, Callable[[dict[str, Any]], str]] = {
    Illegal.HAND_OVER: lambda p: "the hand is over",
    Illegal.NOT_HELD: lambda p: f"you do not hold {', '.join(p['cards'])}",
    Illegal.OPENING: lambda p: (
        f"the hand opens with the base card {p['base']} alone, or all four"
        f" {p['base_rank']}s with {p['base']} at the bottom (RULES §3)"
    ),
    Illegal.CARD_TOO_LOW: lambda p: (
        f"a {p['card']} cannot go on a {_top(p)}: a card must be"
        " equal to or higher than the top (RULES §4.1)"
    ),
    Illegal.TWO_CARDS: lambda p: (
        "never two cards at once: play one card, or three or four of a rank (RULES §4)"
    ),
    Illegal.TOO_MANY_CARDS: lambda p: "at most four cards go down at once (RULES §4)",
    Illegal.JOKER_IN_SET: lambda p: (
        "a joker is played alone: it never forms part of a set of three or four (RULES §1)"
    ),
    Illegal.MIXED_RANKS: lambda p: (
        "cards played together must all be of one rank (RULES §4.2, §4.3)"
    ),
    Illegal.FOUR_TOO_LOW: lambda p: (
        f"four {p['rank']}s cannot go on a {_top(p)}: they must be equal to or"
        " higher than the top (RULES §4.2)"
    ),
    Illegal.THREE_NOT_BASE_RANK: lambda p: (
        f"three cards go down only as the other three {p['base_rank']}s on"
        " the lone base card (three_cards=nines, RULES §4.3)"
    ),
    Illegal.THREE_NOT_TOP_RANK: lambda p: (
        f"three {p['rank']}s cannot go on a {_top(p)}: three cards must be of the"
        " top card's rank (three_cards=match, RULES §4.3)"
    ),
    Illegal.THREE_TOO_LOW: lambda p: (
        f"three {p['rank']}s cannot go on a {_top(p)}: they must be equal to or higher"
        " than the top (three_cards=any, RULES §4.3)"
    ),
    Illegal.PICKUP_BEFORE_OPENING: lambda p: (
        "the hand opens with the base card: nothing can be picked up yet (RULES §3)"
    ),
    Illegal.PICKUP_BASE_ONLY: lambda p: (
        "picking up is impossible while the pile holds only the base card (RULES §4.4)"
    ),
    Illegal.PICKUP_TAKES_ALL: lambda p: (
        f"with {p['above']} card(s) above the base card a pick-up takes all"
        f" {p['above']} (RULES §4.4)"
    ),
    Illegal.PICKUP_COUNT: lambda p: (
        f"a pick-up of {p['count']} is not allowed: take {_pickup_rule(p)}, RULES §4.4)"
    ),
    Illegal.PICKUP_NOT_VOLUNTARY: lambda p: (
        "picking up is only allowed when you cannot play (voluntary_pickup is off, RULES §4.4)"
    ),
}


class Malformed(StrEnum):
    """Why something is not a move at all (its JSON form is wrong): the machine code a
    :class:`MalformedMove` carries, with its parameters (``MalformedMove.params``)."""

    NOT_AN_OBJECT = "not_an_object"
    """The move is not a JSON object. ``kind``: the type's name."""
    UNKNOWN_TYPE = "unknown_type"
    """The move's ``type`` is none of ``play``, ``pickup``, ``timeout``. ``type``: it."""
    KEYS = "keys"
    """The move's keys are not its type's. ``kind``: the type; ``missing``, ``extra``:
    sorted lists of keys."""
    CARDS_NOT_CODES = "cards_not_codes"
    """A play's ``cards`` is not a list of strings. No parameters."""
    NO_CARDS = "no_cards"
    """A play of no card. No parameters."""
    UNKNOWN_CARD = "unknown_card"
    """A play names something that is no card code. ``card``: what it names."""
    CARD_TWICE = "card_twice"
    """A play lists a card twice. ``card``: that card's code; ``cards``: the play's codes."""
    BAD_COUNT = "bad_count"
    """A pick-up's ``count`` is not a positive whole number. ``count``: what was sent."""


def _keys_sentence(params: dict[str, Any]) -> str:
    problems = []
    if params["missing"]:
        problems.append(f"missing {', '.join(map(repr, params['missing']))}")
    if params["extra"]:
        problems.append(f"unexpected {', '.join(map(repr, params['extra']))}")
    kind = params["kind"]
    return f"a {kind} move has the keys {sorted(_FIELDS[kind])}: {'; '.join(problems)}"


# The English sentence of each code, for developers.
_MALFORMED_SENTENCES: dict[Malformed, Callable[[dict[str, Any]], str]] = {
    Malformed.NOT_AN_OBJECT: lambda p: f"a move must be a JSON object, not {p['kind']}",
    Malformed.UNKNOWN_TYPE: lambda p: (
        f"a move's 'type' must be 'play', 'pickup' or 'timeout', not {p['type']!r}"
    ),
    Malformed.KEYS: _keys_sentence,
    Malformed.CARDS_NOT_CODES: lambda p: "a play's 'cards' must be a list of card codes",
    Malformed.NO_CARDS: lambda p: "a play must lay at least one card",
    Malformed.UNKNOWN_CARD: lambda p: unknown_card_sentence(p["card"]),
    Malformed.CARD_TWICE: lambda p: f"a card is listed twice in the play {list(p['cards'])}",
    Malformed.BAD_COUNT: lambda p: (
        f"a pick-up takes a positive whole number of cards, not {p['count']!r}"
    ),
}


class _CodedError(ValueError):
    """An error that carries a machine code and its parameters, and says them in an
    English sentence (``str()``); the site says them to players in their language."""

    _codes: type[StrEnum]
    _sentences: dict[Any, Callable[[dict[str, Any]], str]]
    params: dict[str, Any]

    def __init__(self, code: StrEnum | str, **params: Any) -> None:
        code = self._codes(code)
        super().__init__(self._sentences[code](params))
        self.code = code
        self.params = params

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.code.value, self.params, self.args, type(self)))


class IllegalMove(_CodedError):
    """The move breaks a rule: ``code`` says which (an :class:`Illegal`), ``params`` its
    particulars, and ``str()`` an English sentence naming the rule (and its RULES.md
    section): ``IllegalMove(code=Illegal.NOT_HELD, cards=("QH",))``.

    A refusal of :func:`~games.engine.hand.replay` keeps the code and parameters of the
    move it could not apply, adds its ``index`` to the parameters and says it in the
    sentence.
    """

    _codes = Illegal
    _sentences = _SENTENCES
    code: Illegal

    def at_move(self, index: int, move: object) -> IllegalMove:
        """The same refusal, said of the move at ``index`` of a list of moves."""
        exc = IllegalMove(self.code, **{**self.params, "index": index})
        exc.args = (f"move {index} ({move!r}): {self}",)
        return exc


class MalformedMove(_CodedError):
    """Not a move at all: its JSON form is wrong. ``code`` says how (a
    :class:`Malformed`), ``params`` its particulars, ``str()`` an English sentence:
    ``MalformedMove(Malformed.UNKNOWN_CARD, card="ZZ")``."""

    _codes = Malformed
    _sentences = _MALFORMED_SENTENCES
    code: Malformed


def _rebuild(
    code: str,
    params: dict[str, Any],
    args: tuple[Any, ...],
    kind: type[_CodedError] = IllegalMove,
) -> _CodedError:
    exc = kind(code, **params)
    exc.args = args
    return exc


_setattr = object.__setattr__


class Play:
    """Lay ``cards`` on the pile; the last one listed lies on top."""

    __slots__ = ("_ids", "_mask", "_n", "_rank", "_top", "cards")

    cards: tuple[str, ...]

    def __init__(self, cards: str | tuple[str, ...] | list[str]) -> None:
        """Build a play from card codes (a single code may be passed as a string).

        Raises ``MalformedMove`` (a ``ValueError``) for an empty play, an unknown code
        or a card listed twice; whether the play is legal is decided by ``apply``.
        """
        codes = (cards,) if isinstance(cards, str) else tuple(cards)
        if not codes:
            raise MalformedMove(Malformed.NO_CARDS)
        ids = []
        for code in codes:
            try:
                ids.append(parse_card(code))
            except ValueError:
                raise MalformedMove(Malformed.UNKNOWN_CARD, card=code) from None
        if len(set(ids)) != len(ids):
            twice = next(c for i, c in enumerate(codes) if c in codes[:i])
            raise MalformedMove(Malformed.CARD_TWICE, card=twice, cards=codes)
        self._init(tuple(ids))

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
        """``count`` must be a positive int (else ``MalformedMove``); whether it is allowed
        is decided by ``apply``."""
        if type(count) is not int or count < 1:
            raise MalformedMove(Malformed.BAD_COUNT, count=count)
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
    """Parse the JSON form of a move; ``MalformedMove`` (a ``ValueError``) with a clear
    message if malformed.

    A move the rules' tables hold is returned as their shared instance: a history keeps
    each action's move, and a live room keeps hundreds of histories. Nothing is added to
    the shared instances here (the JSON may come from anyone)."""
    if not isinstance(data, dict):
        raise MalformedMove(Malformed.NOT_AN_OBJECT, kind=type(data).__name__)
    kind = data.get("type")
    if kind not in _FIELDS:
        raise MalformedMove(Malformed.UNKNOWN_TYPE, type=kind)
    keys = set(data)
    if keys != _FIELDS[kind]:
        raise MalformedMove(
            Malformed.KEYS,
            kind=kind,
            missing=sorted(_FIELDS[kind] - keys),
            extra=sorted(keys - _FIELDS[kind]),
        )
    if kind == "play":
        cards = data["cards"]
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise MalformedMove(Malformed.CARDS_NOT_CODES)
        play = Play(tuple(cards))
        return _PLAYS.get(play._ids, play)
    if kind == "pickup":
        pickup = PickUp(data["count"])
        return _PICKUPS.get(pickup.count, pickup)
    return TIMEOUT
