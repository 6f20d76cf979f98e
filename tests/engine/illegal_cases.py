"""A position and a move for each code of ``Illegal``, with the parameters it refuses with
(the engine's tests and the games app's messages use them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.engine import HandState, Illegal, IllegalMove, Move, PickUp, Play, Rules
from tests.engine.positions import pos

CASES: dict[Illegal, tuple[Callable[[], HandState], Move, dict[str, Any]]] = {
    Illegal.HAND_OVER: (lambda: pos(["AS", "9S"], pile="9H").timeout(), Play("AS"), {}),
    Illegal.NOT_HELD: (lambda: pos(["AS", "KD"], pile="9H 10S"), Play("QH"), {"cards": ("QH",)}),
    Illegal.OPENING: (
        lambda: pos(["9H JS", "10S"], pile=""),
        Play("JS"),
        {"base": "9H", "base_rank": "9"},
    ),
    Illegal.CARD_TOO_LOW: (
        lambda: pos(["9C AH", "KD"], pile="9H 10D"),
        Play("9C"),
        {"card": "9", "top": "10", "joker_on_top": False},
    ),
    Illegal.TWO_CARDS: (lambda: pos(["JS JH", "KD"], pile="9H 10S"), Play(("JS", "JH")), {}),
    Illegal.TOO_MANY_CARDS: (
        lambda: pos(["9S JD JC JH AS", "KD"], pile="9H 10S"),
        Play(("9S", "JD", "JC", "JH", "AS")),
        {"count": 5},
    ),
    Illegal.JOKER_IN_SET: (
        lambda: pos(["JS JH X1", "KD"], pile="9H 10S", rules=Rules(jokers=2, three_cards="any")),
        Play(("JS", "JH", "X1")),
        {},
    ),
    Illegal.MIXED_RANKS: (
        lambda: pos(["9S JD JC", "KD"], pile="9H 10S"),
        Play(("9S", "JD", "JC")),
        {},
    ),
    Illegal.FOUR_TOO_LOW: (
        lambda: pos(["JS JH JD JC", "KD"], pile="9H QS"),
        Play(("JS", "JH", "JD", "JC")),
        {"rank": "J", "top": "Q", "joker_on_top": False},
    ),
    Illegal.THREE_NOT_BASE_RANK: (
        lambda: pos(["JS JD JC", "KD"], pile="9H 10S"),
        Play(("JS", "JD", "JC")),
        {"rank": "J", "base_rank": "9"},
    ),
    Illegal.THREE_NOT_TOP_RANK: (
        lambda: pos(["JH JD JC", "KD"], pile="9H 10S", rules=Rules(three_cards="match")),
        Play(("JH", "JD", "JC")),
        {"rank": "J", "top": "10", "joker_on_top": False},
    ),
    Illegal.THREE_TOO_LOW: (
        lambda: pos(["JH JD JC", "KD"], pile="9H QS", rules=Rules(three_cards="any")),
        Play(("JH", "JD", "JC")),
        {"rank": "J", "top": "Q", "joker_on_top": False},
    ),
    Illegal.PICKUP_BEFORE_OPENING: (lambda: pos(["9H", "KD"], pile=""), PickUp(1), {}),
    Illegal.PICKUP_BASE_ONLY: (lambda: pos(["9C", "KD"], pile="9H"), PickUp(1), {}),
    Illegal.PICKUP_TAKES_ALL: (
        lambda: pos(["9C", "KD"], pile="9H AS"),
        PickUp(3),
        {"count": 3, "above": 1},
    ),
    Illegal.PICKUP_COUNT: (
        lambda: pos(["9S", "KD"], pile="9H 10S JS QS KS"),
        PickUp(4),
        {"count": 4, "above": 4, "pickup": "three"},
    ),
    Illegal.PICKUP_NOT_VOLUNTARY: (
        lambda: pos(["AS", "KD"], pile="9H 10S", rules=Rules(voluntary_pickup=False)),
        PickUp(1),
        {},
    ),
}


def refusal(code: Illegal) -> IllegalMove:
    """The ``IllegalMove`` that the engine raises for ``code``'s case."""
    make, move, _params = CASES[code]
    try:
        make().apply(move)
    except IllegalMove as exc:
        return exc
    raise AssertionError(f"{move!r} was accepted")
