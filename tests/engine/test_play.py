"""Plays, pick-ups and turn passing: RULES §1 (jokers, decks), §3, §4, §5, §9."""

import pytest

from games.engine import IllegalMove, PickUp, Play, Rules
from tests.engine.positions import pos


def plays(state):
    return {m.cards for m in state.legal_moves() if isinstance(m, Play)}


def pickups(state):
    return [m.count for m in state.legal_moves() if isinstance(m, PickUp)]


# -- §3 opening ------------------------------------------------------------------


def test_s3_opener_plays_the_base_card_alone():
    state = pos(["9H JS AS", "10S"], pile="")
    assert state.legal_moves() == (Play("9H"),)
    after = state.apply(Play("9H"))
    assert after.pile == ("9H",)
    assert after.to_move == 1


def test_s3_opener_may_lay_all_four_nines_with_9h_at_the_bottom():
    """Seed examples 000-003: the opener with all four nines lays them at once."""
    state = pos(["9H 9S 9D 9C KH", "10S"], pile="")
    assert plays(state) == {("9H",), ("9H", "9S", "9D", "9C")}
    after = state.apply(Play(("9H", "9S", "9D", "9C")))
    assert after.pile == ("9H", "9S", "9D", "9C")
    assert after.hand(0) == ("KH",)


def test_s3_opening_four_may_choose_the_top_but_keeps_the_base_at_the_bottom():
    state = pos(["9H 9S 9D 9C KH", "10S"], pile="")
    assert state.apply(Play(("9H", "9C", "9D", "9S"))).top == "9S"
    with pytest.raises(IllegalMove, match=r"9H at the bottom \(RULES §3\)"):
        state.apply(Play(("9S", "9H", "9D", "9C")))


def test_s3_opening_four_with_spades_back_offers_one_order_per_top():
    state = pos(["9H 9S 9D 9C KH", "10S"], pile="", rules=Rules(spades_back=True))
    fours = {c for c in plays(state) if len(c) == 4}
    assert fours == {("9H", "9D", "9C", "9S"), ("9H", "9S", "9C", "9D"), ("9H", "9S", "9D", "9C")}


@pytest.mark.parametrize("three_cards", ["nines", "match", "any"])
def test_s3_the_opening_is_the_base_card_or_four_never_another_card_or_three(three_cards):
    state = pos(["9H 9S 9D JS", "10S"], pile="", rules=Rules(three_cards=three_cards))
    assert state.legal_moves() == (Play("9H"),)
    for bad in (Play("JS"), Play(("9H", "9S", "9D")), Play("9S")):
        with pytest.raises(IllegalMove, match="RULES §3"):
            state.apply(bad)
    with pytest.raises(IllegalMove, match="nothing can be picked up"):
        state.apply(PickUp(1))


# -- §4.1 one card --------------------------------------------------------------


def test_s4_1_queen_on_top_allows_q_k_a_only():
    """Seed 001: on a Q he may play Q, K or A, not 9, 10 or J."""
    state = pos(["9S 10S JS QS KS AS", "9D"], pile="9H QH")
    assert plays(state) == {("QS",), ("KS",), ("AS",)}
    for code in ("9S", "10S", "JS"):
        with pytest.raises(IllegalMove, match=r"RULES §4\.1"):
            state.apply(Play(code))
    for code in ("QS", "KS", "AS"):
        assert state.apply(Play(code)).top == code


def test_s4_1_after_9h_9s_10d_a_nine_is_refused():
    """Seed 003: after 9♥, 9♠, 10♦ the next may play a 10 or higher, not a 9."""
    state = pos(["9C 10C AH", "KD"], pile="9H 9S 10D")
    with pytest.raises(IllegalMove) as info:
        state.apply(Play("9C"))
    assert str(info.value) == (
        "a 9 cannot go on a 10: a card must be equal to or higher than the top (RULES §4.1)"
    )
    assert plays(state) == {("10C",), ("AH",)}


def test_s1_suits_never_affect_order():
    state = pos(["10S 10C 9C", "KD"], pile="9H 10H")
    assert plays(state) == {("10S",), ("10C",)}


