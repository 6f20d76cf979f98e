"""Reads for the tournament pages, the live standings and the profile, as plain data."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import islice
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import may
from games.engine import LETTERS
from games.models import BotLevel, Hand, Match
from games.selectors import (
    LobbyTournament,
    RuleLine,
    TournamentEnd,
    bot_label,
    rules_summary,
    time_control_label,
)
from tournaments.formats import format_of
from tournaments.models import (
    PAN,
    WEEKDAY_NAMES,
    Format,
    ScheduledTournament,
    Tournament,
    TournamentAnnouncement,
    TournamentEntry,
    TournamentSchedule,
    TournamentTable,
)
from tournaments.occurrences import ALL_DAYS, occurrences_between, weekdays_of
from tournaments.services import PERM_MANAGE, arena_join_closes

FINISHED_SHOWN = 30
OCCURRENCES_SHOWN = 3  # the next starts of a recurring tournament on the list


# --- lists ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Occurrence:
    """One coming start of a recurring tournament, and its tournament once created."""

    starts_at: datetime
    tournament: Tournament | None


@dataclass(frozen=True)
class ScheduleRow:
    """A recurring tournament on the list: when it repeats, in the reader's language, and
    its next starts."""

    schedule: TournamentSchedule
    repeats: str
    next_starts: list[Occurrence]


@dataclass(frozen=True)
class TournamentLists:
    upcoming: list[Tournament]
    running: list[Tournament]
    finished: list[Tournament]
    schedules: list[ScheduleRow]


def tournament_lists(*, now: datetime | None = None) -> TournamentLists:
    """Upcoming (registration open), running (or paused) and the latest finished ones;
    the active recurring tournaments with their next starts after ``now``."""
    tournaments = Tournament.objects.annotate(
        registered=Count("entries"),
        still_in=Count("entries", filter=Q(entries__eliminated_at__isnull=True)),
    )
    status = Tournament.Status
    return TournamentLists(
        upcoming=list(tournaments.filter(status=status.SCHEDULED).order_by("starts_at")),
        running=list(
            tournaments.filter(status__in=[status.RUNNING, status.PAUSED]).order_by("started_at")
        ),
        finished=list(
            tournaments.filter(status__in=[status.FINISHED, status.CANCELLED])
            .prefetch_related(
                Prefetch("entries", queryset=TournamentEntry.objects.filter(place=1), to_attr="won")
            )
            .order_by("-finished_at")[:FINISHED_SHOWN]
        ),
        schedules=schedule_rows(now=now or timezone.now()),
    )


def schedule_rows(*, now: datetime) -> list[ScheduleRow]:
    """Every active schedule: when it repeats and its next ``OCCURRENCES_SHOWN`` starts
    after ``now``, each with its tournament if it is created already. Two queries."""
    schedules = TournamentSchedule.objects.filter(active=True).prefetch_related(
        Prefetch(
            "occurrences",
            queryset=ScheduledTournament.objects.filter(starts_at__gt=now).select_related(
                "tournament"
            ),
            to_attr="coming",
        )
    )
    # A week per start, and a day more: enough for a schedule of one weekday.
    until = now + timedelta(days=7 * OCCURRENCES_SHOWN + 1)
    rows = []
    for schedule in schedules:
        created = {o.starts_at: o.tournament for o in schedule.coming}
        starts = occurrences_between(
            weekdays=schedule.weekdays,
            at=schedule.time_of_day,
            zone=schedule.time_zone,
            after=now,
            until=until,
            every_hour=schedule.every_hour,
        )
        rows.append(
            ScheduleRow(
                schedule=schedule,
                repeats=schedule_repeats(schedule),
                next_starts=[
                    Occurrence(start, created.get(start))
                    for start in islice(starts, OCCURRENCES_SHOWN)
                ],
            )
        )
    return rows


def schedule_repeats(schedule: TournamentSchedule) -> str:
    """When a schedule repeats, in the active language: "Every day at 8 p.m.", "Every week
    on Monday and Thursday at 8 p.m.". The time is the schedule's local time; its zone is
    named when it is not the site's."""
    if schedule.every_hour:
        minute = f"{schedule.time_of_day.minute:02d}"
        if schedule.weekdays & ALL_DAYS == ALL_DAYS:
            return _("Every hour at :%(minute)s") % {"minute": minute}
        days = [str(WEEKDAY_NAMES[day]) for day in weekdays_of(schedule.weekdays)]
        return _("Every hour at :%(minute)s on %(days)s") % {
            "minute": minute,
            "days": get_text_list(days, _("and")),
        }
    at = formats.time_format(schedule.time_of_day)
    if schedule.time_zone != timezone.get_current_timezone_name():
        at = f"{at} ({schedule.time_zone})"
    if schedule.weekdays & ALL_DAYS == ALL_DAYS:
        return _("Every day at %(time)s") % {"time": at}
    days = [str(WEEKDAY_NAMES[day]) for day in weekdays_of(schedule.weekdays)]
    return _("Every week on %(days)s at %(time)s") % {
        "days": get_text_list(days, _("and")),
        "time": at,
    }


