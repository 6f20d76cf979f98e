"""Reads of follows, preferences and challenges, as plain data for pages, sockets and the API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone, translation

from accounts.models import User
from games import selectors as games_selectors
from games.engine import PROFILES, Rules
from games.models import Seat, Table
from social import presence
from social.models import Challenge, Follow, Preferences


@dataclass(frozen=True)
class Friend:
    """One person a user follows: whether he is online, and the table he sits at."""

    user: User
    online: bool
    table: Table | None  # where he plays a match, or else waits for one to start
    table_visible: bool  # the viewer may open that table (a private one may be hidden)

    @property
    def waiting(self) -> bool:
        """He sits at a table whose match has not started."""
        return self.table is not None and self.table.status == Table.Status.OPEN


@dataclass(frozen=True)
class ProfileActions:
    """What a player's page offers its viewer: nothing to a visitor or on his own page;
    else follow or unfollow, and the challenge button unless the player takes challenges
    only from the people he follows and does not follow the viewer."""

    shown: bool
    following: bool
    may_challenge: bool


def is_following(*, follower: User, followed: User) -> bool:
    if not follower.is_authenticated:
        return False
    return Follow.objects.filter(follower=follower, followed=followed).exists()


def accepts_challenges_from(*, challenged: User, challenger: User) -> bool:
    """Whether ``challenged``'s preference lets ``challenger`` challenge him: anyone may,
    unless he takes challenges only from the people he follows."""
    followed_only = Preferences.objects.filter(
        user=challenged, challenges_from_followed_only=True
    ).exists()
    return not followed_only or is_following(follower=challenged, followed=challenger)


def profile_actions(*, viewer: User | None, player: User) -> ProfileActions:
    """The follow and challenge buttons ``player``'s page shows ``viewer``."""
    if viewer is None or not viewer.is_authenticated or viewer.pk == player.pk:
        return ProfileActions(shown=False, following=False, may_challenge=False)
    return ProfileActions(
        shown=True,
        following=is_following(follower=viewer, followed=player),
        may_challenge=accepts_challenges_from(challenged=player, challenger=viewer),
    )


def preferences_of(user: User) -> Preferences:
    """The user's preferences (the defaults, unsaved, for a user who never chose)."""
    return Preferences.objects.filter(user=user).first() or Preferences(user=user)


def friends(*, user: User, now: float) -> list[Friend]:
    """The people ``user`` follows, online ones first, each with the table he plays at, or
    else the one he waits at (``now``: seconds since the epoch, for presence)."""
    followed = [
        link.followed
        for link in Follow.objects.filter(follower=user, followed__is_active=True)
        .select_related("followed")
        .order_by("followed__username")
    ]
    ids = [f.pk for f in followed]
    online = presence.online_ids(ids, now=now)
    tables: dict[int, Table] = {}
    seats = (
        Seat.objects.filter(
            user_id__in=ids, table__status__in=[Table.Status.PLAYING, Table.Status.OPEN]
        )
        .select_related("table__owner")
        .order_by("-table__updated_at")
    )
    for seat in seats:
        # A match being played tells more than a table waiting for players.
        known = tables.get(seat.user_id)
        if known is None or (
            known.status == Table.Status.OPEN and seat.table.status == Table.Status.PLAYING
        ):
            tables[seat.user_id] = seat.table
    rows = []
    for person in followed:
        table = tables.get(person.pk)
        visible = table is not None and games_selectors.can_view_table(table, user, [])
        rows.append(Friend(person, person.pk in online, table, visible))
    return sorted(rows, key=lambda row: (not row.online, row.user.username.lower()))


def open_challenges_q(now: datetime) -> Q:
    return Q(status=Challenge.Status.CREATED, expires_at__gt=now)


def incoming_challenges(*, user: User, now: datetime | None = None) -> list[Challenge]:
    """Challenges to ``user`` still waiting for his answer, oldest first."""
    now = now or timezone.now()
    return list(
        Challenge.objects.filter(open_challenges_q(now), challenged=user)
        .select_related("challenger", "challenged")
        .order_by("created_at")
    )


