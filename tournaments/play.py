"""What every tournament format does with the rows of a running tournament: open, seat
and close its tables, start and deal their matches, take players out, end it.

No rule of any format lives here (who goes out, who moves where, when it ends): the
format (``tournaments.formats``) decides, and calls these with the tournament locked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Max, Q

from games import services as games
from games.models import Hand, Match, MatchPlayer
from tournaments import events
from tournaments.models import Tournament, TournamentEntry, TournamentTable
from tournaments.seating import MIN_SEATS

__all__ = [
    "TableState",
    "close_table",
    "close_tables",
    "finish",
    "open_table",
    "reseat",
    "seat_and_play",
    "seated",
    "table_states",
    "take_out",
]


@dataclass
class TableState:
    """An open table of the tournament as one advance sees it."""

    link: TournamentTable
    entries: list[TournamentEntry]
    match: Match | None
    match_seating: frozenset[tuple[int, str]]  # (table position, name) of the match's players
    last_hand: Hand | None
    busy: bool
    ready_at: datetime
    ready: bool = False

    @property
    def needs_new_match(self) -> bool:
        """No match in play, or one whose players are not the ones seated now."""
        return (
            self.match is None
            or self.match.status != Match.Status.PLAYING
            or self.last_hand is None
            or self.match_seating != frozenset((e.position, e.display_name) for e in self.entries)
        )


def open_table(tournament: Tournament, number: int) -> TournamentTable:
    """A new games table for the tournament (its settings), linked as table ``number``."""
    table = games.tournament_table_create(
        owner=tournament.created_by,
        name=f"{tournament.name[:50]} #{number}",
        rules=tournament.rules,
        profile=tournament.profile,
        seats=tournament.seats_per_table,
        base_seconds=tournament.base_seconds,
        increment_seconds=tournament.increment_seconds,
        rated=tournament.is_arena and tournament.rated,
    )
    return TournamentTable.objects.create(tournament=tournament, table=table, number=number)


def seated(entry: TournamentEntry) -> games.SeatedPlayer:
    return games.SeatedPlayer(
        position=entry.position,
        user=entry.user,
        bot_level=entry.bot_level,
        display_name=entry.display_name,
        letters=entry.letters,
    )


def seat_and_play(link: TournamentTable, entries: list[TournamentEntry], *, now: datetime) -> int:
    """Sit ``entries`` (their positions set) at the table, emptying every other seat; with
    two players or more a match starts with their letters. Returns 1 if a match started."""
    players = [seated(e) for e in entries]
    games.tournament_table_seat(table=link.table, players=players)
    if len(players) < MIN_SEATS:
        return 0  # alone at his table: he waits for company
    games.tournament_match_start(table=link.table, players=players, now=now)
    return 1


def reseat(state: TableState, *, now: datetime) -> int:
    """A table between hands whose players changed: its match ends, the seats are set,
    and with two players or more a new match starts with their letters. Returns 1 if a
    match started."""
    if state.match is not None and state.match.status == Match.Status.PLAYING:
        games.tournament_match_close(
            match=Match.objects.select_for_update().get(pk=state.match.pk), now=now
        )
    return seat_and_play(state.link, state.entries, now=now)


def table_states(tournament: Tournament, *, now: datetime) -> list[TableState]:
    """Every open table of the tournament with its players, its match and its last hand."""
    links = list(tournament.tables.filter(closed_at__isnull=True).select_related("table"))
    seated_at: dict[int, list[TournamentEntry]] = defaultdict(list)
    for entry in tournament.entries.filter(
        eliminated_at__isnull=True, table__isnull=False
    ).select_related("user"):
        seated_at[entry.table_id].append(entry)
    latest = dict(
        Match.objects.filter(table_id__in=[link.table_id for link in links])
        .values("table_id")
        .annotate(last=Max("pk"))
        .values_list("table_id", "last")
    )
    matches = Match.objects.in_bulk(list(latest.values()))
    seating: dict[int, set[tuple[int, str]]] = defaultdict(set)
    for match_id, position, name in MatchPlayer.objects.filter(match_id__in=matches).values_list(
        "match_id", "table_position", "display_name"
    ):
        seating[match_id].add((position, name))
    numbers = dict(
        Hand.objects.filter(match_id__in=matches)
        .values("match_id")
        .annotate(last=Max("number"))
        .values_list("match_id", "last")
    )
    last_hands: dict[int, Hand] = {}
    if numbers:
        query = Q()
        for match_id, number in numbers.items():
            query |= Q(match_id=match_id, number=number)
        for hand in Hand.objects.filter(query).only(
            "id", "match_id", "number", "outcome", "finished_at"
        ):
            last_hands[hand.match_id] = hand
    pause = timedelta(seconds=tournament.seconds_between_hands)
    states = []
    for link in links:
        match = matches.get(latest.get(link.table_id))
        hand = last_hands.get(match.pk) if match else None
        busy = (
            match is not None
            and match.status == Match.Status.PLAYING
            and hand is not None
            and hand.outcome is None
        )
        idle_since = (hand.finished_at if hand else None) or link.opened_at
        state = TableState(
            link=link,
            entries=sorted(seated_at.get(link.pk, []), key=lambda e: e.position),
            match=match,
            match_seating=frozenset(seating.get(match.pk, ())) if match else frozenset(),
            last_hand=hand,
            busy=busy,
            ready_at=idle_since + pause,
        )
        state.ready = not busy and state.ready_at <= now
        states.append(state)
    return states


def close_table(state: TableState, *, now: datetime) -> None:
    if state.match is not None and state.match.status == Match.Status.PLAYING:
        games.tournament_match_close(
            match=Match.objects.select_for_update().get(pk=state.match.pk), now=now
        )
    games.tournament_table_seat(table=state.link.table, players=[])
    games.tournament_table_close(table=state.link.table, now=now)
    state.link.closed_at = now
    state.link.save(update_fields=["closed_at"])


def close_tables(tournament: Tournament, *, now: datetime) -> int:
    """A tournament that is over closes its tables (any still in a hand: later)."""
    closed = 0
    for state in table_states(tournament, now=now):
        if state.busy:
            continue
        for entry in state.entries:
            entry.table, entry.position = None, None
            entry.save(update_fields=["table", "position"])
        state.entries = []
        close_table(state, now=now)
        closed += 1
    if closed:
        events.tournament_changed_on_commit(tournament.pk)
    return closed


def take_out(
    tournament: Tournament,
    entries: list[TournamentEntry],
    *,
    now: datetime,
    disqualified: bool = False,
    reason: str = "",
) -> None:
    """``entries`` are out at ``now`` (tournament locked): they leave their seats at once
    and their pages go to the tournament's. Their place is the format's to set."""
    for entry in entries:
        link = entry.table
        if link is not None:
            games.tournament_seat_vacate(table_id=link.table_id, position=entry.position)
        entry.eliminated_at = now
        entry.disqualified = disqualified
        entry.disqualify_reason = reason
        entry.table, entry.position = None, None
        entry.save(
            update_fields=[
                "eliminated_at",
                "disqualified",
                "disqualify_reason",
                "table",
                "position",
            ]
        )
        if entry.user_id:
            events.user_follow_on_commit(
                entry.user_id, tournament.pk, kind=events.FOLLOW_ELIMINATED
            )


def finish(tournament: Tournament, *, now: datetime) -> None:
    """The tournament is over (its places set by the format); the tables close in the
    next advance."""
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.paused_at = None
    tournament.save(update_fields=["status", "finished_at", "paused_at"])
    events.schedule_advance_on_commit(tournament.pk)
    events.tournament_changed_on_commit(tournament.pk)
