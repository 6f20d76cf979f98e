"""A tournament's life from creation to its end: create and edit, register and withdraw,
announcements, the start, each finished hand, and the steps between hands.

The rules of the format (how players sit, who goes out, when it is over) are the
format's (``tournaments.formats``); these services call it and keep the locks.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games.models import BotLevel, Hand
from tournaments import events, play
from tournaments.formats import AdvanceReport, format_of
from tournaments.models import (
    Format,
    Tournament,
    TournamentAnnouncement,
    TournamentEntry,
    TournamentTable,
)
from tournaments.services._common import (
    CAUSE_TOO_FEW,
    PERM_CREATE,
    PERM_MANAGE,
    TournamentSettings,
    _cancel,
    _locked,
    _require,
    tournament_settings_check,
)

ANNOUNCEMENT_MAX = 500


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
        if moved_start:
            tournament.reminded_at = None  # the players are reminded before the new start
        tournament.save()
        if moved_start and tournament.status == Tournament.Status.SCHEDULED:
            events.schedule_start_on_commit(tournament.pk, eta=tournament.starts_at)
        events.tournament_changed_on_commit(tournament.pk)
    return tournament


def tournament_register(
    *, tournament_id: int, user: User, now: datetime | None = None
) -> TournamentEntry:
    """A user registers while registration is open (until the start) and there is room.
    A bot account (it plays through the Bot API) registers only where the tournament
    allows bots.

    Locks the tournament, so the maximum holds however many register at once.
    """
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_registration_open(tournament, now)
        if user.is_banned():
            raise Refused(_("A banned player cannot register."))
        if user.is_fairplay_marked:
            raise Refused(_("An account marked for breaking fair play cannot register."))
        if user.is_bot_account and not tournament.bots_allowed:
            raise Refused(_("Bot accounts may not register in this tournament."))
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
        _fill_with_bots(tournament)
        entries = list(tournament.entries.select_related("user").order_by("pk"))
        # An arena starts with whoever is there: players join while it runs.
        if len(entries) < tournament.min_players and not tournament.is_arena:
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


def _require_registration_open(tournament: Tournament, now: datetime) -> None:
    if tournament.status != Tournament.Status.SCHEDULED or now >= tournament.starts_at:
        raise Refused(_("Registration is closed."))


def _require_room(tournament: Tournament) -> None:
    if tournament.entries.count() >= tournament.max_players:
        raise Refused(_("The tournament is full."))


def _fill_with_bots(tournament: Tournament) -> None:
    """Where the tournament fills with bots (a schedule's choice), bots of its level take
    the empty seats of the tables its players need, so every table is full (never beyond
    the maximum, at least to the minimum). Nobody is added to a tournament no player
    registered for: it is cancelled as too small."""
    if not tournament.fill_bot_level:
        return
    taken = set(tournament.entries.values_list("display_name", flat=True))
    if not taken:
        return
    seats = tournament.seats_per_table
    wanted = max(len(taken), tournament.min_players)
    wanted = min(-(-wanted // seats) * seats, tournament.max_players)
    number = 0
    for _seat in range(wanted - len(taken)):
        number += 1
        while f"Bot {number}" in taken:
            number += 1
        taken.add(f"Bot {number}")
        TournamentEntry.objects.create(
            tournament=tournament, bot_level=tournament.fill_bot_level, display_name=f"Bot {number}"
        )


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
    tournament.format = settings.format
    arena = settings.format == Format.ARENA
    tournament.minutes = settings.minutes if arena else None
    tournament.seats_min = settings.seats_min if arena else 0
    tournament.rated = settings.rated and arena
