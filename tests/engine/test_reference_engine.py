"""The benchmark's reference engine (``bench.reference_engine``) plays the engine's rules.

``make bench-engine`` prints the engine's speed beside the reference's; the
comparison holds only if both play the same hands: the same deals, the same
legal moves in the same order (so a generator seeded alike picks the same
move), the same endings.
"""

from __future__ import annotations

import random

import pytest

from bench import reference_engine as reference
from games.engine import HandState, Rules, deal, move_to_json
from games.engine.shuffle import shuffled_deck


def engine_moves(state: HandState) -> list[tuple]:
    return [tuple(move_to_json(m).values()) for m in state.legal_moves()]


def reference_moves(hand: reference.ReferenceHand) -> list[tuple]:
    """The reference's moves in the engine's JSON form (as tuples)."""
    found: list[tuple] = []
    for move in hand.legal_moves():
        if move[0] == reference.PICKUP:
            found.append(("pickup", move[1]))
        else:
            found.append(("play", [reference.CODES[c] for c in move]))
    return found


def hashable(moves: list[tuple]) -> set[tuple]:
    return {(kind, tuple(arg) if isinstance(arg, list) else arg) for kind, arg in moves}


def reference_of(state: HandState) -> reference.ReferenceHand:
    hands = [[reference.CODES.index(c) for c in state.hand(s)] for s in range(state.players)]
    return reference.ReferenceHand(hands, state.rules.max_actions)


def play_both(state: HandState, rng: random.Random, lowest: float) -> str:
    """Play ``state`` and the reference hand of the same cards to the end, checking at
    every move that both offer the same moves, and at the end that both ended alike;
    the reason it ended. The move taken is the first listed (the lowest play) with
    probability ``lowest``, else any (so that hands end in every way)."""
    hand = reference_of(state)
    while state.outcome is None:
        assert hand.outcome is None
        assert state.to_move == hand.to_move
        by_engine, by_reference = engine_moves(state), reference_moves(hand)
        assert hashable(by_engine) == hashable(by_reference), state.action_count
        assert by_engine == by_reference, "the same moves in the same order (the bench's)"
        index = 0 if rng.random() < lowest else rng.randrange(len(by_engine))
        state = state.apply(state.legal_moves()[index])
        hand.apply(hand.legal_moves()[index])
    assert hand.outcome == (state.outcome.loser, state.outcome.reason.value)
    assert hand.actions == state.action_count
    assert hand.to_move == state.to_move
    assert [reference.CODES[c] for c in hand.pile] == list(state.pile)
    assert [[reference.CODES[c] for c in cards] for cards in hand.hands] == [
        list(state.hand(s)) for s in range(state.players)
    ]
    return hand.outcome[1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_reference_deals_the_engines_hands(players):
    for number in range(20):
        seed, dealer = f"reference-deal:{number}", number % players
        state = deal(Rules(), players, dealer, seed)
        hand = reference.deal(shuffled_deck(seed, list(reference.CODES)), players, dealer)
        assert [[reference.CODES[c] for c in cards] for cards in hand.hands] == [
            list(state.hand(s)) for s in range(players)
        ]
        assert hand.to_move == state.to_move


@pytest.mark.parametrize(
    ("players", "hands", "lowest", "max_actions"),
    [(4, 100, 0.0, 500), (4, 100, 0.5, 500), (3, 50, 0.5, 200), (2, 50, 0.5, 200)],
)
def test_both_engines_agree_on_whole_hands(players, hands, lowest, max_actions):
    rules = Rules(max_actions=max_actions)
    endings = set()
    for number in range(hands):
        state = deal(rules, players, number % players, f"reference:{players}:{number}")
        endings.add(play_both(state, random.Random(number), lowest))
    assert "max_actions" in endings
    if lowest:
        assert "last_player" in endings


def test_both_engines_agree_on_short_hands_ending_every_way():
    # A few cards a seat (the rest not in play): hands end soon, often in a tie.
    endings = []
    for number in range(300):
        rng = random.Random(number)
        players = 2 + number % 3
        cards = [c for c in reference.CODES if c != "9H"]
        rng.shuffle(cards)
        hands = [cards[3 * s : 3 * s + rng.randint(1, 3)] for s in range(players)]
        hands[number % players].append("9H")
        state = HandState.from_position(
            rules=Rules(max_actions=50), hands=hands, to_move=number % players
        )
        endings.append(play_both(state, rng, 0.3))
    assert {"last_player", "final_play_tie", "max_actions"} == set(endings)


def test_the_same_seeded_choices_play_the_same_hands():
    rules = Rules()
    for number in range(10):
        seed, dealer = f"bench:{number}", number % 4
        state = deal(rules, 4, dealer, seed)
        hand = reference.deal(shuffled_deck(seed, list(reference.CODES)), 4, dealer)
        engine_rng, reference_rng = random.Random(number), random.Random(number)
        while state.outcome is None:
            state = state.apply(engine_rng.choice(state.legal_moves()))
            hand.apply(reference_rng.choice(hand.legal_moves()))
        assert hand.outcome == (state.outcome.loser, state.outcome.reason.value)
        assert hand.actions == state.action_count
        assert [reference.CODES[c] for c in hand.pile] == list(state.pile)
