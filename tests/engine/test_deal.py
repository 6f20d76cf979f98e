"""Shuffling and dealing (RULES §2), the seed commitment and replay."""

import hashlib
import textwrap

import pytest

from games.engine import (
    IllegalMove,
    PickUp,
    Play,
    Rules,
    Timeout,
    deal,
    move_to_json,
    replay,
    seed_commitment,
    shuffled_deck,
    verify_commitment,
)
from games.engine import shuffle as shuffle_module

SEED = "0" * 64


def documented_shuffle(seed, deck):
    """Run the script printed in the shuffle module's docstring, as a reader would."""
    doc = shuffle_module.__doc__
    script = doc[doc.index("reproduces it::") + len("reproduces it::") : doc.index("Commitment")]
    namespace: dict = {}
    exec(textwrap.dedent(script), namespace)
    return namespace["shuffle"](seed, deck)


def test_s2_deal_is_deterministic_for_a_seed():
    """A change of the shuffle algorithm must fail this test (the seeds of old hands)."""
    state = deal(Rules(), 4, 0, SEED)
    assert state.hand(1) == ("9C", "10C", "JS", "JD", "QH", "KD")
    assert state.hand(3) == ("9H", "10H", "QS", "QC", "KH", "KC")
    assert shuffled_deck(SEED, Rules().deck_codes())[:4] == ["KD", "KS", "KH", "AH"]
    assert deal(Rules(), 4, 0, SEED) == state


@pytest.mark.parametrize("seed", ["a", SEED, "pan:42", "zażółć"])
@pytest.mark.parametrize("rules", [Rules(), Rules(deck=52, jokers=2)])
def test_s2_shuffle_is_the_documented_algorithm(seed, rules):
    assert shuffled_deck(seed, rules.deck_codes()) == documented_shuffle(seed, rules.deck_codes())


def test_s2_different_seeds_give_different_deals():
    assert deal(Rules(), 4, 0, "a").hand(0) != deal(Rules(), 4, 0, "b").hand(0)


@pytest.mark.parametrize("bad", ["", None, 7, "x" * 1001])
def test_s2_deal_rejects_bad_seed(bad):
    with pytest.raises(ValueError, match="seed"):
        deal(Rules(), 2, 0, bad)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_s2_all_24_cards_deal_evenly(players):
    state = deal(Rules(), players, 0, SEED)
    assert state.hand_counts == (24 // players,) * players
    cards = [c for seat in range(players) for c in state.hand(seat)]
    assert sorted(cards) == sorted(Rules().deck_codes())


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_s2_dealing_starts_left_of_the_dealer_one_card_at_a_time(dealer):
    deck = shuffled_deck(SEED, Rules().deck_codes())
    state = deal(Rules(), 4, dealer, SEED)
    for k, code in enumerate(deck):
        assert code in state.hand((dealer + 1 + k) % 4)


def test_s2_uneven_deck_gives_extras_to_the_first_dealt():
    state = deal(Rules(deck=52), 3, 1, SEED)
    assert state.hand_counts == (17, 17, 18)  # seat 2 is left of dealer 1
    state = deal(Rules(jokers=2), 4, 3, SEED)  # 26 cards: seats 0 and 1 get 7
    assert state.hand_counts == (7, 7, 6, 6)


def test_s2_beton_is_dealt_first_face_down():
    rules = Rules(beton=3)
    deck = shuffled_deck("pan", rules.deck_codes())
    state = deal(rules, 4, 2, "pan")
    assert state.beton_counts == (3, 3, 3, 3)
    assert state.hand_counts == (3, 3, 3, 3)
    if "9H" not in deck[:12]:
        for k in range(12):
            assert deck[k] in state.beton((2 + 1 + k) % 4)


def _seed_with_base_in_beton(rules, players):
    for i in range(10_000):
        seed = f"beton:{i}"
        deck = shuffled_deck(seed, rules.deck_codes())
        pos = deck.index(rules.base_card)
        if pos < rules.beton * players:
            return seed, deck, pos
    raise AssertionError("no seed found")


@pytest.mark.parametrize(("beton", "players"), [(2, 2), (3, 4), (2, 3)])
def test_s2_base_card_never_dealt_into_a_beton(beton, players):
    """It swaps with the first hand card of the same player (documented in hand.py)."""
    rules = Rules(beton=beton)
    seed, deck, pos = _seed_with_base_in_beton(rules, players)
    dealer = 0
    owner = (dealer + 1 + pos) % players
    swapped = deck[beton * players + pos % players]
    state = deal(rules, players, dealer, seed)
    assert "9H" in state.hand(owner)
    assert swapped in state.beton(owner)
    assert state.to_move == owner
    assert all("9H" not in state.beton(s) for s in range(players))


def test_s3_the_holder_of_the_base_card_opens():
    for i in range(20):
        state = deal(Rules(), 3, i % 3, f"open:{i}")
        assert "9H" in state.hand(state.to_move)
        assert state.pile == ()
        state52 = deal(Rules(deck=52), 4, 0, f"open:{i}")
        assert "2H" in state52.hand(state52.to_move)


def test_deal_rejects_bad_dealer_and_players():
    with pytest.raises(ValueError, match="dealer"):
        deal(Rules(), 3, 3, SEED)
    with pytest.raises(ValueError, match="2 to 4 players"):
        deal(Rules(), 5, 0, SEED)


def test_seed_commitment_is_sha256_of_salt_colon_seed():
    commitment = seed_commitment(SEED, "salt123")
    assert commitment == hashlib.sha256(f"salt123:{SEED}".encode()).hexdigest()
    assert verify_commitment(commitment, SEED, "salt123")
    assert verify_commitment(commitment.upper(), SEED, "salt123")
    assert not verify_commitment(commitment, SEED, "salt124")
    assert not verify_commitment(commitment, "1" * 64, "salt123")
    assert not verify_commitment(commitment, SEED, "salt:123")


def test_seed_commitment_salt_may_not_contain_a_colon():
    """Otherwise salt 'a:b' + seed 'c' and salt 'a' + seed 'b:c' would collide."""
    with pytest.raises(ValueError, match="without ':'"):
        seed_commitment("c", "a:b")


def _random_moves(state, count, pick):
    moves = []
    for i in range(count):
        if state.outcome is not None:
            break
        legal = state.legal_moves()
        move = legal[pick(i) % len(legal)]
        moves.append(move)
        state = state.apply(move)
    return moves, state


def test_replay_rebuilds_the_state_from_seed_and_moves():
    rules = Rules(beton=2, spades_back=True)
    moves, state = _random_moves(deal(rules, 3, 1, SEED), 120, lambda i: i * 7 + 3)
    assert replay(rules, 3, 1, SEED, moves) == state
    assert replay(rules, 3, 1, SEED, [move_to_json(m) for m in moves]) == state


def test_replay_represents_a_timeout():
    rules = Rules()
    moves, state = _random_moves(deal(rules, 4, 0, SEED), 5, lambda i: i)
    after = replay(rules, 4, 0, SEED, [*map(move_to_json, moves), {"type": "timeout"}])
    assert after == state.timeout() == state.apply(Timeout())
    assert after.outcome.reason == "timeout"


def test_replay_names_the_first_illegal_move():
    with pytest.raises(IllegalMove, match=r"move 0 .*RULES §3"):
        replay(Rules(), 4, 0, SEED, [Play("KH")])
    with pytest.raises(IllegalMove, match="move 1"):
        replay(Rules(), 4, 0, SEED, [Play("9H"), PickUp(2)])