# --- one tournament ------------------------------------------------------------------------


@dataclass(frozen=True)
class StandingRow:
    entry_id: int
    name: str
    is_bot: bool
    bot_level: str
    letters: str
    place: int | None
    table_number: int | None
    table_url: str | None
    disqualified: bool
    is_me: bool


@dataclass(frozen=True)
class TableRow:
    number: int
    url: str
    players: list[StandingRow]
    hands: int


@dataclass(frozen=True)
class Standings:
    players_in: list[StandingRow]  # in the format's order (rolling elimination: fewest letters)
    eliminated: list[StandingRow]  # in the format's order (rolling elimination: by place)
    tables: list[TableRow]
    winner: StandingRow | None
    is_final: bool
    hands_played: int


@dataclass(frozen=True)
class TournamentPage:
    tournament: Tournament
    rules_lines: list[RuleLine]
    time_control: str
    registrants: list[TournamentEntry]
    my_entry: TournamentEntry | None
    can_register: bool
    can_unregister: bool
    can_manage: bool  # the staff controls: start, pause, cancel, announce, disqualify, bots
    standings: Standings | None
    announcements: list[TournamentAnnouncement]
    bot_levels: list[tuple[str, str]]


def tournament_page(
    *, tournament: Tournament, viewer: User | None, now: datetime | None = None
) -> TournamentPage:
    """Everything the tournament page shows to ``viewer`` (None: a visitor)."""
    now = now or timezone.now()
    viewer = viewer if viewer is not None and viewer.is_authenticated else None
    registrants = list(tournament.entries.select_related("user").order_by("registered_at", "pk"))
    my_entry = next((e for e in registrants if viewer and e.user_id == viewer.pk), None)
    open_ = tournament.status == Tournament.Status.SCHEDULED and now < tournament.starts_at
    started = tournament.started_at is not None
    return TournamentPage(
        tournament=tournament,
        rules_lines=rules_summary(tournament.rules),
        time_control=time_control_label(tournament.base_seconds, tournament.increment_seconds),
        registrants=registrants,
        my_entry=my_entry,
        can_register=(
            viewer is not None
            and open_
            and my_entry is None
            and len(registrants) < tournament.max_players
            and (tournament.bots_allowed or not viewer.is_bot_account)
        ),
        can_unregister=viewer is not None and open_ and my_entry is not None,
        can_manage=may(viewer, PERM_MANAGE),
        standings=tournament_standings(tournament=tournament, viewer=viewer) if started else None,
        announcements=list(tournament.announcements.all()[:20]),
        bot_levels=list(BotLevel.choices),
    )


