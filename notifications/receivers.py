"""The events of the floors below that become notices, connected in ``ready()``.

Each receiver raises its notice with a key naming the event, so an event told twice (a
retried task, two processes) is stored once. The signals sent inside a transaction
(challenges, the audit log, tournaments, the end of a match) raise their notice in it:
it is stored if and only if the change commits.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models.signals import post_save
from django.urls import reverse

from accounts.models import User
from games import selectors as games_selectors
from games import signals as games_signals
from games.models import Match, Table
from moderation.models import AuditLog
from notifications.models import Kind
from notifications.services import (
    notification_mail_cancel,
    notification_raise,
    notifications_withdraw,
)
from social.models import Challenge, Follow
from tournaments import events as tournament_events
from tournaments.models import Tournament, TournamentEntry
from tournaments.signals import player_followed

logger = logging.getLogger(__name__)

# What a moderator did that its target is told of.
MODERATION_TOLD = {
    AuditLog.Action.BAN,
    AuditLog.Action.UNBAN,
    AuditLog.Action.MUTE,
    AuditLog.Action.UNMUTE,
    AuditLog.Action.AUTO_MUTE,
    AuditLog.Action.MATCH_ANNUL,
    AuditLog.Action.TABLE_REMOVE_PLAYER,
    AuditLog.Action.TOURNAMENT_DISQUALIFY,
    AuditLog.Action.FAIRPLAY_WARN,
    AuditLog.Action.FAIRPLAY_MARK,
    AuditLog.Action.FAIRPLAY_UPHOLD,
    AuditLog.Action.FAIRPLAY_LIFT,
}
# Where the notice leads: a marked player to his appeal, anyone else to his settings.
MODERATION_LINKS = {
    AuditLog.Action.FAIRPLAY_MARK: "fairplay:appeal",
    AuditLog.Action.FAIRPLAY_UPHOLD: "fairplay:appeal",
}


def connect() -> None:
    games_signals.correspondence_turn.connect(on_correspondence_turn, dispatch_uid="notify-turn")
    games_signals.correspondence_changed.connect(
        on_correspondence_changed, dispatch_uid="notify-turn-over"
    )
    games_signals.match_finished.connect(on_match_finished, dispatch_uid="notify-match-end")
    post_save.connect(on_challenge_saved, sender=Challenge, dispatch_uid="notify-challenge")
    post_save.connect(on_audit_saved, sender=AuditLog, dispatch_uid="notify-moderation")
    player_followed.connect(on_player_followed, dispatch_uid="notify-tournament")


def _table_params(table: Table) -> dict[str, str]:
    return {"table_name": table.name, "owner": table.owner.username}


def on_correspondence_turn(
    sender: object, *, table_id: int, hand_id: int, user_id: int, deadline: datetime, **kw: Any
) -> None:
    table = Table.objects.select_related("owner").get(pk=table_id)
    notification_raise(
        owner_id=user_id,
        kind=Kind.YOUR_TURN,
        key=_turn_key(hand_id, deadline),
        params={**_table_params(table), "deadline": deadline.isoformat()},
        link=table.get_absolute_url(),
        subject=f"table:{table_id}",
    )


def _turn_key(hand_id: int, deadline: datetime) -> str:
    """The notice of the turn on ``hand_id`` that runs out at ``deadline``."""
    return f"turn:{hand_id}:{deadline.isoformat()}"


def on_correspondence_changed(
    sender: object,
    *,
    hand_id: int,
    user_ids: list[int],
    turn: tuple[int, datetime] | None,
    **kw: Any,
) -> None:
    """A turn that passed is no news: its notice leaves the bell's count (read) and is
    not mailed, so that nobody is asked by e-mail for a move he has made (or that the
    clock made for him, or in a hand that is over)."""
    notifications_withdraw(
        owner_ids=user_ids,
        kind=Kind.YOUR_TURN,
        key_prefix=f"turn:{hand_id}:",
        keep=None if turn is None else (turn[0], _turn_key(hand_id, turn[1])),
    )


def on_match_finished(sender: object, *, match: Match, now: datetime, **kw: Any) -> None:
    """Each player of the match who had no page of its table open hears how it ended."""
    table = Table.objects.select_related("owner").get(pk=match.table_id)
    players = [
        p.user_id
        for p in match.players.select_related("user")
        if p.user_id is not None and not p.user.is_bot_account
    ]
    try:
        present = cache.get_many([games_selectors.presence_key(table.pk, uid) for uid in players])
    except Exception:  # presence is a nicety: a cache outage must not undo the match's end
        logger.warning("presence unknown at table %s: nobody told of its end", table.pk)
        return
    for user_id in players:
        if games_selectors.presence_key(table.pk, user_id) in present:
            continue
        notification_raise(
            owner_id=user_id,
            kind=Kind.MATCH_ENDED,
            key=f"match:{match.pk}:ended",
            params=_table_params(table),
            link=table.get_absolute_url(),
            subject=f"table:{table.pk}",
            now=now,
        )


def on_challenge_saved(sender: object, *, instance: Challenge, created: bool, **kw: Any) -> None:
    link = reverse("social:challenge", kwargs={"challenge_id": instance.pk})
    if created:
        notification_raise(
            owner_id=instance.challenged_id,
            kind=Kind.CHALLENGED,
            key=f"challenge:{instance.pk}",
            params={"name": instance.challenger.username},
            link=link,
            subject=f"challenge:{instance.pk}",
        )
        return
    # Answered, cancelled or expired: no e-mail about it to the challenged any more.
    notification_mail_cancel(owner_id=instance.challenged_id, key=f"challenge:{instance.pk}")
    if instance.status in (Challenge.Status.ACCEPTED, Challenge.Status.DECLINED):
        accepted = instance.status == Challenge.Status.ACCEPTED
        notification_raise(
            owner_id=instance.challenger_id,
            kind=Kind.CHALLENGE_ANSWERED,
            key=f"challenge:{instance.pk}:answer",
            params={"name": instance.challenged.username, "accepted": accepted},
            link=instance.table.get_absolute_url() if accepted and instance.table else link,
            subject=f"challenge:{instance.pk}",
        )


def on_audit_saved(sender: object, *, instance: AuditLog, created: bool, **kw: Any) -> None:
    if not created or instance.target_user_id is None or instance.action not in MODERATION_TOLD:
        return
    notification_raise(
        owner_id=instance.target_user_id,
        kind=Kind.MODERATION,
        key=f"audit:{instance.pk}",
        params={"action": instance.action, "reason": instance.reason},
        link=reverse(MODERATION_LINKS.get(instance.action, "accounts:settings")),
    )
    if instance.action == AuditLog.Action.FAIRPLAY_MARK:
        _tell_refunds(instance)


def _tell_refunds(mark: AuditLog) -> None:
    """Each player given rating back by a fair play mark hears how much, in which speed
    (never whose account it was), with a link to his profile, where it is listed."""
    lines = mark.details.get("refunds", [])
    names = dict(
        User.objects.filter(pk__in={line["user_id"] for line in lines}).values_list(
            "pk", "username"
        )
    )
    for line in lines:
        if line["user_id"] not in names:
            continue
        notification_raise(
            owner_id=line["user_id"],
            kind=Kind.RATING_REFUNDED,
            key=f"refund:{mark.pk}:{line['speed']}",
            params={"points": line["points"], "speed": line["speed"]},
            link=reverse("profile", kwargs={"username": names[line["user_id"]]}),
        )


def on_player_followed(
    sender: object, *, user_id: int, tournament_id: int, kind: str, **kw: Any
) -> None:
    tournament = Tournament.objects.get(pk=tournament_id)
    params = {"tournament": tournament.name}
    to_table = reverse("tournaments:follow", kwargs={"tournament_id": tournament_id})
    if kind == tournament_events.FOLLOW_REMINDER:
        notification_raise(
            owner_id=user_id,
            kind=Kind.TOURNAMENT_STARTS,
            key=f"tournament:{tournament_id}:starts",
            params=params,
            link=tournament.get_absolute_url(),
        )
    elif kind == tournament_events.FOLLOW_MOVED:
        notification_raise(
            owner_id=user_id,
            kind=Kind.TOURNAMENT_MOVED,
            key=f"tournament:{tournament_id}:moved:{_moves(user_id, tournament_id)}",
            params=params,
            link=to_table,
        )
    elif kind == tournament_events.FOLLOW_SEATED:
        followers = Follow.objects.filter(followed_id=user_id).select_related("followed")
        for follow in followers:
            notification_raise(
                owner_id=follow.follower_id,
                kind=Kind.FOLLOWED_PLAYS,
                key=f"tournament:{tournament_id}:seated:{user_id}",
                params={**params, "name": follow.followed.username},
                link=tournament.get_absolute_url(),
            )


def _moves(user_id: int, tournament_id: int) -> str:
    """A name for this move of the player: the table he was moved to."""
    entry = TournamentEntry.objects.filter(tournament_id=tournament_id, user_id=user_id).first()
    return str(entry.table_id) if entry is not None else ""
