"""Letters and the match (RULES §7), dealer rotation (§2), timeouts (§8)."""

import pytest

from games.engine import LETTERS, MatchState, Outcome

LOSS = {seat: Outcome(seat, False, "last_player") for seat in range(4)}
TIE = Outcome(None, True, "final_play_tie")


def test_s7_letters_are_p_a_n():
    assert LETTERS == ("", "P", "PA", "PAN")


def test_s7_the_loser_gets_his_next_letter():
    match = MatchState.new(3, first_dealer=0)
    match = match.after_hand(LOSS[1])
    assert match.letters == (0, 1, 0)
    assert match.letters_text(1) == "P"
    match = match.after_hand(LOSS[2]).after_hand(LOSS[1])
    assert [match.letters_text(s) for s in range(3)] == ["", "PA", "P"]
    assert match.hands_played == 3


def test_s7_a_tie_gives_no_letter():
    match = MatchState.new(2, first_dealer=1).after_hand(TIE)
    assert match.letters == (0, 0)
    assert match.hands_played == 1


def test_s8_a_timeout_counts_like_a_loss():
    match = MatchState.new(2, first_dealer=0).after_hand(Outcome(0, False, "timeout"))
    assert match.letters == (1, 0)


def test_s2_the_dealer_moves_one_seat_clockwise_after_each_hand():
    match = MatchState.new(3, first_dealer=1)
    dealers = []
    for _ in range(4):
        match = match.after_hand(TIE)
        dealers.append(match.dealer)
    assert dealers == [2, 0, 1, 2]


def test_s7_the_match_ends_at_pan():
    match = MatchState.new(3, first_dealer=0)
    for _ in range(2):
        match = match.after_hand(LOSS[0])
    assert not match.is_over
    match = match.after_hand(LOSS[0])
    assert match.is_over
    assert match.pan_seat == 0
    assert match.letters_text(0) == "PAN"
    with pytest.raises(ValueError, match="over"):
        match.after_hand(LOSS[1])


def test_s7_ranking_by_fewer_letters_equal_letters_share_a_place():
    match = MatchState(players=4, dealer=0, letters=(3, 1, 0, 1))
    assert match.ranking() == [(1, 2), (2, 1), (2, 3), (4, 0)]
    match = MatchState(players=3, dealer=0, letters=(2, 3, 2))
    assert match.ranking() == [(1, 0), (1, 2), (3, 1)]


def test_match_json_round_trip_and_validation():
    match = MatchState(players=4, dealer=3, letters=(0, 2, 1, 0), hands_played=5)
    assert MatchState.from_json(match.to_json()) == match
    with pytest.raises(ValueError):
        MatchState(players=2, dealer=0, letters=(3, 3))
    with pytest.raises(ValueError):
        MatchState(players=5, dealer=0, letters=(0,) * 5)
    with pytest.raises(ValueError):
        MatchState(players=2, dealer=2, letters=(0, 0))
    with pytest.raises(ValueError):
        MatchState.from_json({"players": 2})
