"""Betons (RULES §2), going out, loser, tie and the cut-off (§6), timeouts (§8)."""

import pytest

from games.engine import IllegalMove, PickUp, Play, Rules, Timeout
from tests.engine.positions import pos

# -- §2 beton ---------------------------------------------------------------------


def test_s2_beton_becomes_the_hand_when_the_hand_empties():
    state = pos(
        ["AS", "KD QD", "9S"], betons=["10S 10D", "JC", ""], pile="9H QH", rules=Rules(beton=2)
    )
    assert "10S" not in state.view_for(0)["hand"]
    after = state.apply(Play("AS"))
    assert after.hand(0) == ("10S", "10D")
    assert after.beton_counts == (0, 1, 0)
    assert after.hand_counts == (2, 2, 1)
    assert after.view_for(0)["hand"] == ["10S", "10D"]
    assert after.holding == (True, True, True)
    assert after.to_move == 1


def test_s2_out_only_when_hand_and_beton_are_empty():
    state = pos(["AS", "KD QD", "9S JS"], betons=["AD", "", ""], pile="9H QH")
    state = state.apply(Play("AS"))  # hand empty, beton AD revealed: still in
    assert state.holding[0]
    state = state.apply(PickUp(2)).apply(Play("9S"))  # seat 1 picks up, seat 2 plays
    assert state.to_move == 0
    state = state.apply(Play("AD"))
    assert state.holding == (False, True, True)
    assert state.outcome is None


def test_s2_beton_cards_never_appear_in_a_view_before_the_reveal():
    state = pos(["AS KS", "KD QD"], betons=["10S 10D", "JC"], pile="9H QH")
    for view in (state.view_for(0), state.view_for(1), state.public_view()):
        assert view["beton_counts"] == [2, 1]
        text = repr(view)
        for code in ("10S", "10D", "JC"):
            assert f"'{code}'" not in text


# -- §6 going out, loser, tie ------------------------------------------------------


def test_s6_a_player_who_goes_out_is_safe_and_skipped():
    state = pos(["AS", "KD QD", "JS 9S"], pile="9H QH")
    after = state.apply(Play("AS"))
    assert after.holding == (False, True, True)
    assert after.outcome is None
    assert after.to_move == 1
    assert after.apply(PickUp(2)).to_move == 2
    assert after.apply(PickUp(2)).apply(Play("9S")).to_move == 1


def test_s6_the_last_player_holding_cards_is_the_loser():
    state = pos(["AS", "9S 10S", ""], pile="9H QH")
    after = state.apply(Play("AS"))
    assert after.outcome.loser == 1
    assert after.outcome.tie is False
    assert after.outcome.reason == "last_player"
    assert after.outcome.final_play is None
    assert after.to_move == 1
    assert after.legal_moves() == ()
    with pytest.raises(IllegalMove, match="the hand is over"):
        after.apply(PickUp(1))


def test_s6_a_final_legal_play_that_empties_the_hand_is_a_tie():
    """Seeds 001-003: the last player who can lay all his cards at once ties the hand."""
    after = pos(["AS", "AD"], pile="9H QH").apply(Play("AS"))
    assert after.outcome.tie is True
    assert after.outcome.loser is None
    assert after.outcome.reason == "final_play_tie"
    assert after.outcome.final_play == Play("AD")
    assert after.outcome.final_seat == 1
    assert after.pile == ("9H", "QH", "AS", "AD")
    assert after.hand_counts == (0, 0)
    last = after.history[-1]
    assert (last.seat, last.move, last.auto) == (1, Play("AD"), True)
    assert after.action_count == 1  # the automatic play is not an action


def test_s6_the_final_play_must_be_legal_on_the_pile_as_it_lies():
    after = pos(["AS", "KD"], pile="9H QH").apply(Play("AS"))
    assert after.outcome.loser == 1


def test_s6_final_four_of_a_rank_is_a_tie():
    after = pos(["QS", "KS KH KD KC"], pile="9H JH").apply(Play("QS"))
    assert after.outcome.reason == "final_play_tie"
    assert after.pile[-4:] == ("KS", "KH", "KD", "KC")


def test_s6_final_three_follows_three_cards():
    hands = ["QS", "QH QD QC"]
    assert pos(hands, pile="9H JH").apply(Play("QS")).outcome.loser == 1
    match = Rules(three_cards="match")
    assert pos(hands, pile="9H JH", rules=match).apply(Play("QS")).outcome.tie


def test_s6_final_lone_joker_is_a_tie_under_any_final_play():
    after = pos(["AS", "X1"], pile="9H QH", rules=Rules(jokers=2)).apply(Play("AS"))
    assert after.outcome.tie
    after = pos(["AS", "X1"], pile="9H QH", rules=Rules(jokers=2, tie_rule="aces_only")).apply(
        Play("AS")
    )
    assert after.outcome.loser == 1


ACES = Rules(tie_rule="aces_only")


