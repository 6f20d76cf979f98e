"""What every tournament service shares: the settings the staff chooses and their check,
the permissions, the tournament's row lock, and the cancellation both the start (too few
players) and the staff (``tournament_cancel``) end a tournament with.

The lowest module of ``tournaments.services``: ``lifecycle`` and ``staff`` import it, it
imports neither.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import may
from core.errors import Refused
from games import services as games
from games.engine import PROFILES, Rules
from games.engine.rules import MAX_ACTIONS_MAX, MAX_ACTIONS_MIN
from tournaments import events
from tournaments.models import ARENA_MINUTES_MAX, ARENA_MINUTES_MIN, Format, Tournament
from tournaments.seating import MAX_PLAYERS, MAX_SEATS, MIN_PLAYERS, MIN_SEATS

NAME_MAX = 80
MAX_SECONDS_BETWEEN_HANDS = 60.0
CAUSE_TOO_FEW, CAUSE_STAFF = Tournament.CancelCause.TOO_FEW, Tournament.CancelCause.STAFF
ELIMINATED_FOLLOW_DELAY = 3.0  # seconds the eliminated player sees the hand's result
# Who creates and runs tournaments: Django's permissions on Tournament, given to a user
# or a group in the admin (superusers hold them all). Moderators do not have them.
PERM_CREATE = "tournaments.add_tournament"
PERM_MANAGE = "tournaments.change_tournament"


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
    # An arena's: its length, its smallest table (0: all of ``seats_per_table``), rated.
    format: str = Format.ELIMINATION
    minutes: int | None = None
    seats_min: int = 0
    rated: bool = False

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
            format=tournament.format,
            minutes=tournament.minutes,
            seats_min=tournament.seats_min,
            rated=tournament.rated,
        )


# --- checks -----------------------------------------------------------------------------


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
    if settings.format not in Format.values:
        raise Refused(_("Unknown tournament format."))
    if settings.format == Format.ARENA:
        _arena_check(settings)
    rules = settings.rules()
    try:
        for players in range(MIN_SEATS, settings.seats_per_table + 1):
            rules.validate_for_players(players)
    except ValueError as exc:
        raise Refused(str(exc)) from exc


def _arena_check(settings: TournamentSettings) -> None:
    minutes = settings.minutes or 0
    if not ARENA_MINUTES_MIN <= minutes <= ARENA_MINUTES_MAX:
        raise Refused(
            _("An arena lasts %(lo)d to %(hi)d minutes.")
            % {"lo": ARENA_MINUTES_MIN, "hi": ARENA_MINUTES_MAX}
        )
    smallest = settings.seats_min or settings.seats_per_table
    if not MIN_SEATS <= smallest <= settings.seats_per_table or settings.seats_per_table < 3:
        raise Refused(_("An arena's tables have 3 or 4 seats, 3 to 4, or 2 to 4."))


def _locked(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise Refused(_("This tournament does not exist.")) from None


def _require(user: User | None, permission: str) -> None:
    """A permission, never is_staff: moderators are staff too (for the admin)."""
    if not may(user, permission):
        raise Refused(_("You do not have permission to do that."))


# --- the end of a tournament that never finished ---------------------------------------


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
