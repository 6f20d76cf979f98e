"""The places of a finished hand (games.engine.places): the order of going out, the loser
last, the tie rule's shared last places, a clock's or the action limit's end."""

from __future__ import annotations

import random

import pytest

from games.engine import Place, Play, Rules, Timeout, deal, hand_places
from tests.engine.positions import pos


def play_out(state, rng: random.Random):
    """Random legal moves until the hand is over."""
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def test_a_hand_still_in_play_has_no_places():
    with pytest.raises(ValueError):
        hand_places(deal(Rules(), 3, 0, "seed"))


def test_the_last_player_loses_and_the_others_are_placed_as_they_went_out():
    state = pos(["10H", "JH", "9S 9C"], pile="9H", to_move=0)
    state = state.apply(Play(("10H",)))  # seat 0 is out first
    state = state.apply(Play(("JH",)))  # seat 1 is out; the nines cannot go on the jack
    assert state.outcome.loser == 2
    assert hand_places(state) == (Place(1, 1), Place(2, 2), Place(3, 3))


def test_the_tie_rules_final_play_shares_the_last_two_places():
    # Seat 1 goes out with the queen; seat 0, alone, empties his hand with the king: a tie.
    state = pos(["KS", "QH", ""], pile="9H JH", to_move=1)
    state = state.apply(Play(("QH",)))
    assert state.outcome.tie and state.outcome.loser is None
    assert hand_places(state) == (Place(2, 3), Place(2, 3), Place(1, 1))


def test_a_timeout_puts_the_idle_player_last_and_shares_the_places_between():
    state = pos(["10H KH", "JH QH", "9S 9C KS", "AS"], pile="9H", to_move=3)
    state = state.apply(Play(("AS",)))  # seat 3 is out first
    state = state.apply(Timeout())  # seat 0 does not move
    assert state.outcome.loser == 0
    assert hand_places(state) == (Place(4, 4), Place(2, 3), Place(2, 3), Place(1, 1))


def test_an_aborted_hand_places_nobody():
    assert hand_places(deal(Rules(), 4, 0, "seed").abort()) is None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_finished_hand_places_each_seat_once_with_the_loser_last(players):
    rng = random.Random(players)
    rules = Rules(max_actions=200, max_actions_result="most_cards")
    for number in range(40):
        state = play_out(deal(rules, players, number % players, f"hand-{number}"), rng)
        places = hand_places(state)
        assert len(places) == players
        # Shared ranges are consistent: as many seats share a range as it spans.
        for place in set(places):
            assert sum(1 for p in places if p == place) == place.worst - place.best + 1
        covered = sorted(n for p in set(places) for n in range(p.best, p.worst + 1))
        assert covered == list(range(1, players + 1))
        if state.outcome.loser is not None:
            assert places[state.outcome.loser] == Place(players, players)