def test_s6_aces_only_one_ace_is_a_tie():
    after = pos(["KS", "AD"], pile="9H QH", rules=ACES).apply(Play("KS"))
    assert after.outcome.reason == "final_play_tie"


def test_s6_aces_only_four_aces_are_a_tie():
    after = pos(["KS", "AS AH AD AC"], pile="9H QH", rules=ACES).apply(Play("KS"))
    assert after.outcome.tie
    assert after.outcome.final_play.cards == ("AS", "AH", "AD", "AC")


def test_s6_aces_only_another_legal_final_play_loses():
    after = pos(["QS", "KD"], pile="9H QH", rules=ACES).apply(Play("QS"))
    assert after.outcome.loser == 1
    after = pos(["QS", "KS KH KD KC"], pile="9H JH", rules=ACES).apply(Play("QS"))
    assert after.outcome.loser == 1


def test_s6_a_last_player_with_a_beton_cannot_empty_everything_and_loses():
    after = pos(["AS", "AD"], betons=["", "9S"], pile="9H QH").apply(Play("AS"))
    assert after.outcome.loser == 1


def test_s6_the_hand_ends_as_soon_as_one_player_holds_cards_in_four():
    state = pos(["AS", "", "AD", ""], pile="9H QH", to_move=0)
    after = state.apply(Play("AS"))
    assert after.outcome.tie and after.outcome.final_seat == 2


# -- §6 max_actions -------------------------------------------------------------------


def test_s6_max_actions_cut_off_is_a_tie_by_default():
    rules = Rules(max_actions=10)
    state = pos(["AS KS", "9S 9D", "JS"], pile="9H 10S", rules=rules, action_count=9)
    after = state.apply(PickUp(1))
    assert after.action_count == 10
    assert after.outcome.reason == "max_actions"
    assert after.outcome.tie and after.outcome.loser is None


def test_s6_max_actions_counts_plays_and_pickups():
    state = pos(["AS KS QS", "9S 9D", "JS"], pile="9H 10S", rules=Rules(max_actions=10))
    state = state.apply(Play("QS")).apply(PickUp(2)).apply(Play("JS"))
    assert state.action_count == 3


def test_s6_max_actions_most_cards_loses():
    rules = Rules(max_actions=10, max_actions_result="most_cards")
    state = pos(["AS KS", "9S", "JS JH QD"], pile="9H 10S", rules=rules, action_count=9)
    after = state.apply(Play("AS"))
    assert after.outcome.loser == 2
    assert after.outcome.tie is False
    assert after.outcome.reason == "max_actions"


def test_s6_max_actions_most_cards_counts_the_beton():
    rules = Rules(max_actions=10, max_actions_result="most_cards", beton=3)
    state = pos(
        ["AS KS", "9S", "JS JH QD"],
        betons=["", "10H 10D 10C", ""],
        pile="9H 10S",
        rules=rules,
        action_count=9,
    )
    assert state.apply(Play("AS")).outcome.loser == 1


def test_s6_max_actions_most_cards_tie_goes_to_the_first_in_turn_order_from_the_player_to_move():
    rules = Rules(max_actions=10, max_actions_result="most_cards")
    state = pos(
        ["QS QC 10D", "AS KS", "9S", "JS JH QD"],
        pile="9H 10H",
        to_move=1,
        rules=rules,
        action_count=9,
    )
    after = state.apply(Play("AS"))
    assert after.to_move == 2
    assert after.outcome.loser == 3  # order 2, 3, 0, 1: seat 3 before seat 0
    state = pos(
        ["AS KS", "9S", "JS JH QD", "QS QC 10D"],
        pile="9H 10H",
        to_move=0,
        rules=rules,
        action_count=9,
    )
    assert state.apply(Play("AS")).outcome.loser == 2


def test_s6_a_natural_end_on_the_last_action_wins_over_the_cut_off():
    rules = Rules(max_actions=10, max_actions_result="most_cards")
    state = pos(["AS", "9S 10D"], pile="9H QH", rules=rules, action_count=9)
    assert state.apply(Play("AS")).outcome.reason == "last_player"


# -- §8 timeout ----------------------------------------------------------------------


def test_s8_timeout_the_player_to_move_loses_at_once():
    state = pos(["AS KS", "9S 9D", "JS"], pile="9H 10S", to_move=1)
    after = state.timeout()
    assert after.outcome.loser == 1
    assert after.outcome.reason == "timeout"
    assert after.outcome.tie is False
    assert after.history[-1].move == Timeout()
    assert after.action_count == 0
    assert state.apply(Timeout()) == after
    with pytest.raises(IllegalMove, match="the hand is over"):
        after.timeout()
    with pytest.raises(IllegalMove, match="the hand is over"):
        after.apply(Play("AS"))


def test_apply_rejects_what_is_not_a_move():
    state = pos(["AS KS", "9S 9D"], pile="9H 10S")
    with pytest.raises(TypeError):
        state.apply({"type": "pickup", "count": 1})  # type: ignore[arg-type]