def tournament_standings(*, tournament: Tournament, viewer: User | None) -> Standings:
    """Players still in, then the eliminated, in the order of the tournament's format
    (the rolling elimination: by fewest letters, then by place); the open tables."""
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    links = {
        link.pk: link
        for link in TournamentTable.objects.filter(tournament=tournament, closed_at__isnull=True)
    }
    by_table: dict[int, list[StandingRow]] = {pk: [] for pk in links}
    rows: dict[int, StandingRow] = {}
    # An account marked for breaking fair play is off the results (its places closed up).
    entries = list(tournament.entries.filter(struck_at__isnull=True))
    for entry in entries:
        link = links.get(entry.table_id) if entry.table_id else None
        row = rows[entry.pk] = StandingRow(
            entry_id=entry.pk,
            name=entry.display_name,
            is_bot=bool(entry.bot_level),
            bot_level=bot_label(entry.bot_level) if entry.bot_level else "",
            letters=LETTERS[entry.letters],
            place=entry.place,
            table_number=link.number if link else None,
            table_url=_table_url(link.table_id) if link else None,
            disqualified=entry.disqualified,
            is_me=viewer_id is not None and entry.user_id == viewer_id,
        )
        if link is not None:
            by_table[link.pk].append(row)
    ranking = format_of(tournament).standings(entries)
    rows_in = [rows[e.pk] for e in ranking.players_in]
    rows_out = [rows[e.pk] for e in ranking.out]
    hands = _hands_by_table(tournament)
    tables = [
        TableRow(
            number=link.number,
            url=_table_url(link.table_id),
            players=sorted(by_table[pk], key=lambda r: r.name.lower()),
            hands=hands.get(link.table_id, 0),
        )
        for pk, link in sorted(links.items(), key=lambda item: item[1].number)
    ]
    winner = next((r for r in rows_in if r.place == 1), None)
    if winner is None:
        winner = next((r for r in rows_out if r.place == 1), None)
    return Standings(
        players_in=rows_in,
        eliminated=rows_out,
        tables=tables,
        winner=winner if tournament.status == Tournament.Status.FINISHED else None,
        is_final=tournament.is_live and len(tables) == 1,
        hands_played=sum(hands.values()),
    )


def _table_url(table_id: int) -> str:
    return reverse("games:table", kwargs={"table_id": table_id})


def _hands_by_table(tournament: Tournament) -> dict[int, int]:
    """Finished hands per table: a hand being played has not been played yet."""
    return dict(
        Hand.objects.filter(
            match__table__tournament_table__tournament=tournament, finished_at__isnull=False
        )
        .values("match__table_id")
        .annotate(n=Count("pk"))
        .values_list("match__table_id", "n")
    )


def tournament_hands(tournament: Tournament) -> QuerySet[Hand]:
    """Every hand played at the tournament's tables, in the order they ended."""
    return (
        Hand.objects.filter(match__table__tournament_table__tournament=tournament)
        .select_related("match")
        .order_by("finished_at", "pk")
    )


def current_table_url(*, tournament: Tournament, user: User) -> str | None:
    """Where the user plays in the tournament now, if he is seated."""
    entry = (
        tournament.entries.filter(user=user, eliminated_at__isnull=True, table__isnull=False)
        .select_related("table")
        .first()
    )
    return _table_url(entry.table.table_id) if entry else None


# --- the profile -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ProfileTournament:
    tournament: Tournament
    place: int | None
    players: int
    disqualified: bool


def user_tournaments(*, user: User) -> list[ProfileTournament]:
    """The tournaments a user registered for, latest first, with his place."""
    entries = (
        TournamentEntry.objects.filter(user=user, struck_at__isnull=True)
        .select_related("tournament")
        .annotate(players=Count("tournament__entries"))
        .order_by("-tournament__starts_at")
    )
    return [
        ProfileTournament(
            tournament=e.tournament, place=e.place, players=e.players, disqualified=e.disqualified
        )
        for e in entries
    ]


# --- audit -------------------------------------------------------------------------------------


