"""Every change of state of a tournament: one function per action (DESIGN.md).

Each service runs in one transaction and says which locks it takes; a refusal raises
``core.errors.Refused`` and changes nothing. Broadcasts, tasks and mail leave after
the commit (``tournaments.events``). Everything a tournament knows lives in the
database (entries, their letters and tables, the games rows), and every step is
derived from it again, so each step is safe to repeat and a restarted worker loses
nothing.

The rules of the tournament's format (how players sit, who goes out, what the tables do
between hands, when it is over) are not here: the services call the format through
``tournaments.formats.TournamentFormat``, and the format works on the rows through
``tournaments.play``.

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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import may
from core.errors import Refused
from games import services as games
from games.engine import PROFILES, Rules
from games.engine.rules import MAX_ACTIONS_MAX, MAX_ACTIONS_MIN
from games.models import BotLevel, Hand, Match
from tournaments import events, play
from tournaments.formats import AdvanceReport, format_of
from tournaments.models import (
    Tournament,
    TournamentAnnouncement,
    TournamentEntry,
    TournamentTable,
)
from tournaments.seating import MAX_PLAYERS, MAX_SEATS, MIN_PLAYERS, MIN_SEATS

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
    Otherwise it runs, and its format seats the players and starts play (the rolling
    elimination: at random at as few tables as hold them, as evenly as possible, every
    table dealing at once). Locks the tournament.
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
        tournament.status = Tournament.Status.RUNNING
        tournament.started_at = now
        tournament.save(update_fields=["status", "started_at"])
        format_of(tournament).start(tournament, entries, now=now)
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
    """A hand at a tournament table is over: the tournament's format carries its result
    (the rolling elimination: its players' letters become their tournament letters, and
    a player who completes P-A-N is eliminated at once and leaves the table).

    Heard from ``games.signals.hand_finished`` inside the hand's transaction, with the hand
    and its match locked (and the match's letters updated); takes the tournament's lock.
    What the table does next (deal, balance, close) is left to ``tournament_advance``,
    scheduled after the pause between hands.
    """
    link = TournamentTable.objects.get(table_id=hand.match.table_id)
    tournament = _locked(link.tournament_id)
    if not tournament.is_live:
        return
    format_of(tournament).hand_finished(tournament, table=link, hand=hand, now=now)
    events.tournament_changed_on_commit(tournament.pk)
    events.schedule_advance_on_commit(
        tournament.pk, countdown=0.0 if tournament.is_over else tournament.seconds_between_hands
    )


# --- between hands ----------------------------------------------------------------------


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> AdvanceReport:
    """The next step at every table that is between hands; safe to repeat at any time.

    Takes the tournament's lock. A running tournament's format decides the step (the
    rolling elimination: balancing, only between hands at the tables concerned; then
    every free table whose pause is over starts a new match when its players changed,
    else deals the next hand). A finished or cancelled tournament closes its tables.
    """
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            return AdvanceReport()
        if tournament.is_over:
            return AdvanceReport(closed=play.close_tables(tournament, now=now))
        if tournament.status != Tournament.Status.RUNNING:
            return AdvanceReport()
        report = format_of(tournament).advance(tournament, now=now)
        if report.moved or report.started or report.closed:
            events.tournament_changed_on_commit(tournament.pk)
    return report


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
        play.close_tables(tournament, now=now)
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
        format_of(tournament).disqualify(tournament, entry, now=now, reason=reason[:300])
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
