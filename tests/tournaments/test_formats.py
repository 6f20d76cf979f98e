"""Tournament formats: the registry's default is the rolling P-A-N elimination, the
services go through the protocol, and the protocol gives what the services gave before."""

from __future__ import annotations

import pytest
from django.db import transaction

from games.engine import LETTERS
from tests.tournaments.helpers import (
    advance,
    after_the_pause,
    give_letters,
    hand_at,
    hands_in_play,
    make_tournament,
    seating,
    started,
    time_out,
)
from tournaments import formats, services
from tournaments.formats import (
    DEFAULT_FORMAT,
    FORMATS,
    AdvanceReport,
    RollingElimination,
    TournamentFormat,
    format_of,
    get_format,
)
from tournaments.models import Tournament
from tournaments.selectors import tournament_standings


def test_the_registry_default_is_the_rolling_elimination():
    assert DEFAULT_FORMAT == "rolling_elimination"
    default = get_format()
    assert isinstance(default, RollingElimination)
    assert isinstance(default, TournamentFormat)
    assert list(FORMATS) == [DEFAULT_FORMAT, "arena"] and FORMATS[DEFAULT_FORMAT] is default
    assert isinstance(get_format("arena"), TournamentFormat)
    assert services.AdvanceReport is AdvanceReport
    with pytest.raises(KeyError):
        get_format("swiss")


@pytest.mark.django_db
def test_a_tournament_runs_the_default_format():
    assert format_of(make_tournament(bots=3)) is get_format(DEFAULT_FORMAT)


@pytest.mark.django_db
def test_advance_and_standings_through_the_protocol_give_what_the_services_gave():
    """Nine players at three tables; table 3 loses one to P-A-N, the others finish their
    hands: the protocol's advance breaks table 3 as ``tournament_advance`` always did, and
    its standings order everyone as the standings always did."""
    tournament = started(make_tournament(bots=9, seats_per_table=4))
    assert seating(tournament) == {1: 3, 2: 3, 3: 3}
    give_letters(tournament, 3, 2)
    for number in (3, 1, 2):
        time_out(hand_at(tournament, number))
    assert seating(tournament) == {1: 3, 2: 3, 3: 2}

    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        report = get_format().advance(locked, now=after_the_pause(tournament))
    assert report == AdvanceReport(moved=2, started=2, closed=1)
    assert seating(tournament) == {1: 4, 2: 4}
    assert len(hands_in_play(tournament)) == 2
    assert advance(tournament) == AdvanceReport()  # both tables are in a hand now

    # A player without a letter is disqualified: out at place 8, ahead of the ninth.
    clean = tournament.entries.filter(eliminated_at__isnull=True, letters=0).first()
    services.tournament_disqualify(
        tournament_id=tournament.pk, entry_id=clean.pk, by=tournament.created_by
    )
    entries = list(tournament.entries.all())
    ranking = get_format().standings(entries)
    # The order the standings had before formats: fewest letters ("P" before "PA"),
    # then by place, each then by name.
    before_in = sorted(
        (e for e in entries if e.eliminated_at is None),
        key=lambda e: (len(LETTERS[e.letters]), e.display_name.lower()),
    )
    before_out = sorted(
        (e for e in entries if e.eliminated_at is not None),
        key=lambda e: (e.place or 0, e.display_name.lower()),
    )
    assert ranking.players_in == before_in
    assert ranking.out == before_out
    assert [e.letters for e in ranking.players_in] == [0, 0, 0, 1, 1, 2, 2]
    assert [e.place for e in ranking.out] == [8, 9]
    standings = tournament_standings(tournament=tournament, viewer=None)
    assert [r.entry_id for r in standings.players_in] == [e.pk for e in before_in]
    assert [r.entry_id for r in standings.eliminated] == [e.pk for e in before_out]


class _Recording(RollingElimination):
    """The rolling elimination, noting which of its methods the services call."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def start(self, *args, **kwargs):
        self.calls.append("start")
        return super().start(*args, **kwargs)

    def hand_finished(self, *args, **kwargs):
        self.calls.append("hand_finished")
        return super().hand_finished(*args, **kwargs)

    def disqualify(self, *args, **kwargs):
        self.calls.append("disqualify")
        return super().disqualify(*args, **kwargs)

    def advance(self, *args, **kwargs):
        self.calls.append("advance")
        return super().advance(*args, **kwargs)

    def standings(self, *args, **kwargs):
        self.calls.append("standings")
        return super().standings(*args, **kwargs)


@pytest.mark.django_db
def test_the_services_and_the_standings_go_through_the_registered_format(monkeypatch):
    recording = _Recording()
    monkeypatch.setitem(formats.FORMATS, DEFAULT_FORMAT, recording)
    tournament = started(make_tournament(bots=3))
    time_out(hands_in_play(tournament)[0])
    assert advance(tournament).dealt == 1
    entry = tournament.entries.first()
    services.tournament_disqualify(
        tournament_id=tournament.pk, entry_id=entry.pk, by=tournament.created_by
    )
    tournament_standings(tournament=tournament, viewer=None)
    assert recording.calls == ["start", "hand_finished", "advance", "disqualify", "standings"]
