"""Every change of state of a tournament: one function per action (DESIGN.md).

Each service runs in one transaction and says which locks it takes; a refusal raises
``core.errors.Refused`` and changes nothing. Broadcasts, tasks and mail leave after
the commit (``tournaments.events``). Everything a tournament knows lives in the
database (entries, their letters and tables, the games rows), and every step is
derived from it again, so each step is safe to repeat and a restarted worker loses
nothing.

Lock order, free of deadlocks with the games services: **hand, match, tournament**,
then the rows of tables between hands (table, seats, match).

* A hand that ends at a tournament table holds its hand and match rows and then takes
  the tournament's row (``tournament_hand_finished``, inside the hand's transaction).
* ``tournament_advance`` (balancing and dealing) takes the tournament's row first and
  then touches only tables between hands, whose rows no move is holding on the way to
  the tournament's lock.
* Services that stop hands in play (pause, resume, cancel, disqualify) lock those hands
  and their matches before the tournament, as a finishing hand does, and try again if a
  hand was dealt in between.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import may
from core.errors import Refused
from games import services as games
from games.engine import PROFILES, Rules
from games.engine.rules import MAX_ACTIONS_MAX, MAX_ACTIONS_MIN
from games.models import BotLevel, Hand, Match, MatchPlayer
from tournaments import events
from tournaments.models import (
    PAN,
    Tournament,
    TournamentAnnouncement,
    TournamentEntry,
    TournamentTable,
)
from tournaments.seating import (
    MAX_PLAYERS,
    MAX_SEATS,
    MIN_PLAYERS,
    MIN_SEATS,
    Break,
    Move,
    balance_plan,
    elimination_place,
    table_sizes,
)

logger = logging.getLogger(__name__)

NAME_MAX = 80
ANNOUNCEMENT_MAX = 500
MAX_SECONDS_BETWEEN_HANDS = 60.0
CAUSE_TOO_FEW, CAUSE_STAFF = Tournament.CancelCause.TOO_FEW, Tournament.CancelCause.STAFF
ELIMINATED_FOLLOW_DELAY = 3.0  # seconds the eliminated player sees the hand's result
# Who creates and runs tournaments: Django's permissions on Tournament, given to a user
# or a group in the admin (superusers hold them all). Moderators do not have them.
PERM_CREATE = "tournaments.add_tournament"
PERM_MANAGE = "tournaments.change_tournament"

R = TypeVar("R")


@dataclass(frozen=True)
class TournamentSettings:
    """What the staff chooses for a tournament (the create and edit forms, the admin)."""

    name: str
    starts_at: datetime
    description: str = ""
    min_players: int = MIN_PLAYERS
    max_players: int = 64
    seats_per_table: int = MAX_SEATS
    profile: str = "tournament"  # a key of games.engine.PROFILES
    max_actions: int = 500
    base_seconds: int = 180
    increment_seconds: int = 2
    bots_allowed: bool = False
    seconds_between_hands: float = 4.0

    def rules(self) -> Rules:
        """The profile's rules with the action limit; every hand produces a loser there."""
        return dataclasses.replace(
            PROFILES[self.profile].rules,
            max_actions=self.max_actions,
            max_actions_result="most_cards",
        )

    @classmethod
    def of(cls, tournament: Tournament) -> TournamentSettings:
        return cls(
            name=tournament.name,
            starts_at=tournament.starts_at,
            description=tournament.description,
            min_players=tournament.min_players,
            max_players=tournament.max_players,
            seats_per_table=tournament.seats_per_table,
            profile=tournament.profile,
            max_actions=tournament.rules.max_actions,
            base_seconds=tournament.base_seconds,
            increment_seconds=tournament.increment_seconds,
            bots_allowed=tournament.bots_allowed,
            seconds_between_hands=tournament.seconds_between_hands,
        )


@dataclass
class AdvanceReport:
    """What one ``tournament_advance`` did (for logs, tests and the benchmark)."""

    moved: int = 0  # players moved by balancing
    started: int = 0  # matches started (a table's seating changed, or after a PAN)
    dealt: int = 0  # next hands dealt
    closed: int = 0  # tables closed
    held: int = 0  # tables between hands kept waiting for a balancing step


