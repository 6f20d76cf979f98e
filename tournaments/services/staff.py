"""The staff's interventions in a tournament under way: pause, resume, cancel, disqualify.

Each stops or restarts hands in play, so each locks those hands with their matches before
the tournament's row, the order a finishing hand takes them in, and runs again if a hand
was dealt between looking and locking (``_lock_hands_then_tournament``, ``_retrying``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games import services as games
from games.models import Hand, Match
from tournaments import events, play
from tournaments.formats import format_of
from tournaments.models import Tournament, TournamentEntry
from tournaments.services._common import CAUSE_STAFF, PERM_MANAGE, _cancel, _locked, _require

R = TypeVar("R")


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
    return _disqualify(tournament_id=tournament_id, entry_id=entry_id, reason=reason, now=now)


def _disqualify(
    *, tournament_id: int, entry_id: int, reason: str, now: datetime
) -> TournamentEntry:
    """``tournament_disqualify`` once its caller may: the staff, or a moderator marking
    the player's account for breaking fair play (``tournaments.services.fairplay``)."""

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