def outgoing_challenges(*, user: User, now: datetime | None = None) -> list[Challenge]:
    """Challenges ``user`` sent that still wait for an answer, oldest first."""
    now = now or timezone.now()
    return list(
        Challenge.objects.filter(open_challenges_q(now), challenger=user)
        .select_related("challenger", "challenged")
        .order_by("created_at")
    )


def challenge_for(*, challenge_id: int, user: User) -> Challenge | None:
    """The challenge if ``user`` is one of its two players (nobody else sees it)."""
    if not user.is_authenticated:
        return None
    return (
        Challenge.objects.filter(Q(challenger=user) | Q(challenged=user), pk=challenge_id)
        .select_related("challenger", "challenged", "table")
        .first()
    )


def challenge_summary(challenge: Challenge) -> str:
    """Seats, rules, time control and rating in words, in the active language."""
    language = translation.get_language() or "en"
    rules = games_selectors.profile_name(challenge.profile, language)
    clock = games_selectors.time_control_label(
        challenge.base_seconds, challenge.increment_seconds, challenge.move_days
    )
    rated = (
        translation.pgettext("challenge", "rated")
        if challenge.rated
        else translation.pgettext("challenge", "casual")
    )
    seats = translation.ngettext("%(n)d seat", "%(n)d seats", challenge.seats) % {
        "n": challenge.seats
    }
    return f"{seats} · {rules} · {clock} · {rated}"


def challenge_rule_lines(challenge: Challenge) -> list[games_selectors.RuleLine]:
    """The options of the challenge's rule profile in words, each linked to /rules/."""
    profile = PROFILES.get(challenge.profile)
    return games_selectors.rules_summary(profile.rules if profile else Rules())


def _time_control_json(challenge: Challenge) -> dict[str, Any]:
    """Minutes per hand, or days per move, as lichess gives a challenge's time control."""
    show = games_selectors.time_control_label(
        challenge.base_seconds, challenge.increment_seconds, challenge.move_days
    )
    if challenge.move_days:
        return {"type": "correspondence", "daysPerTurn": challenge.move_days, "show": show}
    return {
        "type": "clock",
        "limit": challenge.base_seconds,
        "increment": challenge.increment_seconds,
        "show": show,
    }


def challenge_json(challenge: Challenge, *, now: datetime | None = None) -> dict[str, Any]:
    """A challenge as the API and its event stream give it (modelled on lichess's). With
    ``now`` an open challenge past its time reads as expired; without, as stored."""
    status = challenge.status_at(now) if now is not None else challenge.status
    data: dict[str, Any] = {
        "id": challenge.pk,
        "url": challenge.get_absolute_url(),
        "status": status,
        "challenger": _player_json(challenge.challenger),
        "destUser": _player_json(challenge.challenged),
        "seats": challenge.seats,
        "rules": challenge.profile,
        "rated": challenge.rated,
        "timeControl": _time_control_json(challenge),
        "createdAt": _millis(challenge.created_at),
        "expiresAt": _millis(challenge.expires_at),
        "tableId": challenge.table_id,
    }
    if status == Challenge.Status.DECLINED:
        data["declineReasonKey"] = challenge.decline_reason
        with translation.override("en"):
            data["declineReason"] = str(challenge.get_decline_reason_display())
    return data


def _player_json(user: User) -> dict[str, Any]:
    return {"id": user.pk, "name": user.username}


def _millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def open_challenge_lines(user: User) -> list[dict[str, Any]]:
    """The ``challenge`` lines an API event stream opens with: every open challenge to or
    from ``user``, oldest first."""
    now = timezone.now()
    challenges = (
        Challenge.objects.filter(open_challenges_q(now))
        .filter(Q(challenged=user) | Q(challenger=user))
        .select_related("challenger", "challenged")
        .order_by("created_at")
    )
    return [{"type": "challenge", "challenge": challenge_json(c, now=now)} for c in challenges]
