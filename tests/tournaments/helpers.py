"""Small builders for tournament tests: real rows through the real services."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import Permission
from django.db.models import Max
from django.utils import timezone

from accounts.models import User
from games import services as games
from games.models import Hand, Match
from tests.factories import make_user
from tournaments import services
from tournaments.models import Tournament, TournamentEntry
from tournaments.services import TournamentSettings


def make_staff(username: str | None = None) -> User:
    """A staff user who runs tournaments: he holds the tournament permissions."""
    user = make_user(username, is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="tournaments",
            codename__in=["add_tournament", "change_tournament"],
        )
    )
    return user


def make_tournament(
    *,
    bots: int = 0,
    users: list[User] | None = None,
    by: User | None = None,
    starts_in: float = 3600,
    **settings: object,
) -> Tournament:
    """A scheduled tournament with ``bots`` random bots and ``users`` registered."""
    by = by or make_staff()
    settings.setdefault("bots_allowed", True)
    settings.setdefault("seconds_between_hands", 0.0)
    tournament = services.tournament_create(
        by=by,
        settings=TournamentSettings(
            name=str(settings.pop("name", "Test cup")),
            starts_at=timezone.now() + timedelta(seconds=starts_in),
            **settings,
        ),
    )
    for _ in range(bots):
        services.tournament_register_bot(tournament_id=tournament.pk, by=by, level="random")
    for user in users or []:
        services.tournament_register(tournament_id=tournament.pk, user=user)
    return tournament


def started(tournament: Tournament, *, letters: int = 0) -> Tournament:
    """Start now (as the staff would); every entry first carries ``letters``."""
    if letters:
        tournament.entries.update(letters=letters)
    return services.tournament_start(tournament_id=tournament.pk, by=tournament.created_by)


def hands_in_play(tournament: Tournament) -> list[Hand]:
    return list(
        Hand.objects.filter(
            match__table__tournament_table__tournament=tournament, outcome__isnull=True
        )
        .select_related("match")
        .order_by("match__table__tournament_table__number")
    )


def hand_at(tournament: Tournament, number: int) -> Hand | None:
    """The hand in play at table ``number``, if any."""
    return next(
        (h for h in hands_in_play(tournament) if h.match.table.tournament_table.number == number),
        None,
    )


def time_out(hand: Hand, *, now: datetime | None = None) -> int:
    """The player to move runs out of time: he loses the hand. Returns his engine seat."""
    hand.refresh_from_db()
    seat = hand.engine_state.to_move
    applied = games.execute(
        games.Timeout(hand_id=hand.pk), now=now or hand.deadline + timedelta(seconds=1)
    )
    assert applied
    return seat


def entry_to_move(hand: Hand) -> TournamentEntry:
    hand.refresh_from_db()
    player = hand.match.players.get(seat=hand.engine_state.to_move)
    link = hand.match.table.tournament_table
    return link.entries.get(position=player.table_position)


def after_the_pause(tournament: Tournament) -> datetime:
    """A moment when the pause after every hand finished so far is over."""
    last = (
        Hand.objects.filter(match__table__tournament_table__tournament=tournament)
        .exclude(finished_at=None)
        .aggregate(last=Max("finished_at"))["last"]
    )
    now = max(timezone.now(), last or timezone.now())
    tournament.refresh_from_db()
    return now + timedelta(seconds=tournament.seconds_between_hands + 1)


def advance(tournament: Tournament) -> services.AdvanceReport:
    """One advance as if the pause between hands were over everywhere."""
    return services.tournament_advance(tournament_id=tournament.pk, now=after_the_pause(tournament))


def seating(tournament: Tournament) -> dict[int, int]:
    """Players in at each open table, by table number."""
    counts: dict[int, int] = {}
    for link in tournament.tables.filter(closed_at__isnull=True):
        counts[link.number] = link.entries.filter(eliminated_at__isnull=True).count()
    return counts


def give_letters(tournament: Tournament, number: int, letters: int) -> None:
    """Test setup: everyone at table ``number`` carries ``letters`` (entries and match)."""
    link = tournament.tables.get(number=number)
    link.entries.update(letters=letters)
    match = link.table.matches.order_by("-pk").first()
    state = dict(match.state)
    state["letters"] = [letters] * state["players"]
    Match.objects.filter(pk=match.pk).update(state=state)
