"""What the lobby shows beside its tables that other floors own: the tournaments and
arenas about to start or in play, and the day's puzzle (the tournaments and puzzles
floors register their readers, so games never imports them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "LobbyTournament",
    "lobby_puzzle",
    "lobby_tournaments",
    "register_lobby_puzzle",
    "register_lobby_tournaments",
]


@dataclass(frozen=True)
class LobbyTournament:
    name: str
    url: str
    is_arena: bool
    running: bool
    starts_at: datetime
    ends_at: datetime | None
    time_control: str
    players: int


LobbyReader = Callable[[], list[LobbyTournament]]
_readers: dict[str, Callable[[], Any]] = {}


def register_lobby_tournaments(reader: LobbyReader) -> None:
    """``reader`` lists the tournaments the lobby shows (one reader, the tournaments
    floor's ``ready()``)."""
    known = _readers.get("reader")
    if known is not None and known is not reader:
        raise ValueError(f"the lobby's tournaments already have a reader: {known!r}")
    _readers["reader"] = reader


def lobby_tournaments() -> list[LobbyTournament]:
    reader = _readers.get("reader")
    return reader() if reader is not None else []


PuzzleReader = Callable[[], Any]


def register_lobby_puzzle(reader: PuzzleReader) -> None:
    """``reader`` gives the day's puzzle the lobby links to, or None (one reader, the
    puzzles floor's ``ready()``)."""
    known = _readers.get("puzzle")
    if known is not None and known is not reader:
        raise ValueError(f"the lobby's puzzle already has a reader: {known!r}")
    _readers["puzzle"] = reader


def lobby_puzzle() -> Any:
    """The day's puzzle (a ``puzzles.Puzzle``), or None."""
    reader = _readers.get("puzzle")
    return reader() if reader is not None else None
