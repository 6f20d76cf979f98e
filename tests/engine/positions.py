"""Positions for engine and bot tests, written as space-separated card strings."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from games.engine import HandState, Rules, deal


def any_rules(*, max_actions: int) -> st.SearchStrategy[Rules]:
    """Every combination of the options of RULES.md, with an action limit of 10 to
    ``max_actions`` (short hands keep the property tests fast)."""
    return st.builds(
        Rules,
        deck=st.sampled_from([24, 52]),
        jokers=st.sampled_from([0, 2]),
        beton=st.sampled_from([0, 2, 3]),
        three_cards=st.sampled_from(["nines", "match", "any"]),
        pickup=st.sampled_from(["three", "three_or_more", "three_or_all"]),
        voluntary_pickup=st.booleans(),
        spades_back=st.booleans(),
        tie_rule=st.sampled_from(["any_final_play", "aces_only"]),
        max_actions=st.integers(10, max_actions),
        max_actions_result=st.sampled_from(["tie", "most_cards"]),
    )


def pos(
    hands: list[str],
    pile: str = "9H",
    to_move: int = 0,
    rules: Rules | None = None,
    betons: list[str] | None = None,
    **kw: Any,
) -> HandState:
    """A position from space-separated card strings ("" = a seat that is out)."""
    return HandState.from_position(
        rules=rules or Rules(),
        hands=[h.split() for h in hands],
        betons=None if betons is None else [b.split() for b in betons],
        pile=pile.split(),
        to_move=to_move,
        **kw,
    )


def play_to(state: HandState, choices: list[int]) -> HandState:
    """Apply legal moves picked by ``choices`` (indices modulo the number of moves)."""
    for choice in choices:
        if state.outcome is not None:
            break
        legal = state.legal_moves()
        state = state.apply(legal[choice % len(legal)])
    return state


@st.composite
def hands_played(draw: st.DrawFn, *, max_moves: int, max_actions: int = 120) -> HandState:
    """A hand under any rules, of 2 to 4 players, dealt from any seed and played up to
    ``max_moves`` legal moves in (it may be over by then)."""
    state = deal(
        draw(any_rules(max_actions=max_actions)),
        draw(st.integers(2, 4)),
        0,
        draw(st.text(min_size=1, max_size=12)),
    )
    return play_to(state, draw(st.lists(st.integers(0, 50), max_size=max_moves)))