def test_s4_you_can_only_play_cards_you_hold():
    with pytest.raises(IllegalMove, match="you do not hold QH"):
        pos(["AS", "KD"], pile="9H 10S").apply(Play("QH"))


def test_s4_never_two_cards_at_once():
    state = pos(["JS JH AS", "KD"], pile="9H 10S")
    with pytest.raises(IllegalMove, match=r"never two cards at once.*RULES §4\)"):
        state.apply(Play(("JS", "JH")))


def test_s9_slipping_a_card_under_another_is_impossible():
    """RULES §9: podkładanie cannot happen -- cards of mixed ranks are refused."""
    state = pos(["9S JD JC JH AS", "KD"], pile="9H 10S")
    with pytest.raises(IllegalMove, match="one rank"):
        state.apply(Play(("9S", "JD", "JC")))
    with pytest.raises(IllegalMove, match="one rank"):
        state.apply(Play(("9S", "JD", "JC", "JH")))
    with pytest.raises(IllegalMove, match="at most four"):
        state.apply(Play(("9S", "JD", "JC", "JH", "AS")))


# -- §4.2 four cards ----------------------------------------------------------------


def test_s4_2_four_of_a_rank_equal_or_higher_than_the_top():
    state = pos(["JS JH JD JC AS", "KD"], pile="9H 10S")
    assert ("JS", "JH", "JD", "JC") in plays(state)
    after = state.apply(Play(("JS", "JH", "JD", "JC")))
    assert after.pile[-4:] == ("JS", "JH", "JD", "JC")


def test_s4_2_four_lower_than_the_top_is_refused():
    state = pos(["JS JH JD JC", "KD"], pile="9H QS")
    assert plays(state) == set()
    with pytest.raises(IllegalMove, match=r"four Js cannot go on a Q.*RULES §4.2"):
        state.apply(Play(("JS", "JH", "JD", "JC")))


def test_s4_several_cards_one_canonical_order_without_spades_but_any_order_applies():
    """Only the top matters; without spades_back one order is listed, any is accepted."""
    state = pos(["JS JH JD JC AS", "KD"], pile="9H 10S")
    assert [c for c in plays(state) if len(c) == 4] == [("JS", "JH", "JD", "JC")]
    after = state.apply(Play(("JC", "JS", "JD", "JH")))
    assert after.top == "JH"
    assert after.pile == ("9H", "10S", "JC", "JS", "JD", "JH")


def test_s4_several_cards_one_move_per_top_with_spades_back():
    state = pos(["JS JH JD JC", "KD"], pile="9H 10S", rules=Rules(spades_back=True))
    tops = sorted(c[-1] for c in plays(state) if len(c) == 4)
    assert tops == ["JC", "JD", "JH", "JS"]


# -- §4.3 three cards -----------------------------------------------------------------


def test_s4_3_nines_three_nines_on_the_lone_base_card():
    state = pos(["9S 9D 9C JH", "KD"], pile="9H")
    assert ("9S", "9D", "9C") in plays(state)
    after = state.apply(Play(("9S", "9D", "9C")))
    assert after.pile == ("9H", "9S", "9D", "9C")


def test_s4_3_nines_no_three_once_the_pile_holds_more_than_the_base_card():
    state = pos(["JS JD JC AH", "KD"], pile="9H 10S")
    assert all(len(c) == 1 for c in plays(state))
    with pytest.raises(IllegalMove, match=r"three_cards=nines, RULES §4.3"):
        state.apply(Play(("JS", "JD", "JC")))


def test_s4_3_match_three_of_the_top_rank():
    rules = Rules(three_cards="match")
    state = pos(["JH JD JC 9S", "KD"], pile="9H JS", rules=rules)
    assert ("JH", "JD", "JC") in plays(state)
    assert state.apply(Play(("JH", "JD", "JC"))).top == "JC"


def test_s4_3_match_includes_the_nines_case():
    state = pos(["9S 9D 9C", "KD"], pile="9H", rules=Rules(three_cards="match"))
    assert ("9S", "9D", "9C") in plays(state)


