"""The greedy bot's heuristic, position by position."""

from games.bots import choose_move
from games.bots.greedy import greedy_for_state, greedy_for_view
from games.engine import PickUp, Play, Rules, move_from_json
from tests.engine.positions import pos


def greedy(state):
    by_state = greedy_for_state(state)
    by_view = greedy_for_view(state.view_for(state.to_move))
    assert by_state == by_view
    by_api = choose_move("greedy", state.view_for(state.to_move), seed="x")
    assert move_from_json(by_api) == by_state
    return by_state


def test_sheds_the_lowest_card_first():
    state = pos(["10S QD AS", "JS"], pile="9H 9D")
    assert greedy(state) == Play("10S")


def test_a_play_that_empties_the_hand_comes_first():
    state = pos(["AS", "JS"], pile="9H 10D")
    assert greedy(state) == Play("AS")
    four = pos(["KS KH KD KC", "JS"], pile="9H 10D")
    assert set(greedy(four).cards) == {"KS", "KH", "KD", "KC"}


def test_the_opening_lays_all_four_nines_when_it_can():
    state = pos(["9H 9S 9D 9C AS", "JS"], pile="")
    assert greedy(state).cards[0] == "9H"
    assert len(greedy(state).cards) == 4


def test_three_nines_go_on_the_lone_base_card():
    state = pos(["9S 9D 9C QS", "JS"], pile="9H")
    assert set(greedy(state).cards) == {"9S", "9D", "9C"}


def test_never_breaks_four_of_a_kind_for_a_single():
    state = pos(["JS JH JD JC AS", "10S"], pile="9H 10D")
    move = greedy(state)
    assert move.cards and len(move.cards) == 4


def test_keeps_three_of_a_rank_together_where_three_may_go_down():
    rules = Rules(three_cards="any")
    state = pos(["JS JH JD KS", "10S"], pile="9H 10D", rules=rules)
    assert set(greedy(state).cards) == {"JS", "JH", "JD"}
    # Under the default rules three jacks cannot go down together: shed one.
    state = pos(["JS JH JD KS", "10S"], pile="9H 10D")
    assert len(greedy(state).cards) == 1


def test_keeps_the_joker_for_when_nothing_else_goes():
    rules = Rules(jokers=2)
    state = pos(["X1 QS AS", "10S"], pile="9H 10D", rules=rules)
    assert greedy(state) == Play("QS")
    state = pos(["X1 9S", "10S"], pile="9H 10D KS", rules=rules)
    assert greedy(state) == Play("X1")


def test_picks_up_only_when_it_cannot_play():
    state = pos(["9S 10C", "AS"], pile="9H JD QS KS")
    assert greedy(state) == PickUp(3)


def test_picks_up_high_cards_instead_of_spending_a_king_or_an_ace():
    state = pos(["9S AS", "10S"], pile="9H QD KS KD")
    assert greedy(state) == PickUp(3)
    # Not when a lower card could be played instead ...
    state = pos(["9S QC AS", "10S"], pile="9H QD KS QS")
    assert greedy(state) == Play("QC")
    # ... nor when the pick-up would bring a low card.
    state = pos(["9S AS", "10S"], pile="9H 10D KS AD")
    assert greedy(state) == Play("AS")


def test_never_picks_up_of_its_own_accord_where_the_rules_forbid_it():
    rules = Rules(voluntary_pickup=False)
    state = pos(["9S AS", "10S"], pile="9H QD KS KD", rules=rules)
    assert greedy(state) == Play("AS")


def test_with_spades_back_prefers_the_spade_of_equal_cards():
    rules = Rules(spades_back=True)
    state = pos(["QH QS 9C", "10S", "JS"], pile="9H JD", rules=rules)
    assert greedy(state) == Play("QS")


def test_takes_the_fewest_cards_a_pick_up_allows():
    rules = Rules(pickup="three_or_more")
    state = pos(["9S 10C", "AS"], pile="9H JD QS KS AD AC", rules=rules)
    assert greedy(state) == PickUp(3)
