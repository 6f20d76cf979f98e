"""Property tests over random rules, player counts, seeds and legal move sequences."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    HandState,
    IllegalMove,
    PickUp,
    Play,
    Rules,
    Timeout,
    deal,
    move_to_json,
    replay,
)
from tests.engine.positions import any_rules

rules_strategy = any_rules(max_actions=80)
seeds = st.text(min_size=1, max_size=20)
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(state: HandState, deck: list[str]) -> None:
    rules = state.rules
    base = rules.base_card
    held = [c for s in range(state.players) for c in state.hand(s) + state.beton(s)]
    # Cards are conserved.
    assert sorted(held + list(state.pile)) == sorted(deck)
    # The base card lies at the bottom of the pile from the opening on.
    if state.pile:
        assert state.pile[0] == base
        assert base not in state.pile[1:]
    else:
        assert base in state.hand(state.to_move)
    for seat in range(state.players):
        assert base not in state.beton(seat)
        # A beton is revealed as soon as its owner's hand is empty.
        assert state.hand(seat) or not state.beton(seat)
    assert state.action_count <= rules.max_actions
    if state.outcome is None:
        assert sum(state.holding) >= 2
        assert state.holding[state.to_move]
        assert state.legal_moves()


def check_views(state: HandState) -> None:
    public = set(state.pile)
    for entry in state.history:
        public.update(entry.cards)
    hidden_betons = {c for s in range(state.players) for c in state.beton(s)}
    for seat in range(state.players):
        view = state.view_for(seat)
        text = json.dumps(view)
        others = {c for s in range(state.players) if s != seat for c in state.hand(s)}
        forbidden = (others | hidden_betons) - public
        for code in forbidden:
            assert f'"{code}"' not in text, (seat, code)
        assert view["hand"] == list(state.hand(seat))
    public_text = json.dumps(state.public_view())
    for code in {c for s in range(state.players) for c in state.hand(s)} | hidden_betons:
        if code not in public:
            assert f'"{code}"' not in public_text


@SETTINGS
@given(
    rules=rules_strategy,
    players=st.integers(2, 4),
    dealer=st.integers(0, 3),
    seed=seeds,
    data=st.data(),
)
def test_random_legal_hands_keep_every_invariant(rules, players, dealer, seed, data):
    """Conservation, base card, legal moves apply, views, JSON, replay, the cut-off."""
    dealer %= players
    deck = rules.deck_codes()
    state = deal(rules, players, dealer, seed)
    moves = []
    while state.outcome is None:
        check_invariants(state, deck)
        legal = state.legal_moves()
        for move in legal:  # every listed move applies without error
            state.apply(move)
        if data.draw(st.integers(0, 60)) == 0:
            move = Timeout()
        else:
            move = legal[data.draw(st.integers(0, len(legal) - 1))]
        state = state.apply(move)
        moves.append(move)
        if data.draw(st.integers(0, 3)) == 0:
            state.to_json()  # the history's JSON kept: the length counts from it on
        assert state.history_length == len(state.history)
    check_invariants(state, deck)
    check_views(state)
    assert state.legal_moves() == ()
    # Every hand ends, at the latest by max_actions.
    assert state.action_count <= rules.max_actions
    if state.outcome.reason == "max_actions":
        assert state.action_count == rules.max_actions
    assert HandState.from_json(json.loads(json.dumps(state.to_json()))) == state
    history = state.history
    assert state.history_length == len(history)
    for count in {0, 1, len(history) // 2, len(history) - 1, len(history), len(history) + 3}:
        assert state.history_since(count) == history[count:]
    assert replay(rules, players, dealer, seed, [move_to_json(m) for m in moves]) == state


@SETTINGS
@given(rules=rules_strategy, players=st.integers(2, 4), seed=seeds, data=st.data())
def test_mid_hand_views_json_and_determinisation(rules, players, seed, data):
    deck = rules.deck_codes()
    state = deal(rules, players, 0, seed)
    for _ in range(data.draw(st.integers(0, 60))):
        if state.outcome is not None:
            break
        legal = state.legal_moves()
        state = state.apply(legal[data.draw(st.integers(0, len(legal) - 1))])
    check_invariants(state, deck)
    check_views(state)
    assert HandState.from_json(json.loads(json.dumps(state.to_json()))) == state
    if state.outcome is None:
        seat = state.to_move
        view = json.loads(json.dumps(state.view_for(seat)))
        guess = HandState.from_view(
            view,
            hands=[None if s == seat else list(state.hand(s)) for s in range(players)],
            betons=[list(state.beton(s)) for s in range(players)],
        )
        assert guess.legal_moves() == state.legal_moves()
        assert guess.view_for(seat) == view


@SETTINGS
@given(rules=rules_strategy, players=st.integers(2, 4), seed=seeds, data=st.data())
def test_apply_accepts_exactly_the_listed_moves_in_any_order(rules, players, seed, data):
    """Random plays from the hand and random pick-ups: legal iff listed (up to order)."""
    state = deal(rules, players, 1 % players, seed)
    for _ in range(data.draw(st.integers(0, 40))):
        if state.outcome is not None:
            return
        legal = state.legal_moves()
        listed = {frozenset(m.cards) for m in legal if isinstance(m, Play)}
        counts = {m.count for m in legal if isinstance(m, PickUp)}
        hand = list(state.hand(state.to_move))
        for _ in range(4):
            cards = data.draw(st.permutations(hand))[: data.draw(st.integers(1, 4))]
            ok = frozenset(cards) in listed and (bool(state.pile) or cards[0] == rules.base_card)
            try:
                after = state.apply(Play(tuple(cards)))
            except IllegalMove:
                assert not ok, cards
            else:
                assert ok, cards
                assert after.top == cards[-1]
        count = data.draw(st.integers(1, len(state.pile) + 1))
        try:
            state.apply(PickUp(count))
        except IllegalMove:
            assert count not in counts
        else:
            assert count in counts
        state = state.apply(legal[data.draw(st.integers(0, len(legal) - 1))])


@settings(max_examples=60, deadline=None)
@given(rules=rules_strategy)
def test_every_rules_combination_round_trips_and_deals(rules):
    assert Rules.from_json(json.loads(json.dumps(rules.to_json()))) == rules
    for players in (2, 3, 4):
        state = deal(rules, players, 0, "every-combination")
        assert sum(state.hand_counts) + sum(state.beton_counts) == rules.deck_size
        assert min(state.hand_counts) >= 1
        assert state.legal_moves()
