"""Rolling P-A-N elimination, the first tournament format.

* At the start the players sit at random at as few tables as hold them, as evenly as
  possible, and every table deals at once. Two linked accounts (fair play: one device,
  or one connection lately) sit at different tables wherever the seating allows, at the
  start and at every move (``tournaments.seating``); where it cannot (one table left),
  they sit together, the tournament goes on, and the log says so.
* Letters carry from hand to hand and table to table; a player who completes P-A-N is
  out at once and leaves his table, placed one more than the players still in (players
  out at the same moment share the place). A disqualified player is placed the same way.
* Between hands the tables are balanced (``tournaments.seating.balance_plan``); a table
  whose players changed starts a new match, any other deals its next hand.
* The last player in wins.
* Standings: players in by fewest letters, then those out by place.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime

from django.db.models import Q

from accounts.selectors import linked_among
from games import services as games
from games.models import Hand, Match
from tournaments import events, play
from tournaments.formats.base import AdvanceReport, Ranking
from tournaments.models import PAN, Tournament, TournamentEntry, TournamentTable
from tournaments.seating import (
    Break,
    Move,
    balance_plan,
    clashes,
    destinations_apart,
    elimination_place,
    keep_apart,
    movers_apart,
    table_sizes,
)

logger = logging.getLogger(__name__)


class RollingElimination:
    """Today's tournaments: P-A-N eliminates, tables balance between hands."""

    name = "rolling_elimination"

    def start(
        self, tournament: Tournament, entries: list[TournamentEntry], *, now: datetime
    ) -> None:
        secrets.SystemRandom().shuffle(entries)
        by_pk = {e.pk: e for e in entries}
        rest = iter(entries)
        shuffled = [
            [next(rest).pk for _ in range(size)]
            for size in table_sizes(len(entries), tournament.seats_per_table)
        ]
        apart = _linked(entries, now=now)
        seating = keep_apart(shuffled, apart)
        _log_together(tournament, sum(clashes(table, apart) for table in seating))
        links: list[TournamentTable] = []
        for number, keys in enumerate(seating, 1):
            link = play.open_table(tournament, number)
            links.append(link)
            for position, key in enumerate(keys):
                by_pk[key].table, by_pk[key].position = link, position
        TournamentEntry.objects.bulk_update(entries, ["table", "position"])
        for link in links:
            play.seat_and_play(link, [e for e in entries if e.table_id == link.pk], now=now)
        for entry in entries:
            if entry.user_id:
                events.user_follow_on_commit(
                    entry.user_id, tournament.pk, kind=events.FOLLOW_SEATED
                )

    def hand_finished(
        self, tournament: Tournament, *, table: TournamentTable, hand: Hand, now: datetime
    ) -> None:
        """The hand's players' letters become their tournament letters, and a player who
        completes P-A-N is eliminated at once and leaves the table."""
        match = hand.match
        letters = match.match_state.letters
        seat_of = dict(match.players.values_list("table_position", "seat"))
        eliminated = []
        for entry in table.entries.select_for_update().filter(eliminated_at__isnull=True):
            seat = seat_of.get(entry.position)
            if seat is None:
                continue
            if entry.letters != letters[seat]:
                entry.letters = letters[seat]
                entry.save(update_fields=["letters"])
            if entry.letters >= PAN:
                eliminated.append(entry)
        if eliminated:
            self._eliminate(tournament, eliminated, now=now)

    def disqualify(
        self, tournament: Tournament, entry: TournamentEntry, *, now: datetime, reason: str
    ) -> None:
        """Eliminated at once at the current place."""
        self._eliminate(tournament, [entry], now=now, disqualified=True, reason=reason)

    def advance(self, tournament: Tournament, *, now: datetime) -> AdvanceReport:
        """First balancing, only between hands at the tables concerned: when the players
        left fit at one table fewer the smallest table breaks and its players fill the
        open seats, otherwise when two tables differ by two or more one player moves from
        the largest to the smallest (a step waits, its tables held, until all of them are
        between hands). Then every free table whose pause is over goes on: a new match
        when its players changed (each with his letters), else the next hand; a table
        left with one player waits for balancing, an empty one closes."""
        report = AdvanceReport()
        states = play.table_states(tournament, now=now)
        by_key = {s.link.pk: s for s in states}
        held: frozenset[int] = frozenset()
        while True:
            # Tables between hands first: among equals, balancing touches those.
            order = sorted(states, key=lambda s: (not s.ready, s.link.number))
            plan = balance_plan(
                [(s.link.pk, len(s.entries)) for s in order], tournament.seats_per_table
            )
            if plan is None:
                break
            if not all(by_key[key].ready for key in plan.tables):
                held = plan.tables
                break
            report.moved += _execute(tournament, plan, by_key, now=now)
        next_ready: datetime | None = None
        for state in states:
            if not state.entries and not state.busy:
                play.close_table(state, now=now)
                report.closed += 1
            elif state.link.pk in held and state.ready:
                report.held += 1
            elif state.busy:
                continue
            elif not state.ready:
                next_ready = min(next_ready or state.ready_at, state.ready_at)
            elif state.needs_new_match:
                report.started += play.reseat(state, now=now)
            else:
                match = (
                    Match.objects.select_for_update().select_related("table").get(pk=state.match.pk)
                )
                report.dealt += games.tournament_hand_deal(match=match, now=now) is not None
        if next_ready is not None:
            events.schedule_advance_on_commit(
                tournament.pk, countdown=(next_ready - now).total_seconds() + 0.05
            )
        return report

    def standings(self, entries: Sequence[TournamentEntry]) -> Ranking:
        """Players in by fewest letters ("P" before "PA"), those out by place; then by name."""
        players_in = [e for e in entries if e.eliminated_at is None]
        out = [e for e in entries if e.eliminated_at is not None]
        players_in.sort(key=lambda e: (e.letters, e.display_name.lower()))
        out.sort(key=lambda e: (e.place or 0, e.display_name.lower()))
        return Ranking(players_in=players_in, out=out)

    def _eliminate(
        self,
        tournament: Tournament,
        entries: list[TournamentEntry],
        *,
        now: datetime,
        disqualified: bool = False,
        reason: str = "",
    ) -> None:
        """Take ``entries`` out at ``now`` (tournament locked): they leave their seats;
        their place is one more than the players still in, shared by all eliminated at
        ``now``. With one player left, he wins and the tournament is over."""
        play.take_out(tournament, entries, now=now, disqualified=disqualified, reason=reason)
        # Places follow the moments of elimination, not the order in which concurrent hands
        # took the lock: an elimination committed just before, at a later moment, is
        # re-placed.
        moments = tournament.entries.filter(eliminated_at__gte=now).values_list(
            "eliminated_at", flat=True
        )
        for moment in sorted(set(moments)):
            after = tournament.entries.filter(
                Q(eliminated_at__isnull=True) | Q(eliminated_at__gt=moment)
            ).count()
            tournament.entries.filter(eliminated_at=moment).update(place=elimination_place(after))
        still_in = tournament.entries.filter(eliminated_at__isnull=True)
        if still_in.count() <= 1:
            still_in.update(place=1)  # the last player in wins
            play.finish(tournament, now=now)


