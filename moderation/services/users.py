"""A moderator's actions on a user: ban and unban, mute and unmute, log out everywhere,
allow two linked accounts to play together (and take it back); and the site's own
limit, the automatic mute of a user who floods the chat.

Each locks the user row (then, for a ban, the tables he leaves, in games' order; for a
pair, both rows in the order of their ids).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import AllowedPair, User
from accounts.notices import PERMANENT
from accounts.permissions import PERM_BAN, PERM_MUTE
from core import broadcast
from core.errors import Refused
from games import services as games_services
from games.models import Seat, Table
from moderation.models import AuditLog
from moderation.services._common import (
    audit_record,
    clean_reason,
    locked_user,
    require_may_act_on,
    require_permission,
)

# Automatic limits: the third flood of the chat within FLOOD_WINDOW mutes for FLOOD_MUTE.
# A flood is one refusal episode: refusals within FLOOD_EPISODE of the first count once.
FLOODS_BEFORE_MUTE = 3
FLOOD_WINDOW = timedelta(minutes=5)
FLOOD_EPISODE = timedelta(seconds=10)
FLOOD_MUTE = timedelta(minutes=10)


def _until(until: datetime | None, now: datetime) -> datetime:
    """None means for good; a time must lie in the future."""
    if until is None:
        return PERMANENT
    if until <= now:
        raise Refused(_("The end must lie in the future."))
    return min(until, PERMANENT)


def _until_json(until: datetime) -> str | None:
    return None if until >= PERMANENT else until.isoformat()


def _end_sessions(user: User) -> int:
    """Delete every session of ``user`` (the session store's table); returns how many."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    ended = 0
    for session in store.get_model_class().objects.filter(expire_date__gt=timezone.now()):
        if session.get_decoded().get(SESSION_KEY) == str(user.pk):
            store().delete(session.session_key)
            ended += 1
    return ended


def _kick_on_commit(user_id: int, why: str) -> None:
    """Close every open socket of the user, after a notice saying why."""
    broadcast.user_event_on_commit(user_id, {"type": "user.kick", "why": why})


# --- bans, mutes, sessions ---------------------------------------------------------------------


def user_ban(
    *,
    by: User,
    user_id: int,
    reason: str,
    until: datetime | None = None,
    now: datetime | None = None,
) -> User:
    """Ban a user until ``until`` (None: for good). Locks the user row.

    His sessions end, his open sockets close with a notice, and he leaves his seats:
    at an open table the seat empties, during a match a bot takes it over.
    """
    now = now or timezone.now()
    require_permission(by, PERM_BAN)
    reason = clean_reason(reason, required=True)
    with transaction.atomic():
        target = locked_user(user_id)
        require_may_act_on(by, target)
        target.banned_until = _until(until, now)
        target.ban_reason = reason
        target.save(update_fields=["banned_until", "ban_reason"])
        sessions = _end_sessions(target)
        tables = _leave_every_seat(target)
        audit_record(
            actor=by,
            action=AuditLog.Action.BAN,
            target_user=target,
            reason=reason,
            details={
                "until": _until_json(target.banned_until),
                "sessions_ended": sessions,
                "tables_left": tables,
            },
        )
        _kick_on_commit(target.pk, "banned")
    return target


def _leave_every_seat(user: User) -> list[int]:
    """Stand the user up everywhere he may be stood up; the tables he left.

    A seat table_leave refuses (a tournament's: the tournament decides about absent
    players, a disqualification is its own action) stays as it is.
    """
    left = []
    table_ids = (
        Seat.objects.filter(user=user)
        .exclude(table__status=Table.Status.CLOSED)
        .values_list("table_id", flat=True)
    )
    for table_id in list(table_ids):
        try:
            games_services.table_leave(table_id=table_id, user=user)
        except Refused:
            continue
        left.append(table_id)
    return left


def user_unban(*, by: User, user_id: int, reason: str = "") -> User:
    """Lift a ban. Locks the user row."""
    return _lift(
        by=by,
        user_id=user_id,
        reason=reason,
        permission=PERM_BAN,
        fields=("banned_until", "ban_reason"),
        action=AuditLog.Action.UNBAN,
        in_force=User.is_banned,
        not_in_force=_("%(name)s is not banned."),
    )


def user_mute(
    *,
    by: User,
    user_id: int,
    reason: str,
    until: datetime | None = None,
    now: datetime | None = None,
) -> User:
    """Mute a user in every chat until ``until`` (None: for good). Locks the user row."""
    now = now or timezone.now()
    require_permission(by, PERM_MUTE)
    reason = clean_reason(reason, required=True)
    with transaction.atomic():
        target = locked_user(user_id)
        require_may_act_on(by, target)
        target.muted_until = _until(until, now)
        target.mute_reason = reason
        target.save(update_fields=["muted_until", "mute_reason"])
        audit_record(
            actor=by,
            action=AuditLog.Action.MUTE,
            target_user=target,
            reason=reason,
            details={"until": _until_json(target.muted_until)},
        )
        broadcast.user_event_on_commit(target.pk, {"type": "user.mute_changed"})
    return target


def user_unmute(*, by: User, user_id: int, reason: str = "") -> User:
    """Lift a mute. Locks the user row; the user's open pages drop the mute notice."""
    target = _lift(
        by=by,
        user_id=user_id,
        reason=reason,
        permission=PERM_MUTE,
        fields=("muted_until", "mute_reason"),
        action=AuditLog.Action.UNMUTE,
        in_force=User.is_muted,
        not_in_force=_("%(name)s is not muted."),
    )
    broadcast.user_event_on_commit(target.pk, {"type": "user.mute_changed"})
    return target


def _lift(
    *,
    by: User,
    user_id: int,
    reason: str,
    permission: str,
    fields: tuple[str, str],
    action: str,
    in_force: Callable[[User], bool],
    not_in_force: str,
) -> User:
    """Lift a ban or a mute: ``fields`` are its end and its reason on the user row."""
    require_permission(by, permission)
    reason = clean_reason(reason, required=False)
    with transaction.atomic():
        target = locked_user(user_id)
        require_may_act_on(by, target)
        if not in_force(target):
            raise Refused(not_in_force % {"name": target.username})
        until, why = fields
        setattr(target, until, None)
        setattr(target, why, "")
        target.save(update_fields=[until, why])
        audit_record(actor=by, action=action, target_user=target, reason=reason)
    return target


def user_logout_everywhere(*, by: User, user_id: int, reason: str = "") -> User:
    """End every session of a user and close his open sockets. Locks the user row."""
    require_permission(by, PERM_BAN)
    reason = clean_reason(reason, required=False)
    with transaction.atomic():
        target = locked_user(user_id)
        require_may_act_on(by, target)
        sessions = _end_sessions(target)
        audit_record(
            actor=by,
            action=AuditLog.Action.LOGOUT_EVERYWHERE,
            target_user=target,
            reason=reason,
            details={"sessions_ended": sessions},
        )
        _kick_on_commit(target.pk, "logged_out")
    return target


# --- linked accounts (fair play) ---------------------------------------------------------------


def user_pair_allow(*, by: User, user_id: int, other_id: int, reason: str) -> AllowedPair:
    """Allow two accounts that share a device or a connection to sit at one rated table,
    tournament table and arena game (a family at one computer). Locks both user rows."""
    require_permission(by, PERM_BAN)
    reason = clean_reason(reason, required=True)
    with transaction.atomic():
        first, second = _locked_pair(by, user_id, other_id)
        pair, created = AllowedPair.objects.get_or_create(
            user=first, other=second, defaults={"allowed_by": by}
        )
        if not created:
            raise Refused(
                _("%(one)s and %(other)s are already allowed to play together.")
                % {"one": first.username, "other": second.username}
            )
        _pair_audit(by, AuditLog.Action.PAIR_ALLOW, first, second, reason)
    return pair


def user_pair_disallow(*, by: User, user_id: int, other_id: int, reason: str = "") -> None:
    """Take back the allowance: the two accounts, while linked, are kept apart again.
    Locks both user rows."""
    require_permission(by, PERM_BAN)
    reason = clean_reason(reason, required=False)
    with transaction.atomic():
        first, second = _locked_pair(by, user_id, other_id)
        deleted, _kinds = AllowedPair.objects.filter(user=first, other=second).delete()
        if not deleted:
            raise Refused(
                _("%(one)s and %(other)s are not allowed to play together.")
                % {"one": first.username, "other": second.username}
            )
        _pair_audit(by, AuditLog.Action.PAIR_DISALLOW, first, second, reason)


def _locked_pair(by: User, user_id: int, other_id: int) -> tuple[User, User]:
    """Both users, locked, the lower id first (as ``AllowedPair`` keeps them)."""
    if user_id == other_id:
        raise Refused(_("Choose two different accounts."))
    first, second = (locked_user(pk) for pk in sorted((user_id, other_id)))
    for target in (first, second):
        require_may_act_on(by, target)
    return first, second


def _pair_audit(by: User, action: str, first: User, second: User, reason: str) -> None:
    """One entry, on the first account, naming the other (each one's page lists it)."""
    audit_record(
        actor=by,
        action=action,
        target_user=first,
        reason=reason,
        details={"other_id": second.pk, "other": second.username},
    )


# --- automatic limits --------------------------------------------------------------------------


def chat_flood_record(*, user_id: int, now: datetime | None = None) -> bool:
    """Count one refusal for writing too fast; the third flood in a few minutes mutes.

    Refusals within FLOOD_EPISODE of the flood they follow are that same flood. The
    floods are counted in the cache (approximate under races, which is enough here).
    Returns whether the user was muted now (see :func:`user_auto_mute`).
    """
    now = now or timezone.now()
    key = f"chat-floods:{user_id}"
    floods = [t for t in cache.get(key, []) if now.timestamp() - t < FLOOD_WINDOW.total_seconds()]
    if floods and now.timestamp() - floods[-1] < FLOOD_EPISODE.total_seconds():
        return False  # the same burst as the refusal before
    floods.append(now.timestamp())
    if len(floods) < FLOODS_BEFORE_MUTE:
        cache.set(key, floods, FLOOD_WINDOW.total_seconds())
        return False
    cache.delete(key)
    return user_auto_mute(user_id=user_id, now=now) is not None


def on_chat_flooded(sender: object, *, user_id: int, now: datetime, **kwargs: object) -> None:
    """``games.signals.chat_flooded``: games refused a message over the chat rate."""
    chat_flood_record(user_id=user_id, now=now)


def user_auto_mute(
    *, user_id: int, duration: timedelta = FLOOD_MUTE, now: datetime | None = None
) -> User | None:
    """The site mutes a flooding user (the audit entry has no actor). Locks the user row.

    Returns None if he is already muted for longer (nothing is changed then).
    """
    now = now or timezone.now()
    until = now + duration
    with transaction.atomic():
        target = locked_user(user_id)
        if target.muted_until is not None and target.muted_until >= until:
            return None
        target.muted_until = until
        target.mute_reason = _("flooding the chat")
        target.save(update_fields=["muted_until", "mute_reason"])
        audit_record(
            actor=None,
            action=AuditLog.Action.AUTO_MUTE,
            target_user=target,
            reason=target.mute_reason,
            details={"until": until.isoformat(), "minutes": int(duration.total_seconds() // 60)},
        )
        broadcast.user_event_on_commit(target.pk, {"type": "user.mute_changed"})
    return target
