"""Tournament formats: the protocol (``TournamentFormat``), and the registry by name.

``tournaments.services`` asks ``format_of(tournament)`` which format runs a tournament
and calls it through the protocol; it never tests a format's name. A tournament chooses
its format when it is made (``Tournament.format``, the keys of ``FORMATS``): the rolling
P-A-N elimination (the default) or the Arena.
"""

from __future__ import annotations

from tournaments.formats.arena import Arena
from tournaments.formats.base import AdvanceReport, Ranking, TournamentFormat
from tournaments.formats.rolling import RollingElimination
from tournaments.models import Tournament

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "AdvanceReport",
    "Arena",
    "Ranking",
    "RollingElimination",
    "TournamentFormat",
    "format_of",
    "get_format",
]

FORMATS: dict[str, TournamentFormat] = {fmt.name: fmt for fmt in (RollingElimination(), Arena())}
DEFAULT_FORMAT = RollingElimination.name


def get_format(name: str = DEFAULT_FORMAT) -> TournamentFormat:
    """The registered format called ``name``; an unknown name raises ``KeyError``."""
    return FORMATS[name]


def format_of(tournament: Tournament) -> TournamentFormat:
    """The format that runs ``tournament``, as it chose when it was made."""
    return get_format(tournament.format or DEFAULT_FORMAT)
