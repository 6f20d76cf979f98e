"""Ranks of cards and moves that are the same in effect."""

from games.bots.features import JOKER_RANK, RANK_OF, distinct_moves, move_info, move_key
from games.engine import PickUp, Play


def test_ranks_follow_the_engine_and_a_joker_ranks_above_the_ace():
    assert RANK_OF["9H"] == 7
    assert RANK_OF["10S"] == 8
    assert RANK_OF["AC"] == 12
    assert RANK_OF["2D"] == 0
    assert RANK_OF["X1"] == RANK_OF["X2"] == JOKER_RANK > RANK_OF["AS"]


def test_move_info_reads_rank_size_and_a_spade_on_top():
    assert move_info(Play("QS"))[1:] == (10, 1, True)
    assert move_info(Play(("KH", "KD", "KC", "KS")))[1:] == (11, 4, True)
    assert move_info(Play(("KS", "KH", "KD", "KC")))[1:] == (11, 4, False)
    assert move_info(PickUp(3))[1:] == (-1, 3, False)


def test_plays_of_one_rank_and_size_are_one_move_unless_spades_send_the_turn_back():
    assert move_key(Play("QH"), False) == move_key(Play("QS"), False)
    assert move_key(Play("QH"), True) != move_key(Play("QS"), True)
    assert move_key(Play("QH"), True) == move_key(Play("QD"), True)
    assert move_key(Play("QH"), False) != move_key(Play("KH"), False)
    assert move_key(Play("QH"), False) != move_key(Play(("QH", "QD", "QC")), False)
    assert move_key(PickUp(3), False) != move_key(PickUp(4), False)
    assert move_key(Play("X1"), False) == move_key(Play("X2"), False)


def test_distinct_moves_keeps_the_first_of_each_kind_in_order():
    legal = [Play("QH"), Play("QS"), Play("KD"), PickUp(3)]
    assert list(distinct_moves(legal, False).values()) == [Play("QH"), Play("KD"), PickUp(3)]
    assert list(distinct_moves(legal, True).values()) == legal