# --- create, edit, register -------------------------------------------------------------


def tournament_create(
    *, by: User, settings: TournamentSettings, now: datetime | None = None
) -> Tournament:
    """Staff: create a tournament; registration is open until its start time, when a
    Celery task (and, as a safety net, the beat sweep) starts it."""
    now = now or timezone.now()
    _require(by, PERM_CREATE)
    tournament_settings_check(settings, now=now)
    with transaction.atomic():
        tournament = Tournament(created_by=by)
        _apply(tournament, settings)
        tournament.save()
        events.schedule_start_on_commit(tournament.pk, eta=tournament.starts_at)
    return tournament


def tournament_update(
    *, tournament_id: int, by: User, settings: TournamentSettings, now: datetime | None = None
) -> Tournament:
    """Staff: edit a tournament. Before the start everything may change; afterwards only
    the name and the description. Locks the tournament."""
    now = now or timezone.now()
    _require(by, PERM_MANAGE)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.SCHEDULED:
            current = TournamentSettings.of(tournament)
            others = dataclasses.replace(
                settings, name=current.name, description=current.description
            )
            if others != current:
                raise Refused(
                    _("Once the tournament has started only its name and description change.")
                )
            tournament_settings_check(settings, now=now, starts_at_checked=False)
        else:
            tournament_settings_check(settings, now=now)
            if tournament.entries.count() > settings.max_players:
                raise Refused(_("More players have registered than the new maximum."))
        moved_start = settings.starts_at != tournament.starts_at
        _apply(tournament, settings)
        tournament.save()
        if moved_start and tournament.status == Tournament.Status.SCHEDULED:
            events.schedule_start_on_commit(tournament.pk, eta=tournament.starts_at)
        events.tournament_changed_on_commit(tournament.pk)
    return tournament


def tournament_register(
    *, tournament_id: int, user: User, now: datetime | None = None
) -> TournamentEntry:
    """A user registers while registration is open (until the start) and there is room.

    Locks the tournament, so the maximum holds however many register at once.
    """
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_registration_open(tournament, now)
        if user.is_banned():
            raise Refused(_("A banned player cannot register."))
        if tournament.entries.filter(user=user).exists():
            raise Refused(_("You are already registered."))
        _require_room(tournament)
        entry = TournamentEntry.objects.create(
            tournament=tournament, user=user, display_name=user.username
        )
        events.tournament_changed_on_commit(tournament.pk)
    return entry