def tournament_audit(*, tournament: Tournament) -> list[str]:
    """Check a tournament against its Hand records; returns the problems found (none: []).

    Replays every hand at its tables in the order they ended. Each match must hold, for
    every player, the letters he carried into it plus the hands he lost in it; every
    entry's letters are the hands he lost; an elimination happens at the moment of the
    third loss, and its place is one more than the players still in after that moment. A
    finished tournament has one winner, and everyone else is out with P-A-N (or
    disqualified).
    """
    problems: list[str] = []
    entries = list(tournament.entries.all())
    by_user = {e.user_id: e for e in entries if e.user_id}
    by_name = {e.display_name: e for e in entries}
    losses = dict.fromkeys((e.pk for e in entries), 0)
    third_loss_at: dict[int, datetime] = {}
    matches: dict[int, tuple[Match, dict[int, TournamentEntry], dict[int, int], dict[int, int]]]
    matches = {}
    for hand in tournament_hands(tournament):
        if hand.match_id not in matches:
            seats: dict[int, TournamentEntry] = {}
            for p in hand.match.players.all():
                entry = by_user.get(p.user_id) if p.user_id else by_name.get(p.display_name)
                if entry is None:
                    problems.append(f"match {hand.match_id}: {p.display_name} is not registered")
                else:
                    seats[p.seat] = entry
            carried = {seat: losses[entry.pk] for seat, entry in seats.items()}
            matches[hand.match_id] = (hand.match, seats, carried, dict.fromkeys(seats, 0))
        loser = (hand.outcome or {}).get("loser")
        entry = matches[hand.match_id][1].get(loser) if loser is not None else None
        if entry is not None:
            matches[hand.match_id][3][loser] += 1
            losses[entry.pk] += 1
            if losses[entry.pk] == PAN:
                third_loss_at[entry.pk] = hand.finished_at
    for match, seats, carried, lost in matches.values():
        letters = match.match_state.letters
        for seat, entry in seats.items():
            if letters[seat] != carried[seat] + lost[seat]:
                problems.append(f"match {match.pk}: {entry} did not carry his letters")
    # An entry struck off the results (fair play) has no place, and the others' places
    # count only the entries left in them.
    counted = [e for e in entries if e.struck_at is None]
    for entry in entries:
        if entry.letters != min(losses[entry.pk], PAN):
            problems.append(f"{entry}: {entry.letters} letters, {losses[entry.pk]} hands lost")
        if entry.struck_at is not None:
            if entry.place is not None:
                problems.append(f"{entry}: struck off the results, placed {entry.place}")
            continue
        if entry.eliminated_at is None:
            continue
        if not entry.disqualified:
            if losses[entry.pk] != PAN:
                problems.append(f"{entry}: eliminated without P-A-N")
            elif third_loss_at.get(entry.pk) != entry.eliminated_at:
                problems.append(f"{entry}: eliminated at another moment than his third loss")
        after = sum(
            1 for o in counted if o.eliminated_at is None or o.eliminated_at > entry.eliminated_at
        )
        if entry.place != after + 1:
            problems.append(f"{entry}: place {entry.place}, expected {after + 1}")
    if tournament.status == Tournament.Status.FINISHED:
        last_in = [e for e in entries if e.eliminated_at is None]
        winners = [e for e in counted if e.place == 1]
        if len(last_in) != 1 or len(winners) != 1:
            problems.append(f"not one winner: {winners}")
        elif last_in[0].struck_at is None and last_in[0] != winners[0]:
            problems.append(f"the last player in, {last_in[0]}, is not placed first")
        elif losses[last_in[0].pk] >= PAN:
            problems.append(f"the winner {last_in[0]} has P-A-N")
    return problems


# --- the notices on every page ----------------------------------------------------------


@dataclass(frozen=True)
class TournamentNotice:
    """What a page tells its user about his tournaments: one starts within the minute
    (``kind`` "reminder", once he was reminded) or his table is ready ("table")."""

    kind: str
    tournament: Tournament
    url: str


def tournament_notices(*, user: User, path: str = "") -> list[TournamentNotice]:
    """The user's reminded tournaments that have not started, and the tables waiting for
    him in running ones (not on the page of that table itself). Two queries at most."""
    if not user.is_authenticated:
        return []
    notices = [
        TournamentNotice("reminder", entry.tournament, entry.tournament.get_absolute_url())
        for entry in TournamentEntry.objects.filter(
            user=user,
            tournament__status=Tournament.Status.SCHEDULED,
            tournament__reminded_at__isnull=False,
        ).select_related("tournament")
    ]
    seated = TournamentEntry.objects.filter(
        user=user,
        eliminated_at__isnull=True,
        tournament__status__in=[Tournament.Status.RUNNING, Tournament.Status.PAUSED],
        table__isnull=False,
        table__closed_at__isnull=True,
    ).select_related("tournament", "table")
    for entry in seated:
        if path != reverse("games:table", kwargs={"table_id": entry.table.table_id}):
            url = reverse("tournaments:follow", kwargs={"tournament_id": entry.tournament_id})
            notices.append(TournamentNotice("table", entry.tournament, url))
    return notices


