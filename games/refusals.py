"""What a refused move says to the player, in his language.

The engine refuses a move with an :class:`~games.engine.IllegalMove` that carries a
machine code (:class:`~games.engine.Illegal`) and its parameters; its English sentence
names the rule for developers. :data:`MESSAGES` holds one message for players per code:
shorter, without the RULES.md sections, translated, naming cards as the table shows
them (``9♥``, never the engine's code ``9H``). Something that is no move at all (a
:class:`~games.engine.MalformedMove`) is said the same way (:data:`MALFORMED`).

:func:`judged_move` is the one way from what a player sent to the engine's judgement
of it, refused in his words: the table's moves, the puzzles and the lessons use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.errors import Refused
from games.cards import card_in_words, cards_in_words
from games.engine import (
    HandState,
    Illegal,
    IllegalMove,
    Malformed,
    MalformedMove,
    Move,
    Timeout,
    move_from_json,
)

__all__ = [
    "MALFORMED",
    "MESSAGES",
    "Message",
    "illegal_move_text",
    "judged_move",
    "malformed_move_text",
    "parsed_move",
    "timeout_not_a_move_text",
]

Params = dict[str, Any]


@dataclass(frozen=True)
class Message:
    """A code's message (``text``, to be translated) and its values from the code's
    parameters (``values``; None for a message without any)."""

    text: Promise
    values: Callable[[Params], dict[str, Any]] | None = None

    def say(self, params: Params) -> str:
        """The message in the active language, its values filled in from ``params``."""
        text = str(self.text)
        return text if self.values is None else text % self.values(params)


def _top(params: Params) -> str:
    """The top's rank as a message names it, saying so when a joker on top stands for it."""
    if params.get("joker_on_top"):
        return _("%(rank)s (the joker on top counts as the %(rank)s it covers)") % {
            "rank": params["top"]
        }
    return params["top"]


def _set_too_low(params: Params) -> dict[str, Any]:
    return {"rank": params["rank"], "top": _top(params)}


MESSAGES: dict[Illegal, Message] = {
    Illegal.HAND_OVER: Message(gettext_lazy("the hand is over")),
    Illegal.NOT_HELD: Message(
        gettext_lazy("you do not hold %(cards)s"),
        lambda p: {"cards": cards_in_words(p["cards"])},
    ),
    Illegal.OPENING: Message(
        gettext_lazy("the hand opens with the base card %(base)s alone, or all four of its rank"),
        lambda p: {"base": card_in_words(p["base"])},
    ),
    Illegal.CARD_TOO_LOW: Message(
        gettext_lazy(
            "a %(card)s cannot go on a %(top)s: a card must be equal to or higher than the top"
        ),
        lambda p: {"card": p["card"], "top": _top(p)},
    ),
    Illegal.TWO_CARDS: Message(
        gettext_lazy("never two cards at once: play one card, or three or four of a rank")
    ),
    Illegal.TOO_MANY_CARDS: Message(gettext_lazy("at most four cards go down at once")),
    Illegal.JOKER_IN_SET: Message(gettext_lazy("a joker is played alone, never in a set")),
    Illegal.MIXED_RANKS: Message(gettext_lazy("cards played together must all be of one rank")),
    Illegal.FOUR_TOO_LOW: Message(
        gettext_lazy(
            "%(rank)s cannot go on a %(top)s: a set must be equal to or higher than the top"
        ),
        _set_too_low,
    ),
    Illegal.THREE_NOT_BASE_RANK: Message(
        gettext_lazy(
            "at this table three cards go down only as the other three of the base card's rank"
            " on the lone base card"
        )
    ),
    Illegal.THREE_NOT_TOP_RANK: Message(gettext_lazy("three cards must be of the top card's rank")),
    Illegal.THREE_TOO_LOW: Message(
        gettext_lazy(
            "%(rank)s cannot go on a %(top)s: a set must be equal to or higher than the top"
        ),
        _set_too_low,
    ),
    Illegal.PICKUP_BEFORE_OPENING: Message(
        gettext_lazy("the hand opens with the base card: nothing can be picked up yet")
    ),
    Illegal.PICKUP_BASE_ONLY: Message(
        gettext_lazy("nothing can be picked up while the pile holds only the base card")
    ),
    Illegal.PICKUP_TAKES_ALL: Message(
        gettext_lazy("with %(n)s cards above the base card a pick-up takes them all"),
        lambda p: {"n": p["above"]},
    ),
    Illegal.PICKUP_COUNT: Message(
        gettext_lazy("a pick-up of %(n)s cards is not allowed at this table"),
        lambda p: {"n": p["count"]},
    ),
    Illegal.PICKUP_NOT_VOLUNTARY: Message(
        gettext_lazy("at this table you may pick up only when you cannot play")
    ),
}


# A page of ours sends none of these; a stale or hand-made one may.
_UNREADABLE = Message(gettext_lazy("the table cannot read it"))

MALFORMED: dict[Malformed, Message] = {
    Malformed.NOT_AN_OBJECT: _UNREADABLE,
    Malformed.UNKNOWN_TYPE: _UNREADABLE,
    Malformed.KEYS: _UNREADABLE,
    Malformed.CARDS_NOT_CODES: _UNREADABLE,
    Malformed.NO_CARDS: Message(gettext_lazy("no card was chosen")),
    Malformed.UNKNOWN_CARD: Message(gettext_lazy("there is no such card")),
    Malformed.CARD_TWICE: Message(
        gettext_lazy("%(card)s is chosen twice"), lambda p: {"card": card_in_words(p["card"])}
    ),
    Malformed.BAD_COUNT: Message(gettext_lazy("a pick-up takes at least one card")),
}


def _illegal(reason: str) -> str:
    return _("Illegal move: %(reason)s") % {"reason": reason}


def illegal_move_text(exc: IllegalMove) -> str:
    """The engine's refusal of a move, said to the player in the active language."""
    return _illegal(MESSAGES[exc.code].say(exc.params))


def malformed_move_text(exc: MalformedMove) -> str:
    """Why what was sent is no move at all, said to the player in the active language."""
    return _("That is not a move: %(error)s") % {"error": MALFORMED[exc.code].say(exc.params)}


def timeout_not_a_move_text() -> str:
    """The refusal of a timeout sent as a move: the engine applies one, a player cannot."""
    return _illegal(_("a timeout is not a move a player can make"))


def parsed_move(data: Any) -> Move:
    """``data`` (a move's JSON) as the engine's move a player may send: Refused, in the
    player's words, for something no move at all or for the clock's timeout."""
    try:
        move = move_from_json(data)
    except MalformedMove as exc:
        raise Refused(malformed_move_text(exc)) from exc
    if isinstance(move, Timeout):
        raise Refused(timeout_not_a_move_text())
    return move


def judged_move(state: HandState, data: Any) -> tuple[Move, HandState]:
    """``data`` (a move's JSON) parsed and applied to ``state``: the move and the state
    after it. Refused, in the player's words, when it is no move (``parsed_move``) or
    the rules do not allow it."""
    move = parsed_move(data)
    try:
        return move, state.apply(move)
    except IllegalMove as exc:
        raise Refused(illegal_move_text(exc)) from exc