def test_s4_3_match_refuses_three_of_another_rank():
    state = pos(["JH JD JC", "KD"], pile="9H 10S", rules=Rules(three_cards="match"))
    assert all(len(c) == 1 for c in plays(state))
    with pytest.raises(IllegalMove, match=r"top card's rank \(three_cards=match"):
        state.apply(Play(("JH", "JD", "JC")))


def test_s4_3_any_three_equal_or_higher_than_the_top():
    rules = Rules(three_cards="any")
    state = pos(["JH JD JC", "KD"], pile="9H 10S", rules=rules)
    assert ("JH", "JD", "JC") in plays(state)
    low = pos(["JH JD JC", "KD"], pile="9H QS", rules=rules)
    with pytest.raises(IllegalMove, match=r"three Js cannot go on a Q.*three_cards=any"):
        low.apply(Play(("JH", "JD", "JC")))


def test_s4_3_any_with_four_held_offers_each_three_and_the_four():
    state = pos(["JS JH JD JC", "KD"], pile="9H 10S", rules=Rules(three_cards="any"))
    sets = sorted(c for c in plays(state) if len(c) > 1)
    assert sets == sorted(
        [
            ("JH", "JD", "JC"),
            ("JS", "JD", "JC"),
            ("JS", "JH", "JC"),
            ("JS", "JH", "JD"),
            ("JS", "JH", "JD", "JC"),
        ]
    )


# -- §4.4 pick-ups -----------------------------------------------------------------


def test_s4_4_pickup_three_takes_the_top_three():
    state = pos(["9S", "KD"], pile="9H 10S JS QS KS")
    assert pickups(state) == [3]
    after = state.apply(PickUp(3))
    assert after.pile == ("9H", "10S")
    assert after.hand(0) == ("9S", "JS", "QS", "KS")
    assert after.history[-1].cards == ("JS", "QS", "KS")


def test_s4_4_pickup_on_9h_and_as_takes_only_as():
    """Seed 000: on 9♥ and A♠ he takes only A♠."""
    state = pos(["9C 10C", "KD"], pile="9H AS")
    assert state.legal_moves() == (PickUp(1),)
    after = state.apply(PickUp(1))
    assert after.pile == ("9H",)
    assert "AS" in after.hand(0)
    with pytest.raises(IllegalMove, match=r"takes all 1 \(RULES §4.4\)"):
        state.apply(PickUp(3))


def test_s4_4_picking_up_is_impossible_on_the_lone_base_card():
    state = pos(["9C 10C", "KD"], pile="9H")
    assert pickups(state) == []
    with pytest.raises(IllegalMove, match=r"only the base card \(RULES §4.4\)"):
        state.apply(PickUp(1))


def test_s4_4_pickup_three_or_more():
    rules = Rules(pickup="three_or_more")
    assert pickups(pos(["9S", "KD"], pile="9H 10S JS QS KS AS AH", rules=rules)) == [3, 4, 5, 6]
    assert pickups(pos(["9S", "KD"], pile="9H 10S JS", rules=rules)) == [2]
    assert pickups(pos(["9S", "KD"], pile="9H 10S JS QS", rules=rules)) == [3]
    after = pos(["9S", "KD"], pile="9H 10S JS QS KS AS AH", rules=rules).apply(PickUp(5))
    assert after.pile == ("9H", "10S")


def test_s4_4_pickup_three_or_all():
    rules = Rules(pickup="three_or_all")
    state = pos(["9S", "KD"], pile="9H 10S JS QS KS AS AH", rules=rules)
    assert pickups(state) == [3, 6]
    with pytest.raises(IllegalMove, match="pickup=three_or_all"):
        state.apply(PickUp(4))
    assert state.apply(PickUp(6)).pile == ("9H",)


def test_s4_4_pickup_three_refuses_other_counts():
    state = pos(["9S", "KD"], pile="9H 10S JS QS KS")
    with pytest.raises(IllegalMove, match="pickup=three"):
        state.apply(PickUp(4))


