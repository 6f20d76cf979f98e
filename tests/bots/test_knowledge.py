"""What a seat knows about hidden cards, and deals consistent with it."""

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots.knowledge import Knowledge
from games.engine import PickUp, Play, Rules, deal
from tests.engine.positions import hands_played, play_to, pos


def test_cards_seen_picked_up_are_known_until_played():
    state = pos(["AS KS", "9S 9D", "JS QD"], pile="9H 10S QS AH", to_move=1)
    state = state.apply(PickUp(3))  # seat 1 takes 10S QS AH in front of everyone
    knowledge = Knowledge.from_view(state.view_for(2))
    assert set(knowledge.known[1]) == {"10S", "QS", "AH"}
    assert knowledge.hand_slots == (2, 2, 0)
    assert set(knowledge.unknown) >= {"AS", "KS", "9S", "9D"}
    state = state.apply(Play("JS")).apply(Play("KS")).apply(Play("AH"))
    knowledge = Knowledge.from_view(state.view_for(2))
    assert set(knowledge.known[1]) == {"10S", "QS"}
    assert "AH" not in knowledge.unknown  # it lies on the pile now


def test_a_seats_own_cards_and_the_pile_are_never_unknown():
    state = deal(Rules(), 4, 0, "own")
    state = play_to(state, [0] * 7)
    seat = state.to_move
    knowledge = Knowledge.from_view(state.view_for(seat))
    assert knowledge.known[seat] == state.hand(seat)
    assert not set(knowledge.unknown) & (set(state.hand(seat)) | set(state.pile))


def test_before_the_opening_the_base_card_is_with_the_player_to_move():
    state = deal(Rules(), 4, 0, "opening")
    watcher = (state.to_move + 1) % 4
    knowledge = Knowledge.from_view(state.view_for(watcher))
    assert "9H" in knowledge.known[state.to_move]
    assert "9H" not in knowledge.unknown
    for k in range(20):
        hands, _ = knowledge.sample(random.Random(k))
        assert "9H" in hands[state.to_move]


def test_unrevealed_betons_are_unknown_even_to_their_owner():
    state = deal(Rules(beton=3), 4, 0, "beton")
    seat = state.to_move
    knowledge = Knowledge.from_view(state.view_for(seat))
    assert knowledge.beton_slots == (3, 3, 3, 3)
    assert set(state.beton(seat)) <= set(knowledge.unknown)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=hands_played(max_moves=80), sample_seed=st.integers(0, 10_000))
def test_every_determinisation_is_a_state_the_seat_could_be_in(state, sample_seed):
    if state.outcome is not None:
        return
    seat, players = state.to_move, state.players
    view = state.view_for(seat)
    knowledge = Knowledge.from_view(view)
    guess = knowledge.determinise(random.Random(sample_seed))
    # Everything the seat sees is the same, apart from the history left out.
    assert {**guess.view_for(seat), "history": view["history"]} == view
    assert guess.legal_moves() == state.legal_moves()
    for s in range(players):
        assert set(knowledge.known[s]) <= set(guess.hand(s))
    # And the real state is one of the possible deals.
    hidden = Counter(c for s in range(players) for c in state.hand(s) if s != seat)
    hidden.update(c for s in range(players) for c in state.beton(s))
    known = Counter(c for s in range(players) if s != seat for c in knowledge.known[s])
    assert hidden - known == Counter(knowledge.unknown)


def test_unknown_cards_are_dealt_uniformly():
    state = deal(Rules(), 3, 0, "uniform")
    seat = state.to_move
    others = [s for s in range(3) if s != seat]
    knowledge = Knowledge.from_view(state.view_for(seat))
    rng = random.Random(5)
    where = Counter()
    draws = 3000
    for _ in range(draws):
        hands, _ = knowledge.sample(rng)
        for s in others:
            for code in hands[s]:
                where[code, s] += 1
    # Sixteen unknown cards, eight places in each of two hands: every card is
    # in each hand half the time.
    assert len(knowledge.unknown) == 16
    for code in knowledge.unknown:
        for s in others:
            assert abs(where[code, s] / draws - 0.5) < 0.05, (code, s)
