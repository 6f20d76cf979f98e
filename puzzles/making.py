"""Puzzles from bot hands, without the web: what ``manage.py make_puzzles``, the bench and
the tests share. Pure, like the engine and the bots: a hand's number and seed fix it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.bots import choose_move
from games.engine import HandState, Rules, deal, move_from_json
from puzzles.finder import Finding, find_puzzle

__all__ = ["LEVELS", "BotHand", "find_in_bot_hand", "findings_in_bot_hand", "play_bot_hand"]

# The strong bot at one seat, at a small budget so that a hand takes a second; the
# greedy bot's plain mistakes at the others are what most puzzles are cut from.
LEVELS = ("ismcts", "greedy", "greedy", "greedy")
STRONG_PLAYOUTS = 60


@dataclass(frozen=True)
class BotHand:
    start: HandState
    moves: tuple[dict[str, Any], ...]
    loser: int | None


def play_bot_hand(number: int, *, seed: str, levels: Sequence[str] = LEVELS) -> BotHand:
    """Hand ``number`` of bots of ``levels`` (one a seat, default rules), the seats'
    levels and the dealer turning with the number."""
    players = len(levels)
    start = deal(Rules(), players, number % players, f"{seed}:{number}")
    state, moves = start, []
    while state.outcome is None:
        level = levels[(state.to_move + number) % players]
        move = choose_move(
            level,
            state.view_for(state.to_move),
            seed=f"{seed}:{number}:{state.action_count}",
            playouts=STRONG_PLAYOUTS if level == "ismcts" else None,
        )
        moves.append(move)
        state = state.apply(move_from_json(move))
    return BotHand(start, tuple(moves), state.outcome.loser)


def find_in_bot_hand(hand: BotHand, *, seed: str) -> Finding | None:
    """The loser's puzzle of a bot hand (None: a tie, nobody to analyse)."""
    found = findings_in_bot_hand(hand, seed=seed)
    return found[0][1] if found else None


def findings_in_bot_hand(
    hand: BotHand, *, seed: str, every_seat: bool = False
) -> list[tuple[int, Finding]]:
    """``(seat, finding)`` of the loser of a bot hand (none for a tie) and with
    ``every_seat`` of the others after him: their costly moves are puzzles too (a move
    that let the loser off, or nearly took the letter), at an analysis per seat."""
    if hand.loser is None:
        return []
    others = [s for s in range(hand.start.players) if s != hand.loser] if every_seat else []
    found = [(hand.loser, find_puzzle(hand.start, hand.moves, hand.loser, seed=seed))]
    for seat in others:
        found.append((seat, find_puzzle(hand.start, hand.moves, seat, seed=f"{seed}:{seat}")))
    return found