def test_s4_4_voluntary_pickup_on_allows_picking_up_while_able_to_play():
    state = pos(["AS", "KD"], pile="9H 10S")
    assert state.legal_moves() == (Play("AS"), PickUp(1))
    assert state.apply(PickUp(1)).hand(0) == ("10S", "AS")


def test_s4_4_voluntary_pickup_off_allows_picking_up_only_without_a_play():
    rules = Rules(voluntary_pickup=False)
    state = pos(["AS", "KD"], pile="9H 10S", rules=rules)
    assert state.legal_moves() == (Play("AS"),)
    with pytest.raises(IllegalMove) as info:
        state.apply(PickUp(1))
    assert "picking up is only allowed when you cannot play (voluntary_pickup is off" in str(
        info.value
    )
    stuck = pos(["9S", "KD"], pile="9H 10S JS", rules=rules)
    assert stuck.legal_moves() == (PickUp(2),)


def test_s4_4_the_base_card_is_never_picked_up():
    state = pos(["9S", "KD"], pile="9H 10S JS", rules=Rules(pickup="three_or_all"))
    assert state.apply(PickUp(2)).pile == ("9H",)
    with pytest.raises(IllegalMove):
        state.apply(PickUp(3))


# -- §4 turn passing -------------------------------------------------------------


def test_s4_turn_passes_clockwise_to_the_next_player_holding_cards():
    state = pos(["AS KS", "", "AD KD", "AH KH"], pile="9H 10S", to_move=0)
    assert state.apply(Play("KS")).to_move == 2
    state = pos(["AS KS", "QS", "AD KD", "AH KH"], pile="9H 10S", to_move=3)
    assert state.apply(PickUp(1)).to_move == 0


# -- §5 spades back ----------------------------------------------------------------

SPADES = Rules(spades_back=True)


def test_s5_spade_played_sends_the_turn_back():
    state = pos(["AC", "10S 10H JD", "AD", "AH"], pile="9H", to_move=1, rules=SPADES)
    assert state.apply(Play("10S")).to_move == 0
    assert state.apply(Play("10H")).to_move == 2


def test_s5_spade_uncovered_by_a_pickup_sends_the_turn_back():
    state = pos(["AC", "9S", "9C", "10H"], pile="9H JS QH KH AD", to_move=2, rules=SPADES)
    after = state.apply(PickUp(3))
    assert after.top == "JS"
    assert after.to_move == 1


def test_s5_uncovering_the_base_card_is_not_a_spade():
    state = pos(["AC", "9S", "9C", "10H"], pile="9H JS", to_move=2, rules=SPADES)
    assert state.apply(PickUp(1)).to_move == 3


def test_s5_with_two_players_holding_cards_the_same_player_moves_again():
    state = pos(["AC QS", "", "AD KD"], pile="9H 10H", to_move=0, rules=SPADES)
    after = state.apply(Play("QS"))
    assert after.to_move == 0
    two = pos(["AC QS", "AD KD"], pile="9H 10H", to_move=0, rules=SPADES)
    assert two.apply(Play("QS")).to_move == 0
    picked = pos(["AC", "AD KD"], pile="9H 10S QH KH AH", to_move=0, rules=SPADES)
    assert picked.apply(PickUp(3)).to_move == 0


def test_s5_going_back_skips_players_who_are_out():
    state = pos(["AC", "", "QS KD", "AH"], pile="9H 10H", to_move=2, rules=SPADES)
    assert state.apply(Play("QS")).to_move == 0


def test_s5_is_not_a_lasting_change_of_direction():
    state = pos(["JC QC", "10S 10H KD", "AD", "AH"], pile="9H", to_move=1, rules=SPADES)
    state = state.apply(Play("10S"))
    assert state.to_move == 0
    state = state.apply(Play("JC"))
    assert state.to_move == 1


def test_s5_a_player_going_out_on_a_spade_sends_the_turn_back():
    state = pos(["AC", "KD", "QS", "AH"], pile="9H 10H", to_move=2, rules=SPADES)
    assert state.apply(Play("QS")).to_move == 1
    state = pos(["AC", "", "QS", "AH"], pile="9H 10H", to_move=2, rules=SPADES)
    assert state.apply(Play("QS")).to_move == 0


