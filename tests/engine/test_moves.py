"""Moves and their JSON form."""

import pickle

import pytest

from games.engine import (
    Malformed,
    MalformedMove,
    PickUp,
    Play,
    Timeout,
    move_from_json,
    move_to_json,
)


@pytest.mark.parametrize(
    ("move", "data"),
    [
        (Play(("9H", "9S", "9D", "9C")), {"type": "play", "cards": ["9H", "9S", "9D", "9C"]}),
        (Play("AS"), {"type": "play", "cards": ["AS"]}),
        (PickUp(3), {"type": "pickup", "count": 3}),
        (Timeout(), {"type": "timeout"}),
    ],
)
def test_move_json_round_trip(move, data):
    assert move_to_json(move) == data
    assert move_from_json(data) == move


def test_play_lists_the_top_card_last():
    assert Play(("10S", "10H")).top == "10H"


def test_moves_are_immutable_and_hashable():
    with pytest.raises(AttributeError):
        Play("9H").cards = ("AS",)  # type: ignore[misc]
    assert len({Play("9H"), Play(["9H"]), PickUp(3), PickUp(3), Timeout(), Timeout()}) == 3
    assert Play(("9S", "9D")) != Play(("9D", "9S"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "JSON object"),
        ({"type": "draw"}, "'type' must be"),
        ({"type": "play"}, "missing 'cards'"),
        ({"type": "play", "cards": "9H"}, "list of card codes"),
        ({"type": "play", "cards": []}, "at least one card"),
        ({"type": "play", "cards": ["ZZ"]}, "unknown card code 'ZZ'"),
        ({"type": "play", "cards": ["9H", "9H"]}, "listed twice"),
        ({"type": "pickup", "count": 0}, "positive"),
        ({"type": "pickup", "count": "3"}, "positive"),
        ({"type": "pickup", "count": 3, "extra": 1}, "unexpected 'extra'"),
        ({"type": "timeout", "seat": 1}, "unexpected 'seat'"),
    ],
)
def test_move_from_json_rejects_bad_json_clearly(data, message):
    with pytest.raises(ValueError, match=message):
        move_from_json(data)


MALFORMED_CASES = [
    ([], Malformed.NOT_AN_OBJECT, {"kind": "list"}),
    ({"type": "draw"}, Malformed.UNKNOWN_TYPE, {"type": "draw"}),
    (
        {"type": "play", "extra": 1},
        Malformed.KEYS,
        {"kind": "play", "missing": ["cards"], "extra": ["extra"]},
    ),
    ({"type": "play", "cards": "9H"}, Malformed.CARDS_NOT_CODES, {}),
    ({"type": "play", "cards": []}, Malformed.NO_CARDS, {}),
    ({"type": "play", "cards": ["9H", "ZZ"]}, Malformed.UNKNOWN_CARD, {"card": "ZZ"}),
    (
        {"type": "play", "cards": ["9S", "9H", "9S"]},
        Malformed.CARD_TWICE,
        {"card": "9S", "cards": ("9S", "9H", "9S")},
    ),
    ({"type": "pickup", "count": 0}, Malformed.BAD_COUNT, {"count": 0}),
]


def test_the_cases_cover_every_malformed_code():
    assert {code for _, code, _ in MALFORMED_CASES} == set(Malformed)


@pytest.mark.parametrize(("data", "code", "params"), MALFORMED_CASES)
def test_a_malformed_move_carries_its_code_and_the_cards_as_data(data, code, params):
    """The site says these to players in their own words (games.refusals): the cards
    are data, not a sentence to translate."""
    with pytest.raises(MalformedMove) as info:
        move_from_json(data)
    assert (info.value.code, info.value.params) == (code, params)
    assert isinstance(info.value, ValueError) and str(info.value)
    copy = pickle.loads(pickle.dumps(info.value))
    assert (type(copy), copy.code, copy.params, str(copy)) == (
        MalformedMove,
        code,
        params,
        str(info.value),
    )


def test_a_legal_move_read_from_json_is_the_one_every_history_shares():
    """A live room keeps the histories of hundreds of hands: a move that comes as JSON (a
    player's command, a table's event) and is legal is the rules' own instance, so a
    history holds a reference to it rather than a copy per action."""
    from games.engine import Rules
    from games.engine.hand import deal
    from games.engine.moves import _PLAYS

    state = deal(Rules(), 4, 0, "shared-moves")
    for _ in range(30):
        if state.outcome is not None:
            break
        legal = state.legal_moves()[-1]
        parsed = move_from_json(move_to_json(legal))
        assert parsed is legal
        state = state.apply(parsed)
    # What anyone may send is parsed, never added to the shared instances.
    known = len(_PLAYS)
    odd = move_from_json({"type": "play", "cards": ["AS", "KD", "9H", "QC", "JS"]})
    assert odd == Play(("AS", "KD", "9H", "QC", "JS")) and len(_PLAYS) == known
    assert move_from_json({"type": "pickup", "count": 7}) == PickUp(7)
