"""The rules of Pan as pure Python: no Django, no I/O, no clock reads, no global randomness.

Start with :func:`deal` (or :meth:`HandState.from_position`), list moves with
``state.legal_moves()``, and ``state.apply(move)`` returns the next state.
"""

from games.engine.cards import card_code, card_label, card_rank_label, is_spade, parse_card
from games.engine.clock import Clock
from games.engine.hand import HandState, deal, replay
from games.engine.match import LETTERS, MatchState
from games.engine.moves import (
    Illegal,
    IllegalMove,
    Malformed,
    MalformedMove,
    Move,
    PickUp,
    Play,
    Timeout,
    move_from_json,
    move_to_json,
)
from games.engine.places import Place, hand_places
from games.engine.records import REASONS, HistoryEntry, Outcome, Reason
from games.engine.rules import PROFILES, Profile, Rules, profile_for
from games.engine.shuffle import seed_commitment, shuffled_deck, verify_commitment

__all__ = [
    "LETTERS",
    "PROFILES",
    "REASONS",
    "Clock",
    "HandState",
    "HistoryEntry",
    "Illegal",
    "IllegalMove",
    "Malformed",
    "MalformedMove",
    "MatchState",
    "Move",
    "Outcome",
    "PickUp",
    "Place",
    "Play",
    "Profile",
    "Reason",
    "Rules",
    "Timeout",
    "card_code",
    "card_label",
    "card_rank_label",
    "deal",
    "hand_places",
    "is_spade",
    "move_from_json",
    "move_to_json",
    "parse_card",
    "profile_for",
    "replay",
    "seed_commitment",
    "shuffled_deck",
    "verify_commitment",
]
