"""Refusals carry a machine code and its parameters; hands end with a Reason, abort too."""

import json
import pickle

import pytest

from games.engine import (
    REASONS,
    HandState,
    Illegal,
    IllegalMove,
    MatchState,
    Outcome,
    PickUp,
    Play,
    Reason,
    Rules,
    deal,
    replay,
)
from tests.engine.illegal_cases import CASES
from tests.engine.positions import pos

SEED = "illegal-codes"
JOKERS = Rules(jokers=2)


def test_every_code_has_a_case_here():
    assert set(CASES) == set(Illegal)


@pytest.mark.parametrize("code", list(Illegal))
def test_each_refusal_carries_its_code_and_parameters(code):
    make, move, params = CASES[code]
    with pytest.raises(IllegalMove) as info:
        make().apply(move)
    assert info.value.code is code
    assert info.value.params == params
    assert str(info.value)  # an English sentence
    assert isinstance(info.value, ValueError)


def test_the_codes_are_strings_and_the_exception_is_built_from_one():
    assert Illegal.NOT_HELD == "not_held"
    exc = IllegalMove("not_held", cards=("QH", "9S"))
    assert exc.code is Illegal.NOT_HELD
    assert IllegalMove(code=Illegal.NOT_HELD, cards=("QH",)).params == {"cards": ("QH",)}
    assert str(exc) == "you do not hold QH, 9S"
    with pytest.raises(ValueError):
        IllegalMove("no_such_code")


def test_a_joker_on_top_is_a_parameter_and_named_in_the_sentence():
    state = pos(["KS AH", "9S 10H QC"], pile="9H 10S X1", to_move=1, rules=JOKERS)
    with pytest.raises(IllegalMove) as info:
        state.apply(Play("9S"))
    assert info.value.code is Illegal.CARD_TOO_LOW
    assert info.value.params == {"card": "9", "top": "10", "joker_on_top": True}
    assert "the joker on top counts as the 10 it covers" in str(info.value)


def test_timeout_and_abort_of_a_finished_hand_are_refused_as_hand_over():
    over = pos(["AS", "9S"], pile="9H").timeout()
    for act in (over.timeout, over.abort):
        with pytest.raises(IllegalMove) as info:
            act()
        assert info.value.code is Illegal.HAND_OVER


def test_replay_keeps_the_code_and_adds_the_index():
    with pytest.raises(IllegalMove) as info:
        replay(Rules(), 4, 0, SEED, [Play("9H"), PickUp(2)])
    assert info.value.code is Illegal.PICKUP_BASE_ONLY
    assert info.value.params == {"index": 1}
    assert str(info.value).startswith("move 1 (PickUp(2)): picking up is impossible")


def test_a_refusal_survives_pickling():
    with pytest.raises(IllegalMove) as info:
        replay(Rules(), 4, 0, SEED, [Play("KH")])
    copy = pickle.loads(pickle.dumps(info.value))
    assert (copy.code, copy.params, str(copy)) == (
        info.value.code,
        info.value.params,
        str(info.value),
    )


# -- reasons and abort -------------------------------------------------------------


def test_reasons_are_an_enum_whose_values_are_the_json_strings():
    assert tuple(Reason) == REASONS
    assert [r.value for r in Reason] == [
        "last_player",
        "final_play_tie",
        "timeout",
        "max_actions",
        "aborted",
    ]
    outcome = Outcome(None, True, "max_actions")
    assert outcome.reason is Reason.MAX_ACTIONS
    with pytest.raises(ValueError):
        Outcome(None, True, "no_such_reason")


def test_abort_ends_the_hand_where_it_stands_with_nobody_losing():
    state = pos(["AS KS", "9S 9D", "JS"], pile="9H 10S", to_move=1)
    aborted = state.abort()
    assert aborted.is_over and not state.is_over
    assert aborted.outcome == Outcome(None, True, Reason.ABORTED)
    assert aborted.legal_moves() == ()
    assert aborted.private_view(1)["legal_moves"] == []
    assert (aborted.pile, aborted.to_move, aborted.history) == (
        state.pile,
        state.to_move,
        state.history,
    )
    assert [aborted.hand(s) for s in range(3)] == [state.hand(s) for s in range(3)]
    with pytest.raises(IllegalMove) as info:
        aborted.apply(Play("9S"))
    assert info.value.code is Illegal.HAND_OVER


def test_an_aborted_state_round_trips_through_json_as_before():
    state = deal(Rules(), 3, 0, SEED).abort()
    data = json.loads(json.dumps(state.to_json()))
    assert data["outcome"] == {"loser": None, "tie": True, "reason": "aborted", "final_play": None}
    again = HandState.from_json(data)
    assert again == state and again.outcome.reason is Reason.ABORTED


def test_outcomes_stored_before_the_enum_still_load():
    for reason in ("last_player", "timeout", "max_actions", "aborted"):
        loser = 1 if reason in ("last_player", "timeout") else None
        data = {"loser": loser, "tie": loser is None, "reason": reason, "final_play": None}
        outcome = Outcome.from_json(data)
        assert outcome.reason == reason and outcome.to_json() == data
    with pytest.raises(ValueError, match="unknown outcome reason"):
        Outcome.from_json({"loser": None, "tie": True, "reason": "nope", "final_play": None})


def test_an_aborted_hand_gives_no_letter_and_the_dealer_moves_on():
    match = MatchState.new(3, 0)
    after = match.after_hand(deal(Rules(), 3, 0, SEED).abort().outcome)
    assert after.letters == (0, 0, 0) and after.dealer == 1 and after.hands_played == 1
