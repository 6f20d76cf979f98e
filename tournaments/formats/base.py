"""The protocol a tournament format follows, and what its methods return.

A format holds the rules of one kind of tournament: how the players sit at the start,
what a finished hand changes (letters, who goes out, whether it is over), what the
tables do next between hands, and in what order the standings list the players.
Everything else is the same for every format and stays in ``tournaments.services``:
registration, the start's checks and the status, the staff's actions, locking,
broadcasts and tasks. A format changes rows only through ``tournaments.play`` and the
``games`` services, always inside the service's transaction, with the tournament locked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from games.models import Hand
from tournaments.models import Tournament, TournamentEntry, TournamentTable


@dataclass
class AdvanceReport:
    """What one ``tournament_advance`` did (for logs, tests and the benchmark)."""

    moved: int = 0  # players moved by balancing
    started: int = 0  # matches started (a table's seating changed, or after a PAN)
    dealt: int = 0  # next hands dealt
    closed: int = 0  # tables closed
    held: int = 0  # tables between hands kept waiting for a balancing step


@dataclass(frozen=True)
class Ranking:
    """The standings' order: players still in first, then those out."""

    players_in: list[TournamentEntry]
    out: list[TournamentEntry]


@runtime_checkable
class TournamentFormat(Protocol):
    """One kind of tournament. Each method runs inside a service's transaction with the
    tournament's row locked, except ``standings``, which only reads."""

    name: str  # its key in ``tournaments.formats.FORMATS``

    def start(
        self, tournament: Tournament, entries: list[TournamentEntry], *, now: datetime
    ) -> None:
        """Seat ``entries`` (at least the minimum registered) and start play. The
        tournament is already RUNNING; the service broadcasts the change."""

    def hand_finished(
        self, tournament: Tournament, *, table: TournamentTable, hand: Hand, now: datetime
    ) -> None:
        """``hand`` at ``table`` is over (it and its match locked too; the tournament
        live): carry its result to the entries; take out whoever goes out; end the
        tournament if it is decided. The service then schedules the next advance."""

    def disqualify(
        self, tournament: Tournament, entry: TournamentEntry, *, now: datetime, reason: str
    ) -> None:
        """The staff put ``entry`` out (his hand in play already stopped): place him and
        end the tournament if that decides it."""

    def advance(self, tournament: Tournament, *, now: datetime) -> AdvanceReport:
        """The next step at every table between hands of a RUNNING tournament (re-seat,
        deal, close), scheduling the next advance where a table waits for its pause."""

    def standings(self, entries: Sequence[TournamentEntry]) -> Ranking:
        """``entries`` (all of the tournament's, registration order) in standings order."""
