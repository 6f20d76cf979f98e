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
    """One person a user follows: whether he is online, and the table he plays at."""

    user: User
    online: bool
    table: Table | None  # where he sits in a match being played
    table_visible: bool  # the viewer may open that table (a private one may be hidden)


def is_following(*, follower: User, followed: User) -> bool:
    if not follower.is_authenticated:
        return False
    return Follow.objects.filter(follower=follower, followed=followed).exists()


def preferences_of(user: User) -> Preferences:
    """The user's preferences (the defaults, unsaved, for a user who never chose)."""
    return Preferences.objects.filter(user=user).first() or Preferences(user=user)


def friends(*, user: User, now: float) -> list[Friend]:
    """The people ``user`` follows, online ones first, each with the table he plays at
    (``now``: seconds since the epoch, for presence)."""
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
        Seat.objects.filter(user_id__in=ids, table__status=Table.Status.PLAYING)
        .select_related("table__owner")
        .order_by("-table__updated_at")
    )
    for seat in seats:
        tables.setdefault(seat.user_id, seat.table)
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
    clock = games_selectors.time_control_label(challenge.base_seconds, challenge.increment_seconds)
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
        "timeControl": {
            "type": "clock",
            "limit": challenge.base_seconds,
            "increment": challenge.increment_seconds,
            "show": games_selectors.time_control_label(
                challenge.base_seconds, challenge.increment_seconds
            ),
        },
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