def tournament_register_bot(
    *, tournament_id: int, by: User, level: str, now: datetime | None = None
) -> TournamentEntry:
    """Staff: register a bot of ``level`` (only where the tournament allows bots)."""
    now = now or timezone.now()
    _require(by, PERM_MANAGE)
    if level not in BotLevel.values:
        raise Refused(_("Unknown bot level."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if not tournament.bots_allowed:
            raise Refused(_("Bots may not be registered in this tournament."))
        _require_registration_open(tournament, now)
        _require_room(tournament)
        taken = set(tournament.entries.values_list("display_name", flat=True))
        number = tournament.entries.filter(user__isnull=True).count() + 1
        while f"Bot {number}" in taken:
            number += 1
        entry = TournamentEntry.objects.create(
            tournament=tournament, bot_level=level, display_name=f"Bot {number}"
        )
        events.tournament_changed_on_commit(tournament.pk)
    return entry


def tournament_unregister(*, tournament_id: int, user: User, now: datetime | None = None) -> None:
    """A user withdraws before the start. Locks the tournament."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_registration_open(tournament, now)
        deleted, _rows = tournament.entries.filter(user=user).delete()
        if not deleted:
            raise Refused(_("You are not registered."))
        events.tournament_changed_on_commit(tournament.pk)


def tournament_announce(
    *, tournament_id: int, by: User, text: str, now: datetime | None = None
) -> TournamentAnnouncement:
    """Staff: post an announcement shown on the tournament page."""
    _require(by, PERM_MANAGE)
    text = " ".join((text or "").split())
    if not text:
        raise Refused(_("Write something first."))
    if len(text) > ANNOUNCEMENT_MAX:
        raise Refused(_("An announcement has at most %(n)d characters.") % {"n": ANNOUNCEMENT_MAX})
    with transaction.atomic():
        tournament = _locked(tournament_id)
        announcement = TournamentAnnouncement.objects.create(
            tournament=tournament, text=text, posted_by=by
        )
        events.tournament_changed_on_commit(tournament.pk)
    return announcement


# --- start ------------------------------------------------------------------------------


def tournament_start(
    *, tournament_id: int, by: User | None = None, now: datetime | None = None
) -> Tournament:
    """Start the tournament: at its start time (``by`` None: Celery), or at once (``by`` a
    staff member). Safe to repeat: only a scheduled tournament that is due starts.

    With fewer registrants than the minimum it is cancelled and they are told by e-mail.
    Otherwise the players sit at random at as few tables as hold them, as evenly as
    possible, and every table deals at once. Locks the tournament.
    """
    now = now or timezone.now()
    if by is not None:
        _require(by, PERM_MANAGE)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status != Tournament.Status.SCHEDULED:
            if by is not None:
                raise Refused(_("This tournament has already started."))
            return tournament
        if by is None and now < tournament.starts_at:
            return tournament
        entries = list(tournament.entries.select_related("user").order_by("pk"))
        if len(entries) < tournament.min_players:
            _cancel(tournament, now=now, cause=CAUSE_TOO_FEW)
            return tournament
        secrets.SystemRandom().shuffle(entries)
        links: list[TournamentTable] = []
        rest = iter(entries)
        rules = tournament.rules
        for number, size in enumerate(table_sizes(len(entries), tournament.seats_per_table), 1):
            table = games.tournament_table_create(
                owner=tournament.created_by,
                name=f"{tournament.name[:50]} #{number}",
                rules=rules,
                profile=tournament.profile,
                seats=tournament.seats_per_table,
                base_seconds=tournament.base_seconds,
                increment_seconds=tournament.increment_seconds,
            )
            link = TournamentTable.objects.create(tournament=tournament, table=table, number=number)
            links.append(link)
            for position in range(size):
                entry = next(rest)
                entry.table, entry.position = link, position
        TournamentEntry.objects.bulk_update(entries, ["table", "position"])
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = now
        tournament.save(update_fields=["status", "started_at"])
        for link in links:
            players = [_seated(e) for e in entries if e.table_id == link.pk]
            games.tournament_table_seat(table=link.table, players=players)
            if len(players) >= MIN_SEATS:
                games.tournament_match_start(table=link.table, players=players, now=now)
        for entry in entries:
            if entry.user_id:
                events.user_follow_on_commit(
                    entry.user_id, tournament.pk, kind=events.FOLLOW_SEATED
                )
        events.tournament_changed_on_commit(tournament.pk)
    return tournament


# --- hands, eliminations, the end -------------------------------------------------------


def on_hand_finished(
    sender: object, *, hand: Hand, now: datetime, managed: bool, **kwargs: object
) -> None:
    """``games.signals.hand_finished``: a hand at one of our tables is a tournament's."""
    if managed:
        tournament_hand_finished(hand=hand, now=now)


def tournament_hand_finished(*, hand: Hand, now: datetime) -> None:
    """A hand at a tournament table is over: its players' letters become their tournament
    letters, and a player who completes P-A-N is eliminated at once and leaves the table.

    Heard from ``games.signals.hand_finished`` inside the hand's transaction, with the hand
    and its match locked (and the match's letters updated); takes the tournament's lock.
    What the table does next (deal, balance, close) is left to ``tournament_advance``,
    scheduled after the pause between hands.
    """
    match = hand.match
    link = TournamentTable.objects.get(table_id=match.table_id)
    tournament = _locked(link.tournament_id)
    if not tournament.is_live:
        return
    letters = match.match_state.letters
    seat_of = dict(match.players.values_list("table_position", "seat"))
    eliminated = []
    for entry in link.entries.select_for_update().filter(eliminated_at__isnull=True):
        seat = seat_of.get(entry.position)
        if seat is None:
            continue
        if entry.letters != letters[seat]:
            entry.letters = letters[seat]
            entry.save(update_fields=["letters"])
        if entry.letters >= PAN:
            eliminated.append(entry)
    if eliminated:
        _eliminate(tournament, eliminated, now=now)
    events.tournament_changed_on_commit(tournament.pk)
    events.schedule_advance_on_commit(
        tournament.pk, countdown=0.0 if tournament.is_over else tournament.seconds_between_hands
    )


def _eliminate(
    tournament: Tournament,
    entries: list[TournamentEntry],
    *,
    now: datetime,
    disqualified: bool = False,
    reason: str = "",
) -> None:
    """Take ``entries`` out at ``now`` (tournament locked): they leave their seats; their
    place is one more than the players still in, shared by all eliminated at ``now``. With
    one player left, he wins and the tournament is over."""
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
    # Places follow the moments of elimination, not the order in which concurrent hands
    # took the lock: an elimination committed just before, at a later moment, is re-placed.
    moments = tournament.entries.filter(eliminated_at__gte=now).values_list(
        "eliminated_at", flat=True
    )
    for moment in sorted(set(moments)):
        after = tournament.entries.filter(
            Q(eliminated_at__isnull=True) | Q(eliminated_at__gt=moment)
        ).count()
        tournament.entries.filter(eliminated_at=moment).update(place=elimination_place(after))
    still_in = tournament.entries.filter(eliminated_at__isnull=True).count()
    if still_in <= 1:
        _finish(tournament, now=now)


def _finish(tournament: Tournament, *, now: datetime) -> None:
    """The last player in wins (place 1); the tables close in the next advance."""
    tournament.entries.filter(eliminated_at__isnull=True).update(place=1)
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.paused_at = None
    tournament.save(update_fields=["status", "finished_at", "paused_at"])
    events.schedule_advance_on_commit(tournament.pk)
    events.tournament_changed_on_commit(tournament.pk)


# --- balancing and dealing --------------------------------------------------------------


@dataclass
class _TableState:
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


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> AdvanceReport:
    """The next step at every table that is between hands; safe to repeat at any time.

    Takes the tournament's lock. First balancing, only between hands at the tables
    concerned: when the players left fit at one table fewer the smallest table breaks and
    its players fill the open seats, otherwise when two tables differ by two or more one
    player moves from the largest to the smallest (a step waits, its tables held, until
    all of them are between hands). Then every free table whose pause is over goes on:
    a new match when its players changed (each with his letters), else the next hand;
    a table left with one player waits for balancing, an empty one closes. A finished or
    cancelled tournament closes its tables.
    """
    now = now or timezone.now()
    report = AdvanceReport()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            return report
        if tournament.is_over:
            report.closed = _close_tables(tournament, now=now)
            return report
        if tournament.status != Tournament.Status.RUNNING:
            return report
        states = _table_states(tournament, now=now)
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
            report.moved += _execute(tournament, plan, by_key)
        next_ready: datetime | None = None
        for state in states:
            if not state.entries and not state.busy:
                _close_table(state, now=now)
                report.closed += 1
            elif state.link.pk in held and state.ready:
                report.held += 1
            elif state.busy:
                continue
            elif not state.ready:
                next_ready = min(next_ready or state.ready_at, state.ready_at)
            elif state.needs_new_match:
                report.started += _reseat(state, now=now)
            else:
                match = (
                    Match.objects.select_for_update().select_related("table").get(pk=state.match.pk)
                )
                report.dealt += games.tournament_hand_deal(match=match, now=now) is not None
        if next_ready is not None:
            events.schedule_advance_on_commit(
                tournament.pk, countdown=(next_ready - now).total_seconds() + 0.05
            )
        if report.moved or report.started or report.closed:
            events.tournament_changed_on_commit(tournament.pk)
    return report


def _table_states(tournament: Tournament, *, now: datetime) -> list[_TableState]:
    """Every open table of the tournament with its players, its match and its last hand."""
    links = list(tournament.tables.filter(closed_at__isnull=True).select_related("table"))
    seated: dict[int, list[TournamentEntry]] = defaultdict(list)
    for entry in tournament.entries.filter(
        eliminated_at__isnull=True, table__isnull=False
    ).select_related("user"):
        seated[entry.table_id].append(entry)
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
        state = _TableState(
            link=link,
            entries=sorted(seated.get(link.pk, []), key=lambda e: e.position),
            match=match,
            match_seating=frozenset(seating.get(match.pk, ())) if match else frozenset(),
            last_hand=hand,
            busy=busy,
            ready_at=idle_since + pause,
        )
        state.ready = not busy and state.ready_at <= now
        states.append(state)
    return states


def _execute(tournament: Tournament, plan: Break | Move, by_key: dict[int, _TableState]) -> int:
    """Carry out one balancing step between tables that are all between hands."""
    source = by_key[plan.source]
    if isinstance(plan, Move):
        movers = [secrets.choice(source.entries)]
        destinations = [plan.destination]
    else:
        movers = list(source.entries)
        secrets.SystemRandom().shuffle(movers)
        destinations = list(plan.destinations)
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
    return len(movers)


def _reseat(state: _TableState, *, now: datetime) -> int:
    """A table between hands whose players changed: its match ends, the seats are set,
    and with two players or more a new match starts with their letters. Returns 1 if a
    match started."""
    table = state.link.table
    if state.match is not None and state.match.status == Match.Status.PLAYING:
        games.tournament_match_close(
            match=Match.objects.select_for_update().get(pk=state.match.pk), now=now
        )
    players = [_seated(e) for e in state.entries]
    games.tournament_table_seat(table=table, players=players)
    if len(players) < MIN_SEATS:
        return 0  # alone at his table: he waits for balancing to bring him company
    games.tournament_match_start(table=table, players=players, now=now)
    return 1


def _close_table(state: _TableState, *, now: datetime) -> None:
    if state.match is not None and state.match.status == Match.Status.PLAYING:
        games.tournament_match_close(
            match=Match.objects.select_for_update().get(pk=state.match.pk), now=now
        )
    games.tournament_table_seat(table=state.link.table, players=[])
    games.tournament_table_close(table=state.link.table, now=now)
    state.link.closed_at = now
    state.link.save(update_fields=["closed_at"])


def _close_tables(tournament: Tournament, *, now: datetime) -> int:
    """A tournament that is over closes its tables (any still in a hand: later)."""
    closed = 0
    for state in _table_states(tournament, now=now):
        if state.busy:
            continue
        for entry in state.entries:
            entry.table, entry.position = None, None
            entry.save(update_fields=["table", "position"])
        state.entries = []
        _close_table(state, now=now)
        closed += 1
    if closed:
        events.tournament_changed_on_commit(tournament.pk)
    return closed


def _seated(entry: TournamentEntry) -> games.SeatedPlayer:
    return games.SeatedPlayer(
        position=entry.position,
        user=entry.user,
        bot_level=entry.bot_level,
        display_name=entry.display_name,
        letters=entry.letters,
    )


# --- staff: pause, resume, cancel, disqualify ------------------------------------------


def tournament_pause(*, tournament_id: int, by: User, now: datetime | None = None) -> Tournament:
    """Staff: stop every clock (each keeps the time left); no hand is dealt and no move,
    a bot's included, is accepted until the tournament resumes. Locks the hands in play
    (with their matches), then the tournament."""
    now = now or timezone.now()
    _require(by, PERM_MANAGE)

    def pause() -> Tournament:
        tournament, hands = _lock_hands_then_tournament(tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            raise Refused(_("Only a running tournament can be paused."))
        for hand in hands:
            games.tournament_clocks_stop(hand=hand, now=now)  # an overdue clock applies first
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.RUNNING:
            tournament.status = Tournament.Status.PAUSED
            tournament.paused_at = now
            tournament.save(update_fields=["status", "paused_at"])
        events.tournament_changed_on_commit(tournament.pk)
        return tournament

    return _retrying(pause)


def tournament_resume(*, tournament_id: int, by: User, now: datetime | None = None) -> Tournament:
    """Staff: every paused clock runs again from the time it had left; tables between
    hands go on. Locks the hands in play (with their matches), then the tournament."""
    now = now or timezone.now()
    _require(by, PERM_MANAGE)

    def resume() -> Tournament:
        tournament, hands = _lock_hands_then_tournament(tournament_id)
        if tournament.status != Tournament.Status.PAUSED:
            raise Refused(_("Only a paused tournament can be resumed."))
        tournament.status = Tournament.Status.RUNNING
        tournament.paused_at = None
        tournament.save(update_fields=["status", "paused_at"])
        for hand in hands:
            games.tournament_clocks_start(hand=hand, now=now)
        events.schedule_advance_on_commit(tournament.pk)
        events.tournament_changed_on_commit(tournament.pk)
        return tournament

    return _retrying(resume)


def tournament_cancel(
    *, tournament_id: int, by: User, reason: str = "", now: datetime | None = None
) -> Tournament:
    """Staff: call the tournament off, before or during play. Hands in play stop with no
    letter, the tables close, and the registered users are told by e-mail."""
    now = now or timezone.now()
    _require(by, PERM_MANAGE)

    def cancel() -> Tournament:
        tournament, hands = _lock_hands_then_tournament(tournament_id)
        if tournament.is_over:
            raise Refused(_("This tournament is already over."))
        for hand in hands:
            games.tournament_hand_stop(match=hand.match, now=now)
        _cancel(tournament, now=now, cause=CAUSE_STAFF, reason=reason)
        _close_tables(tournament, now=now)
        return tournament

    return _retrying(cancel)


def _cancel(tournament: Tournament, *, now: datetime, cause: str, reason: str = "") -> None:
    tournament.status = Tournament.Status.CANCELLED
    tournament.cancel_cause = cause
    tournament.cancel_reason = " ".join(reason.split())[:300]
    tournament.finished_at = now
    tournament.paused_at = None
    tournament.save(
        update_fields=["status", "cancel_cause", "cancel_reason", "finished_at", "paused_at"]
    )
    events.cancelled_mail_on_commit(tournament.pk)
    events.tournament_changed_on_commit(tournament.pk)


def tournament_disqualify(
    *,
    tournament_id: int,
    entry_id: int,
    by: User,
    reason: str = "",
    now: datetime | None = None,
) -> TournamentEntry:
    """Staff: a player is eliminated at once at the current place. A hand he is playing
    stops with no letter; his table goes on without him after the pause. Locks the hand
    in play at his table (with its match), then the tournament."""
    now = now or timezone.now()
    _require(by, PERM_MANAGE)

    def disqualify() -> TournamentEntry:
        seen = TournamentEntry.objects.filter(pk=entry_id, tournament_id=tournament_id).first()
        if seen is None:
            raise Refused(_("This player is not registered in the tournament."))
        link = seen.table
        tournament, hands = _lock_hands_then_tournament(
            tournament_id, table_ids=[link.table_id] if link else []
        )
        entry = TournamentEntry.objects.select_for_update().get(pk=entry_id)
        if entry.table_id != seen.table_id:
            raise _TryAgain  # balancing moved him meanwhile
        if not tournament.is_live:
            raise Refused(_("Only a player of a tournament in play can be disqualified."))
        if entry.eliminated_at is not None:
            raise Refused(_("This player is already out of the tournament."))
        for hand in hands:
            games.tournament_hand_stop(match=hand.match, now=now)
        _eliminate(tournament, [entry], now=now, disqualified=True, reason=reason[:300])
        events.tournament_changed_on_commit(tournament.pk)
        events.schedule_advance_on_commit(tournament.pk, countdown=tournament.seconds_between_hands)
        return entry

    return _retrying(disqualify)


class _TryAgain(Exception):
    """The hands in play changed between looking and locking: run the service again."""


def _hands_in_play(tournament_id: int, table_ids: list[int] | None = None) -> QuerySet[Hand]:
    hands = Hand.objects.filter(
        outcome__isnull=True,
        match__status=Match.Status.PLAYING,
        match__table__tournament_table__tournament_id=tournament_id,
        match__table__tournament_table__closed_at__isnull=True,
    )
    return hands if table_ids is None else hands.filter(match__table_id__in=table_ids)


def _lock_hands_then_tournament(
    tournament_id: int, *, table_ids: list[int] | None = None
) -> tuple[Tournament, list[Hand]]:
    """Lock the hands in play at the tournament's tables (or at ``table_ids``) with their
    matches, then the tournament: the order a finishing hand takes them in. A hand dealt
    in between is not locked: then ``_TryAgain``."""
    hands = list(
        _hands_in_play(tournament_id, table_ids)
        .select_related("match")
        .select_for_update(of=("self", "match"))
        .order_by("pk")
    )
    tournament = _locked(tournament_id)
    in_play = set(_hands_in_play(tournament_id, table_ids).values_list("pk", flat=True))
    if not in_play <= {hand.pk for hand in hands}:
        raise _TryAgain
    return tournament, [hand for hand in hands if hand.pk in in_play]


def _retrying(body: Callable[[], R], attempts: int = 20) -> R:
    for _attempt in range(attempts):
        try:
            with transaction.atomic():
                return body()
        except _TryAgain:
            continue
    raise Refused(_("The tournament is busy; try again in a moment."))


# --- checks -----------------------------------------------------------------------------


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise Refused(_("This tournament does not exist.")) from None


def _require(user: User | None, permission: str) -> None:
    """A permission, never is_staff: moderators are staff too (for the admin)."""
    if not may(user, permission):
        raise Refused(_("You do not have permission to do that."))


def _require_registration_open(tournament: Tournament, now: datetime) -> None:
    if tournament.status != Tournament.Status.SCHEDULED or now >= tournament.starts_at:
        raise Refused(_("Registration is closed."))


def _require_room(tournament: Tournament) -> None:
    if tournament.entries.count() >= tournament.max_players:
        raise Refused(_("The tournament is full."))


def tournament_settings_check(
    settings: TournamentSettings, *, now: datetime, starts_at_checked: bool = True
) -> None:
    """Refuse settings outside what the issue allows, with a reason the staff can read."""
    name = settings.name.strip()
    if not name or len(name) > NAME_MAX:
        raise Refused(_("A tournament needs a name of at most %(n)d characters.") % {"n": NAME_MAX})
    if starts_at_checked and settings.starts_at <= now:
        raise Refused(_("The start time must be in the future."))
    if not MIN_PLAYERS <= settings.min_players <= settings.max_players <= MAX_PLAYERS:
        raise Refused(
            _(
                "The minimum and maximum number of players must be between %(lo)d and"
                " %(hi)d, the minimum not above the maximum."
            )
            % {"lo": MIN_PLAYERS, "hi": MAX_PLAYERS}
        )
    if not MIN_SEATS <= settings.seats_per_table <= MAX_SEATS:
        raise Refused(_("A table has 2 to 4 seats."))
    if settings.profile not in PROFILES:
        raise Refused(_("Unknown rule profile."))
    if not MAX_ACTIONS_MIN <= settings.max_actions <= MAX_ACTIONS_MAX:
        raise Refused(
            _("The action limit must be between %(lo)d and %(hi)d.")
            % {"lo": MAX_ACTIONS_MIN, "hi": MAX_ACTIONS_MAX}
        )
    games.validate_time_control(settings.base_seconds, settings.increment_seconds)
    if not 0 <= settings.seconds_between_hands <= MAX_SECONDS_BETWEEN_HANDS:
        raise Refused(_("The pause between hands must be between 0 and 60 seconds."))
    rules = settings.rules()
    try:
        for players in range(MIN_SEATS, settings.seats_per_table + 1):
            rules.validate_for_players(players)
    except ValueError as exc:
        raise Refused(str(exc)) from exc


def _apply(tournament: Tournament, settings: TournamentSettings) -> None:
    tournament.name = settings.name.strip()
    tournament.description = settings.description.strip()
    tournament.starts_at = settings.starts_at
    tournament.min_players = settings.min_players
    tournament.max_players = settings.max_players
    tournament.seats_per_table = settings.seats_per_table
    tournament.profile = settings.profile
    tournament.rules_json = settings.rules().to_json()
    tournament.base_seconds = settings.base_seconds
    tournament.increment_seconds = settings.increment_seconds
    tournament.bots_allowed = settings.bots_allowed
    tournament.seconds_between_hands = settings.seconds_between_hands
