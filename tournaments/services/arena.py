"""A player's own actions in an arena: join (before or during it), pause, come back,
withdraw, and Berserk.

Each locks the tournament (Berserk first the hand and its match, as a move does: hand,
match, tournament) and refuses with a message that changes nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games import services as games
from games.models import Hand, Match
from tournaments import events
from tournaments.formats.arena import start_rating
from tournaments.models import ArenaGame, ArenaPlayer, Tournament, TournamentEntry
from tournaments.services._common import _locked
from tournaments.services.lifecycle import tournament_register, tournament_unregister

__all__ = [
    "JOIN_CLOSES_AT",
    "arena_berserk",
    "arena_join",
    "arena_join_closes",
    "arena_pause",
    "arena_withdraw",
]

JOIN_CLOSES_AT = 0.9  # of the arena's length: nobody joins in its last tenth


def arena_join_closes(tournament: Tournament) -> datetime | None:
    """When joining a running arena stops (None before its start)."""
    if tournament.ends_at is None or not tournament.minutes:
        return None
    return tournament.ends_at - timedelta(minutes=tournament.minutes * (1 - JOIN_CLOSES_AT))


def arena_join(*, tournament_id: int, user: User, now: datetime | None = None) -> TournamentEntry:
    """Join an arena: registration before its start, and during it until its last tenth;
    a paused player comes back the same way. He is paired in the next wave."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_arena(tournament)
        if tournament.status == Tournament.Status.SCHEDULED:
            entry = tournament.entries.filter(user=user).first()
            if entry is not None and entry.paused:
                entry.paused = False
                entry.save(update_fields=["paused"])
                events.tournament_changed_on_commit(tournament.pk)
                return entry
    if tournament.status == Tournament.Status.SCHEDULED:
        return tournament_register(tournament_id=tournament_id, user=user, now=now)
    with transaction.atomic():
        tournament = _locked(tournament_id)
        closes = arena_join_closes(tournament)
        if tournament.status != Tournament.Status.RUNNING or closes is None or now >= closes:
            raise Refused(_("This arena takes no more players."))
        if user.is_banned():
            raise Refused(_("A banned player cannot register."))
        if user.is_fairplay_marked:
            raise Refused(_("An account marked for breaking fair play cannot register."))
        if user.is_bot_account and not tournament.bots_allowed:
            raise Refused(_("Bot accounts may not register in this tournament."))
        entry = tournament.entries.select_for_update().filter(user=user).first()
        if entry is not None:
            if entry.disqualified:
                raise Refused(_("You were disqualified from this arena."))
            if not entry.paused:
                raise Refused(_("You are already playing in this arena."))
            entry.paused = False
            if entry.table_id is None:
                entry.waiting_since = now
            entry.save(update_fields=["paused", "waiting_since"])
        else:
            if tournament.entries.count() >= tournament.max_players:
                raise Refused(_("The tournament is full."))
            entry = TournamentEntry(tournament=tournament, user=user, display_name=user.username)
            entry.start_rating = start_rating(tournament, entry)
            entry.waiting_since = now
            entry.save()
        events.tournament_changed_on_commit(tournament.pk)
        events.schedule_advance_on_commit(tournament.pk)
    return entry


def arena_pause(*, tournament_id: int, user: User, now: datetime | None = None) -> TournamentEntry:
    """Pause: not paired again (a game in play finishes and counts); points stay."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_arena(tournament)
        entry = _own_entry(tournament, user)
        if entry.paused:
            raise Refused(_("You are paused already."))
        entry.paused = True
        entry.waiting_since = None
        entry.save(update_fields=["paused", "waiting_since"])
        events.tournament_changed_on_commit(tournament.pk)
    return entry


def arena_withdraw(*, tournament_id: int, user: User, now: datetime | None = None) -> None:
    """Withdraw: before the start, the registration goes; during the arena, a player who
    has not played leaves the leaderboard, one who has keeps his points and is paused."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_arena(tournament)
    if tournament.status == Tournament.Status.SCHEDULED:
        tournament_unregister(tournament_id=tournament_id, user=user, now=now)
        return
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entry = _own_entry(tournament, user)
        if entry.games_played == 0 and entry.table_id is None:
            entry.delete()
        else:
            entry.paused = True
            entry.waiting_since = None
            entry.save(update_fields=["paused", "waiting_since"])
        events.tournament_changed_on_commit(tournament.pk)


def arena_berserk(*, tournament_id: int, user: User, now: datetime | None = None) -> ArenaPlayer:
    """Before his first action in a game a player halves his time and gives up the
    increment, for a point more if he is not last and makes at least 7 actions.

    Locks the game's hand and match, then the tournament (a move's order)."""
    now = now or timezone.now()
    seen = (
        ArenaPlayer.objects.filter(
            game__tournament_id=tournament_id,
            game__finished_at__isnull=True,
            entry__user=user,
        )
        .select_related("game")
        .first()
    )
    if seen is None:
        raise Refused(_("You are not playing a game of this arena."))
    with transaction.atomic():
        hand = (
            Hand.objects.select_for_update()
            .filter(match_id=seen.game.match_id)
            .order_by("-number")
            .first()
        )
        Match.objects.select_for_update().filter(pk=seen.game.match_id).first()
        tournament = _locked(tournament_id)
        game = ArenaGame.objects.get(pk=seen.game_id)
        part = ArenaPlayer.objects.select_for_update().get(pk=seen.pk)
        if game.finished_at is not None or hand is None or hand.is_over:
            raise Refused(_("This game is over."))
        if tournament.status != Tournament.Status.RUNNING or hand.deadline is None:
            raise Refused(_("Play is paused: the clocks are stopped."))
        if part.berserk:
            raise Refused(_("You have gone Berserk already."))
        if any(entry.seat == part.seat for entry in hand.engine_state.history):
            raise Refused(_("Berserk is only possible before your first action."))
        if not games.tournament_berserk(hand=hand, seat=part.seat, now=now):
            raise Refused(_("Your time ran out."))
        part.berserk = True
        part.save(update_fields=["berserk"])
        events.tournament_changed_on_commit(tournament.pk)
    return part


def _require_arena(tournament: Tournament) -> None:
    if not tournament.is_arena:
        raise Refused(_("This tournament is not an arena."))


def _own_entry(tournament: Tournament, user: User) -> TournamentEntry:
    entry = tournament.entries.select_for_update().filter(user=user).first()
    if entry is None:
        raise Refused(_("You are not registered."))
    return entry