def test_s5_spades_off_a_spade_changes_nothing():
    state = pos(["AC", "10S 10H JD", "AD", "AH"], pile="9H", to_move=1)
    assert state.apply(Play("10S")).to_move == 2


# -- §1 jokers ------------------------------------------------------------------------

JOKERS = Rules(jokers=2)


def test_s1_joker_is_played_alone_on_any_top_card():
    state = pos(["X1 9S", "KS AH"], pile="9H AS", rules=JOKERS)
    assert plays(state) == {("X1",)}
    after = state.apply(Play("X1"))
    assert after.top == "X1"
    assert after.top_rank == "A"


def test_s1_joker_takes_the_rank_of_the_card_it_covers():
    state = pos(["KS AH", "9S 10H QC"], pile="9H 10S X1", to_move=1, rules=JOKERS)
    assert plays(state) == {("10H",), ("QC",)}
    with pytest.raises(IllegalMove, match="the joker on top counts as the 10"):
        state.apply(Play("9S"))


def test_s1_joker_on_a_joker_keeps_the_covered_rank():
    state = pos(["X2 KS", "JD"], pile="9H QS X1", rules=JOKERS)
    after = state.apply(Play("X2"))
    assert after.top_rank == "Q"
    assert after.legal_moves() == (PickUp(3),)


def test_s1_joker_uncovered_by_a_pickup_has_the_rank_below_it():
    state = pos(["9D", "JD"], pile="9H KS X1 AS AH AD", rules=JOKERS)
    after = state.apply(PickUp(3))
    assert after.top == "X1" and after.top_rank == "K"


def test_s1_joker_is_not_a_spade():
    state = pos(
        ["AC", "X1 JD", "AD", "AH"],
        pile="9H 10S",
        to_move=1,
        rules=Rules(jokers=2, spades_back=True),
    )
    assert state.apply(Play("X1")).to_move == 2


def test_s1_joker_never_forms_part_of_a_set():
    rules = Rules(jokers=2, three_cards="any")
    state = pos(["JS JH JD X1", "KD"], pile="9H 10S", rules=rules)
    assert all("X1" not in c or len(c) == 1 for c in plays(state))
    with pytest.raises(IllegalMove, match=r"joker is played alone.*RULES §1"):
        state.apply(Play(("JS", "JH", "X1")))
    with pytest.raises(IllegalMove, match="joker is played alone"):
        state.apply(Play(("JS", "JH", "JD", "X1")))


def test_s1_joker_cannot_open():
    state = pos(["9H X1", "KD"], pile="", rules=JOKERS)
    assert state.legal_moves() == (Play("9H"),)
    with pytest.raises(IllegalMove, match="RULES §3"):
        state.apply(Play("X1"))


def test_s1_jokers_not_in_a_deck_without_them():
    with pytest.raises(ValueError, match="X1 is not a card of this table's deck"):
        pos(["X1", "KD"], pile="9H")


# -- §1 the 52-card deck ------------------------------------------------------------

DECK52 = Rules(deck=52)


def test_s1_deck52_opens_with_2h_and_ranks_2_to_ace():
    state = pos(["2H 2S 5C", "KD"], pile="", rules=DECK52)
    assert state.legal_moves() == (Play("2H"),)
    assert state.apply(Play("2H")).pile == ("2H",)
    after = pos(["3S 2S AC", "KD"], pile="2H 2D", rules=DECK52)
    assert plays(after) == {("2S",), ("3S",), ("AC",)}
    with pytest.raises(IllegalMove, match="a 2 cannot go on a 3"):
        pos(["2S", "KD"], pile="2H 3D", rules=DECK52).apply(Play("2S"))


def test_s1_deck52_nines_option_means_three_twos_on_the_lone_2h():
    state = pos(["2S 2D 2C", "KD"], pile="2H", rules=DECK52)
    assert ("2S", "2D", "2C") in plays(state)


def test_s1_deck52_deal():
    from games.engine import deal

    state = deal(DECK52, 4, 0, "deck52")
    assert state.hand_counts == (13, 13, 13, 13)
    assert "2H" in state.hand(state.to_move)
