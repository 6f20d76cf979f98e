"""The ismcts bot: its evaluation, its search, its budgets."""

import random

import pytest

from games.bots import choose_move
from games.bots.ismcts import SearchSettings, evaluate, ismcts_move
from games.engine import HandState, PickUp, Play, Rules, deal, move_from_json
from tests.engine.positions import pos


def test_a_finished_hand_scores_one_for_all_but_the_loser():
    state = pos(["AS", "9S 9D", "", ""], pile="9H 10S").apply(Play("AS"))
    assert state.outcome.loser == 1
    assert evaluate(state) == [1.0, 0.0, 1.0, 1.0]


def test_a_tie_scores_the_same_for_everyone():
    state = pos(["QS", "KS", "", ""], pile="9H 10S").apply(Play("QS"))
    assert state.outcome.tie
    tie = SearchSettings().tie_reward
    assert evaluate(state) == [tie] * 4
    assert 0.0 < tie < 1.0


def test_nines_are_the_cards_that_lose_a_running_hand():
    state = pos(["9S 9D 10C", "AS AD KC", "QS JD"], pile="9H JS")
    rewards = evaluate(state)
    assert rewards[0] < rewards[2] < 1.0
    assert rewards[0] < rewards[1] < 1.0
    out = pos(["9S 9D 10C", "", "QS JD"], pile="9H JS")
    assert evaluate(out)[1] == 1.0  # out of the hand: safe


def test_a_cut_off_tie_is_scored_by_the_cards_and_a_most_cards_cut_off_by_its_loser():
    hands = ["9S 9D 10C", "AS AD"]
    tie_cut = HandState.from_position(
        rules=Rules(max_actions=10),
        hands=[h.split() for h in hands],
        pile=["9H", "KS"],
        to_move=0,
        action_count=9,
    ).apply(PickUp(1))
    assert tie_cut.outcome.reason == "max_actions" and tie_cut.outcome.loser is None
    rewards = evaluate(tie_cut)
    assert rewards[0] < rewards[1]
    most = HandState.from_position(
        rules=Rules(max_actions=10, max_actions_result="most_cards"),
        hands=[h.split() for h in hands],
        pile=["9H", "KS"],
        to_move=0,
        action_count=9,
    ).apply(PickUp(1))
    assert evaluate(most) == [0.0, 1.0]


def test_blocks_the_last_opponent_where_the_greedy_bot_lets_him_out():
    # Two seats left; the opponent holds one card. The lowest play (JC) lets
    # most cards go out on it and leaves 9C + AS behind: a lost hand. The ace
    # holds him unless he has an ace himself.
    state = pos(["9C JC AS", "QD", "", ""], pile="9H 10S")
    view = state.view_for(0)
    assert choose_move("greedy", view, seed="s") == {"type": "play", "cards": ["JC"]}
    for seed in ("a", "b", "c"):
        move = choose_move("ismcts", view, seed=seed, playouts=300)
        assert move == {"type": "play", "cards": ["AS"]}


def test_a_move_without_alternative_is_made_without_searching():
    # Only a pick-up is possible: an endless budget must not matter.
    state = pos(["9S 10C", "AS"], pile="9H JD QS KS", rules=Rules(voluntary_pickup=False))
    move = ismcts_move(state.view_for(0), random.Random(1), playouts=10**12)
    assert move == PickUp(3)
    # Cards of one rank are the same move in effect (no spades_back): no search either.
    state = pos(["JS JH 9C", "AS"], pile="9H 10D", rules=Rules(voluntary_pickup=False))
    assert ismcts_move(state.view_for(0), random.Random(1), playouts=10**12) == Play("JS")


def test_the_search_plays_a_whole_hand_under_unusual_rules():
    rules = Rules(deck=52, jokers=2, beton=3, spades_back=True, pickup="three_or_more")
    state = deal(rules, 3, 0, "unusual")
    while state.outcome is None and state.action_count < 40:
        view = state.view_for(state.to_move)
        move = choose_move("ismcts", view, seed=str(state.action_count), playouts=15)
        assert move in view["legal_moves"]
        state = state.apply(move_from_json(move))


def test_playouts_must_be_positive_when_given():
    state = pos(["9C JC AS", "QD", "", ""], pile="9H 10S")
    with pytest.raises(ValueError, match="playouts"):
        choose_move("ismcts", state.view_for(0), seed="s", playouts=0)
