"""The contract the site relies on: ``choose_move(level, view, *, seed, ...)``."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import LEVELS, choose_move
from games.engine import HandState, Rules, deal, move_from_json
from tests.engine.positions import hands_played, play_to

ROOT = Path(__file__).resolve().parents[2]


def position(seed: str, moves: int, rules: Rules | None = None, players: int = 4) -> HandState:
    state = deal(rules or Rules(), players, 0, seed)
    return play_to(state, [(i * 7 + len(seed)) % 5 for i in range(moves)])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=hands_played(max_moves=80), bot_seed=st.text(max_size=8))
def test_every_level_returns_a_legal_move_from_any_position(state, bot_seed):
    if state.outcome is not None:
        return
    view = json.loads(json.dumps(state.view_for(state.to_move)))
    for level in LEVELS:
        move = choose_move(level, view, seed=bot_seed, playouts=8)
        assert move in view["legal_moves"], (level, move)
        state.apply(move_from_json(move))  # the engine accepts it too


def test_a_whole_hand_of_bots_reaches_its_end():
    rules = Rules(max_actions=200)
    state = deal(rules, 4, 1, "whole-hand")
    levels = ["ismcts", "greedy", "random", "greedy"]
    while state.outcome is None:
        view = state.view_for(state.to_move)
        move = choose_move(levels[state.to_move], view, seed=str(state.action_count), playouts=10)
        state = state.apply(move_from_json(move))
    assert state.outcome is not None


def test_unknown_level_is_refused():
    view = deal(Rules(), 4, 0, "x").view_for(0)
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_move("grandmaster", view, seed="s")


def test_a_view_without_legal_moves_is_refused():
    state = deal(Rules(), 4, 0, "x")
    other = (state.to_move + 1) % 4
    for level in LEVELS:
        with pytest.raises(ValueError, match="not this seat's turn"):
            choose_move(level, state.view_for(other), seed="s")


@pytest.mark.parametrize("level", LEVELS)
def test_same_view_seed_and_playouts_give_the_same_move(level):
    for k in range(6):
        state = position(f"det{k}", 9 + k * 5)
        if state.outcome is not None:
            continue
        view = state.view_for(state.to_move)
        first = choose_move(level, view, seed="same", playouts=40)
        for _ in range(2):
            again = choose_move(level, json.loads(json.dumps(view)), seed="same", playouts=40)
            assert again == first


def test_the_move_does_not_depend_on_the_interpreters_hash_seed():
    # Set iteration order of strings changes with PYTHONHASHSEED; the bots must not.
    script = textwrap.dedent(
        """
        import json
        from games.bots import LEVELS, choose_move
        from tests.bots.test_api import position
        out = []
        for k in range(5):
            s = position(f"hash{k}", 6 + 4 * k)
            v = s.view_for(s.to_move)
            out.append([choose_move(level, v, seed="h", playouts=60) for level in LEVELS])
        print(json.dumps(out))
        """
    )
    results = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        results.add(done.stdout)
    assert len(results) == 1


def test_a_time_budget_bounds_the_search_and_still_gives_a_legal_move():
    state = position("budget", 5)
    view = state.view_for(state.to_move)
    move = choose_move("ismcts", view, seed="t", budget_ms=30)
    assert move in view["legal_moves"]


def test_the_returned_move_is_a_new_dict():
    state = position("fresh", 4)
    view = state.view_for(state.to_move)
    for level in LEVELS:
        move = choose_move(level, view, seed="f", playouts=5)
        assert all(move is not m for m in view["legal_moves"])


def with_hidden_cards_shuffled(state: HandState, seat: int, rng_seed: int) -> HandState | None:
    """The same position with the cards ``seat`` cannot see dealt differently, or None.

    Hidden: the other seats' cards that no history entry showed, and every
    beton card (``seat``'s own included). Each hand and beton keeps its size.
    """
    import random

    shown = set(state.hand(seat)) | set(state.pile)
    for entry in state.history:
        shown.update(entry.cards)
    slots = []  # (kind, seat) per hidden card, in a fixed order
    hidden = []
    for s in range(state.players):
        for code in state.hand(s):
            if s != seat and code not in shown:
                slots.append(("hand", s))
                hidden.append(code)
        for code in state.beton(s):
            slots.append(("beton", s))
            hidden.append(code)
    if len(set(slots)) < 2:
        return None
    shuffled = hidden[:]
    random.Random(rng_seed).shuffle(shuffled)
    if [slots[i] for i in range(len(hidden))] == [slots[hidden.index(c)] for c in shuffled]:
        return None  # the shuffle moved no card to another place
    hands = [[c for c in state.hand(s) if s == seat or c in shown] for s in range(state.players)]
    betons: list[list[str]] = [[] for _ in range(state.players)]
    for (kind, s), code in zip(slots, shuffled, strict=True):
        (hands if kind == "hand" else betons)[s].append(code)
    return HandState.from_position(
        rules=state.rules,
        hands=hands,
        betons=betons,
        pile=state.pile,
        to_move=state.to_move,
        action_count=state.action_count,
        history=state.history,
        dealer=state.dealer,
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=hands_played(max_moves=60), shuffle_seed=st.integers(0, 1000))
def test_bots_cannot_cheat_the_move_depends_only_on_the_view(state, shuffle_seed):
    if state.outcome is not None:
        return
    seat = state.to_move
    other = with_hidden_cards_shuffled(state, seat, shuffle_seed)
    if other is None:
        return
    assert other != state  # the hidden cards really lie elsewhere ...
    view = state.view_for(seat)
    assert other.view_for(seat) == view  # ... and the seat cannot tell
    for level in LEVELS:
        mine = choose_move(level, view, seed="fair", playouts=20)
        theirs = choose_move(level, other.view_for(seat), seed="fair", playouts=20)
        assert mine == theirs, level


def test_cheating_would_show_a_shuffle_of_hidden_cards_changes_the_deal_not_the_view():
    # The helper above must really produce different deals, or the test above proves nothing.
    changed = 0
    for k in range(30):
        state = position(f"cheat{k}", 8 + k)
        if state.outcome is not None:
            continue
        other = with_hidden_cards_shuffled(state, state.to_move, k)
        if other is not None:
            assert other.view_for(state.to_move) == state.view_for(state.to_move)
            assert [other.hand(s) for s in range(4)] != [state.hand(s) for s in range(4)]
            changed += 1
    assert changed >= 20
