"""The stored form of a hand: a state's JSON and its history's JSON.

The site writes a hand's whole state at every move and reads it back, so the
format never changes shape: ``{"format": 1, "rules", "players", "dealer",
"hands", "betons", "pile", "to_move", "action_count", "history", "outcome"}``,
cards as codes, each hand and beton in canonical order, the pile bottom to
top, the history as :meth:`HistoryEntry.to_json` entries oldest first, the
outcome as :meth:`Outcome.to_json` or null.

``HandState.to_json`` and ``HandState.from_json`` are :func:`state_to_json`
and :func:`state_fields` (whose fields the state's checked constructor takes).
This module reads a state through its public interface only.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from games.engine.records import HistoryEntry, Outcome, chain_entries
from games.engine.rules import Rules

if TYPE_CHECKING:
    from games.engine.hand import HandState

__all__ = [
    "STATE_FORMAT",
    "HistoryJson",
    "entry_json",
    "history_json",
    "state_fields",
    "state_to_json",
]

STATE_FORMAT = 1
# The history entries' JSON shared between histories (``entry_json``): the plays (a few
# hundred kinds) stay, and the pick-ups' cards of the hands in play.
ENTRIES_SHARED = 8192
STATE_KEYS = frozenset(
    {
        "format",
        "rules",
        "players",
        "dealer",
        "hands",
        "betons",
        "pile",
        "to_move",
        "action_count",
        "history",
        "outcome",
    }
)

HistoryJson = tuple[tuple | None, list[dict[str, Any]]]
"""A history chain and the JSON of its entries, oldest first."""


def history_json(chain: tuple | None, known: HistoryJson | None) -> HistoryJson:
    """The JSON of ``chain``'s entries, building only the entries ``known`` lacks.

    ``known`` is the JSON of an earlier chain (or None). A chain only grows, a move
    putting a new cell before the one it had, so when ``chain`` extends ``known``'s,
    only the newer cells are turned into JSON: late in a hand a history holds
    hundreds of entries and a move adds one or two. ``known`` is found by identity of
    its cell, which it holds, so it cannot be mistaken for another chain.
    The returned list is ``known``'s entries (the same dicts) and the new ones, each
    the dict every history shares for an equal entry (``entry_json``).
    """
    if known is not None and known[0] is chain:
        return known
    newer, cell = 0, chain
    base: list[dict[str, Any]] = []
    while cell is not None:
        if known is not None and cell is known[0]:
            base = known[1]
            break
        newer += 1
        cell = cell[0]
    built = list(base)
    if newer:
        built.extend(map(entry_json, chain_entries(chain, limit=newer)))
    return chain, built


@functools.lru_cache(maxsize=ENTRIES_SHARED)
def entry_json(entry: HistoryEntry) -> dict[str, Any]:
    """``entry.to_json()``, one dict for every history that holds an equal entry (never
    edit it): a live room keeps the histories of hundreds of hands of hundreds of
    actions each, and most entries repeat (the same seat laying the same card)."""
    return entry.to_json()


def state_to_json(state: HandState) -> dict[str, Any]:
    """The whole state (secret cards included) as a JSON-ready dict."""
    seats = range(state.players)
    outcome = state.outcome
    return {
        "format": STATE_FORMAT,
        "rules": state.rules.to_json(),
        "players": state.players,
        "dealer": state.dealer,
        "hands": [list(state.hand(seat)) for seat in seats],
        "betons": [list(state.beton(seat)) for seat in seats],
        "pile": list(state.pile),
        "to_move": state.to_move,
        "action_count": state.action_count,
        "history": state.history_json(),
        "outcome": None if outcome is None else outcome.to_json(),
    }


def state_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a state written by :func:`state_to_json`, as its constructor takes
    them: ``rules`` and ``outcome`` read back, ``players`` beside the rest as written.

    ``ValueError`` if ``data`` is not a state's JSON; whether the position it holds
    can occur is for the constructor to check.
    """
    if not isinstance(data, dict):
        raise ValueError("a hand state must be a JSON object")
    if set(data) != STATE_KEYS:
        raise ValueError(f"a hand state has the keys {sorted(STATE_KEYS)}, not {sorted(data)}")
    if data["format"] != STATE_FORMAT:
        raise ValueError(f"unknown hand state format {data['format']!r}")
    fields = {key: data[key] for key in STATE_KEYS - {"format"}}
    fields["outcome"] = None if data["outcome"] is None else Outcome.from_json(data["outcome"])
    fields["rules"] = Rules.from_json(data["rules"])
    return fields
