"""Tournament formats: the protocol (``TournamentFormat``), and the registry by name.

``tournaments.services`` asks ``format_of(tournament)`` which format runs a tournament
and calls it through the protocol; it never tests a format's name. Today every
tournament uses ``DEFAULT_FORMAT``, the rolling P-A-N elimination. A later ``format``
field on ``Tournament`` (choices: the keys of ``FORMATS``, default ``DEFAULT_FORMAT``)
plugs in at ``format_of`` alone.
"""

from __future__ import annotations

from tournaments.formats.base import AdvanceReport, Ranking, TournamentFormat
from tournaments.formats.rolling import RollingElimination
from tournaments.models import Tournament

__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "AdvanceReport",
    "Ranking",
    "RollingElimination",
    "TournamentFormat",
    "format_of",
    "get_format",
]

FORMATS: dict[str, TournamentFormat] = {fmt.name: fmt for fmt in (RollingElimination(),)}
DEFAULT_FORMAT = RollingElimination.name


def get_format(name: str = DEFAULT_FORMAT) -> TournamentFormat:
    """The registered format called ``name``; an unknown name raises ``KeyError``."""
    return FORMATS[name]


def format_of(tournament: Tournament) -> TournamentFormat:
    """The format that runs ``tournament``: the default one, until tournaments choose."""
    return get_format(DEFAULT_FORMAT)
