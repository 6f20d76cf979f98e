"""What a seat may see (RULES §10), JSON round trips and building positions."""

import json

import pytest

from games.engine import HandState, PickUp, Play, Rules, deal
from tests.engine.positions import pos

PUBLIC_KEYS = {
    "players",
    "dealer",
    "rules",
    "hand_counts",
    "beton_counts",
    "pile",
    "top",
    "top_rank",
    "to_move",
    "action_count",
    "history",
    "outcome",
}


def test_s10_public_view_holds_only_public_facts():
    state = pos(["AS KS", "9S 9D", "JS"], betons=["QC", "", "10C"], pile="9H 10S QS AH")
    state = state.apply(PickUp(3))
    view = state.public_view()
    assert set(view) == PUBLIC_KEYS
    assert view["hand_counts"] == [5, 2, 1]
    assert view["beton_counts"] == [1, 0, 1]
    assert view["pile"] == ["9H"]
    assert view["history"] == [
        {"seat": 0, "type": "pickup", "count": 3, "cards": ["10S", "QS", "AH"]}
    ]
    assert view["to_move"] == 1
    assert view["action_count"] == 1
    assert view["outcome"] is None
    assert view["rules"] == Rules().to_json()
    json.dumps(view)  # JSON-ready


def test_s10_view_for_adds_only_the_own_hand_and_legal_moves():
    state = pos(["AS KS", "9S 9D", "JS"], betons=["QC", "", "10C"], pile="9H 10S")
    view = state.view_for(0)
    assert set(view) == PUBLIC_KEYS | {"seat", "hand", "legal_moves"}
    assert view["hand"] == ["KS", "AS"]
    assert {"type": "play", "cards": ["AS"]} in view["legal_moves"]
    text = json.dumps(view)
    for secret in ("9S", "9D", "JS", "QC", "10C"):
        assert f'"{secret}"' not in text
    other = state.view_for(1)
    assert other["hand"] == ["9S", "9D"]
    assert other["legal_moves"] == []
    assert '"AS"' not in json.dumps(other)


def test_s10_view_for_rejects_a_seat_that_does_not_exist():
    with pytest.raises(ValueError, match="no seat 3"):
        pos(["AS", "KS", "QS"], pile="9H 10S").view_for(3)


def test_s10_the_history_shows_who_played_and_picked_up_what():
    state = pos(["AS KS", "9S 9D", "JS"], pile="9H 10S")
    state = state.apply(Play("KS")).apply(PickUp(2))
    assert state.public_view()["history"] == [
        {"seat": 0, "type": "play", "cards": ["KS"]},
        {"seat": 1, "type": "pickup", "count": 2, "cards": ["10S", "KS"]},
    ]


def test_state_json_round_trip_is_exact():
    rules = Rules(beton=2, jokers=2, spades_back=True, three_cards="any")
    state = deal(rules, 3, 2, "round-trip")
    for _ in range(40):
        if state.outcome is not None:
            break
        state = state.apply(state.legal_moves()[len(state.legal_moves()) // 2])
    data = json.loads(json.dumps(state.to_json()))
    again = HandState.from_json(data)
    assert again == state
    assert again.to_json() == state.to_json()
    assert again.legal_moves() == state.legal_moves()


def test_state_json_round_trip_after_the_end():
    for state in (
        pos(["AS", "AD"], pile="9H QH").apply(Play("AS")),
        pos(["AS KS", "9S"], pile="9H QH").timeout(),
    ):
        assert HandState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_state_from_json_rejects_bad_data():
    data = deal(Rules(), 2, 0, "x").to_json()
    with pytest.raises(ValueError, match="keys"):
        HandState.from_json({**data, "extra": 1})
    with pytest.raises(ValueError, match="format"):
        HandState.from_json({**data, "format": 99})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"hands": [["AS"], ["AS"]]}, "twice"),
        ({"hands": [["AS"], ["8S"]]}, "not a card of this table's deck"),
        ({"hands": [["AS"], ["ZZ"]]}, "unknown card code"),
        ({"pile": ["10S", "9H"]}, "starts with the base card"),
        ({"pile": []}, "before the opening"),
        ({"betons": [["9H"], []], "pile": []}, "never in a beton|before the opening"),
        ({"hands": [[], ["KS"]], "betons": [["QS"], []]}, "beton behind an empty hand"),
        ({"hands": [["AS"], []]}, "fewer than two"),
        ({"hands": [[], ["KS"], ["QS"]]}, "holds no cards"),
        ({"to_move": 2}, "to_move"),
        ({"action_count": 500}, "max_actions"),
        ({"hands": [["AS"]]}, "2 to 4 players"),
    ],
)
def test_from_position_rejects_impossible_positions(kwargs, message):
    args = {"rules": Rules(), "hands": [["AS"], ["KS"]], "pile": ["9H"], "to_move": 0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        HandState.from_position(**args)


def test_from_view_rebuilds_a_full_state_from_a_guess():
    """A bot's determinisation: the view plus a guess of the hidden cards."""
    state = deal(Rules(beton=2), 3, 0, "determinise")
    for _ in range(7):
        state = state.apply(state.legal_moves()[0])
    seat = state.to_move
    view = state.view_for(seat)
    hands = [None if s == seat else list(state.hand(s)) for s in range(3)]
    betons = [list(state.beton(s)) for s in range(3)]
    guess = HandState.from_view(view, hands=hands, betons=betons)
    assert guess.legal_moves() == state.legal_moves()
    assert guess.view_for(seat) == view
    nxt = state.legal_moves()[-1]
    assert guess.apply(nxt).public_view() == state.apply(nxt).public_view()


def test_from_view_checks_the_counts():
    state = deal(Rules(), 2, 0, "counts")
    view = state.view_for(0)
    with pytest.raises(ValueError, match="seat 1 holds 12 cards"):
        HandState.from_view(view, hands=[None, ["AS"]])


def test_hand_state_is_immutable():
    state = deal(Rules(), 2, 0, "frozen")
    with pytest.raises(AttributeError):
        state._to_move = 1
    with pytest.raises(AttributeError):
        state.to_move = 1  # type: ignore[misc]