# --- what a tournament's table says ------------------------------------------------------


def table_tournament_end(table_id: int) -> TournamentEnd | None:
    """How the tournament of the games table ``table_id`` ended (who is first, or that it
    was cancelled); None while it goes on. Read by the table's page and sockets
    (``games.selectors.register_tournament_end``): one query, two once it is over."""
    tournament = Tournament.objects.filter(
        tables__table_id=table_id,
        status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED],
    ).first()
    if tournament is None:
        return None
    cancelled = tournament.status == Tournament.Status.CANCELLED
    winners = (
        ()
        if cancelled
        else tuple(
            tournament.entries.filter(place=1)
            .order_by("display_name")
            .values_list("display_name", flat=True)
        )
    )
    return TournamentEnd(cancelled=cancelled, winners=winners, url=tournament.get_absolute_url())


LOBBY_SHOWN = 6
LOBBY_AHEAD = timedelta(hours=1)


def lobby_tournaments(*, now: datetime | None = None) -> list[LobbyTournament]:
    """The tournaments and arenas the lobby shows: those in play (an arena only while
    players may still join) and those starting within the hour, soonest first."""
    now = now or timezone.now()
    status = Tournament.Status
    rows = (
        Tournament.objects.filter(
            Q(status=status.RUNNING, format=Format.ARENA, ends_at__gt=now)
            | Q(status=status.SCHEDULED, starts_at__lte=now + LOBBY_AHEAD)
        )
        .annotate(players=Count("entries"))
        .order_by("starts_at")[:LOBBY_SHOWN]
    )
    return [
        LobbyTournament(
            name=t.name,
            url=t.get_absolute_url(),
            is_arena=t.is_arena,
            running=t.status == status.RUNNING,
            starts_at=t.starts_at,
            ends_at=t.ends_at,
            time_control=time_control_label(t.base_seconds, t.increment_seconds),
            players=t.players,
        )
        for t in rows
    ]


# --- the API ------------------------------------------------------------------------------


def _millis(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def api_tournaments(*, now: datetime | None = None) -> list[dict[str, Any]]:
    """The tournaments and arenas a program may join or follow: open for registration, or
    in play; soonest first. As the API gives them (``tournament_json``)."""
    now = now or timezone.now()
    status = Tournament.Status
    rows = (
        Tournament.objects.filter(status__in=[status.SCHEDULED, status.RUNNING, status.PAUSED])
        .annotate(players=Count("entries"))
        .order_by("starts_at", "pk")[:100]
    )
    return [tournament_json(t, players=t.players) for t in rows]


def tournament_json(tournament: Tournament, *, players: int | None = None) -> dict[str, Any]:
    """A tournament as the API gives it; the names are camelCase, as lichess's."""
    join_until = (
        tournament.starts_at
        if tournament.status == Tournament.Status.SCHEDULED
        else arena_join_closes(tournament)
        if tournament.is_arena
        else None
    )
    return {
        "id": tournament.pk,
        "url": tournament.get_absolute_url(),
        "name": tournament.name,
        "format": tournament.format,
        "status": tournament.status,
        "startsAt": _millis(tournament.starts_at),
        "endsAt": _millis(tournament.ends_at),
        "minutes": tournament.minutes,
        "timeControl": {
            "limit": tournament.base_seconds,
            "increment": tournament.increment_seconds,
        },
        "seats": {"min": tournament.smallest_table, "max": tournament.seats_per_table},
        "rated": tournament.rated,
        "botsAllowed": tournament.bots_allowed,
        "players": tournament.entries.count() if players is None else players,
        "joinUntil": _millis(join_until),
    }