def _linked(entries: Sequence[TournamentEntry], *, now: datetime) -> set[frozenset[int]]:
    """The pairs of ``entries`` (by pk) whose accounts are linked."""
    return linked_among({e.pk: e.user_id for e in entries}, now=now)


def _log_together(tournament: Tournament, pairs: int) -> None:
    if pairs:
        logger.warning(
            "tournament %s: %s pair(s) of linked accounts sit at one table; no seating "
            "keeps them apart",
            tournament.pk,
            pairs,
        )


def _execute(
    tournament: Tournament,
    plan: Break | Move,
    by_key: dict[int, play.TableState],
    *,
    now: datetime,
) -> int:
    """Carry out one balancing step between tables that are all between hands: the player
    who moves (at random) and where each goes keep linked accounts apart where they can."""
    source = by_key[plan.source]
    concerned = [e for key in plan.tables for e in by_key[key].entries]
    apart = _linked(concerned, now=now)
    seated = {key: [e.pk for e in by_key[key].entries] for key in plan.tables}
    by_pk = {e.pk: e for e in concerned}
    if isinstance(plan, Move):
        fine = movers_apart([e.pk for e in source.entries], seated[plan.destination], apart)
        movers = [by_pk[secrets.choice(fine)]]
        destinations = [plan.destination]
    else:
        movers = list(source.entries)
        secrets.SystemRandom().shuffle(movers)
        destinations = destinations_apart(
            [e.pk for e in movers], list(plan.destinations), seated, apart
        )
    for entry, key in zip(movers, destinations, strict=True):
        target = by_key[key]
        taken = {e.position for e in target.entries}
        position = min(p for p in range(tournament.seats_per_table) if p not in taken)
        source.entries.remove(entry)
        entry.table, entry.position = target.link, position
        entry.save(update_fields=["table", "position"])
        target.entries.append(entry)
        target.entries.sort(key=lambda e: e.position)
        if entry.user_id:
            events.user_follow_on_commit(entry.user_id, tournament.pk, kind=events.FOLLOW_MOVED)
    if apart:
        _log_together(
            tournament, sum(clashes([e.pk for e in by_key[k].entries], apart) for k in plan.tables)
        )
    return len(movers)
