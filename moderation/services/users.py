"""Moderation: bans, mutes, reports, hidden chat, interventions at tables, the audit log.

One service per moderator action (DESIGN.md, house style 2). Each takes the moderator
as ``by``, checks his permission, runs in one transaction holding the row lock of what
it changes, writes exactly one :class:`AuditLog` entry in that transaction, and sends
its events after the commit. A missing permission raises ``PermissionDenied``; an
action that cannot be taken (nothing to do, bad input) raises ``core.errors.Refused``.
Both carry a message a moderator can read.

Lock order: the user row first, then a table's rows in the order games.services uses
(table, match, hand).

Who may do what: ``accounts.permissions`` (the permissions of the ``Moderators`` group).
Nobody but a superuser acts on a staff account, and nobody on his own.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.notices import PERMANENT
from accounts.permissions import (
    PERM_BAN,
    PERM_HIDE_CHAT,
    PERM_INTERVENE,
    PERM_MUTE,
    PERM_REPORTS,
    may,
)
from core import broadcast
from core.errors import Refused
from games import events
from games import services as games_services
from games.models import ChatMessage, Hand, Match, Seat, Table
from games.selectors import can_view_table
from moderation.models import AuditLog, Report

REASON_MAX = 500
REPORT_TEXT_MAX = 1000
REPORTS_PER_HOUR = 10
# Automatic limits: the third flood of the chat within FLOOD_WINDOW mutes for FLOOD_MUTE.
# A flood is one refusal episode: refusals within FLOOD_EPISODE of the first count once.
FLOODS_BEFORE_MUTE = 3
FLOOD_WINDOW = timedelta(minutes=5)
FLOOD_EPISODE = timedelta(seconds=10)
FLOOD_MUTE = timedelta(minutes=10)


# --- the audit log and the rules of who may act ---------------------------------------------


def audit_record(
    *,
    actor: User | None,
    action: str,
    target_user: User | None = None,
    table: Table | None = None,
    reason: str = "",
    details: dict[str, Any] | None = None,
) -> AuditLog:
    """Write one audit entry (``actor`` None: the site itself). Call it inside the
    transaction of the action it records, so that both commit or neither does.

    The floors below (games, tournaments) never call it: what they want recorded reaches
    moderation through a signal it connects in its ``ready()``, as the chat flood does.
    """
    return AuditLog.objects.create(
        actor=actor,
        action=action,
        target_user=target_user,
        table=table,
        reason=reason,
        details=details or {},
    )


def _require(by: User, permission: str) -> None:
    if not may(by, permission):
        raise PermissionDenied(_("You do not have permission to do that."))


def _require_may_act_on(by: User, target: User) -> None:
    if target.pk == by.pk:
        raise Refused(_("You cannot do that to your own account."))
    if (target.is_staff or target.is_superuser) and not by.is_superuser:
        raise PermissionDenied(_("Only a superuser can act on a staff account."))


def _clean_reason(reason: str, *, required: bool) -> str:
    reason = " ".join((reason or "").split())
    if required and not reason:
        raise Refused(_("Give a reason."))
    if len(reason) > REASON_MAX:
        raise Refused(_("A reason has at most %(n)d characters.") % {"n": REASON_MAX})
    return reason


def _locked_user(user_id: int) -> User:
    try:
        return User.objects.select_for_update().get(pk=user_id)
    except User.DoesNotExist:
        raise Refused(_("This user does not exist.")) from None


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
    _require(by, PERM_BAN)
    reason = _clean_reason(reason, required=True)
    with transaction.atomic():
        target = _locked_user(user_id)
        _require_may_act_on(by, target)
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
    _require(by, PERM_BAN)
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        target = _locked_user(user_id)
        _require_may_act_on(by, target)
        if not target.is_banned():
            raise Refused(_("%(name)s is not banned.") % {"name": target.username})
        target.banned_until = None
        target.ban_reason = ""
        target.save(update_fields=["banned_until", "ban_reason"])
        audit_record(actor=by, action=AuditLog.Action.UNBAN, target_user=target, reason=reason)
    return target


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
    _require(by, PERM_MUTE)
    reason = _clean_reason(reason, required=True)
    with transaction.atomic():
        target = _locked_user(user_id)
        _require_may_act_on(by, target)
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
    """Lift a mute. Locks the user row."""
    _require(by, PERM_MUTE)
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        target = _locked_user(user_id)
        _require_may_act_on(by, target)
        if not target.is_muted():
            raise Refused(_("%(name)s is not muted.") % {"name": target.username})
        target.muted_until = None
        target.mute_reason = ""
        target.save(update_fields=["muted_until", "mute_reason"])
        audit_record(actor=by, action=AuditLog.Action.UNMUTE, target_user=target, reason=reason)
        broadcast.user_event_on_commit(target.pk, {"type": "user.mute_changed"})
    return target


def user_logout_everywhere(*, by: User, user_id: int, reason: str = "") -> User:
    """End every session of a user and close his open sockets. Locks the user row."""
    _require(by, PERM_BAN)
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        target = _locked_user(user_id)
        _require_may_act_on(by, target)
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
        target = _locked_user(user_id)
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


# --- reports -----------------------------------------------------------------------------------


def report_create(
    *,
    by: User,
    reason: str,
    text: str = "",
    reported_user_id: int | None = None,
    chat_message_id: int | None = None,
    table_id: int | None = None,
    invited_tables: Collection[int] = (),
    now: datetime | None = None,
) -> Report:
    """A player reports another player, or one of his chat messages (which names both the
    author and the table). Refuses self-reports, repeats of an open report, more than
    REPORTS_PER_HOUR reports an hour, and a table (or its chat) that the reporter may not
    see (``invited_tables``: his session's invitations), as if it did not exist.
    A player's act: no audit entry.
    """
    now = now or timezone.now()
    if reason not in Report.Reason.values:
        raise Refused(_("Choose a reason."))
    text = (text or "").strip()
    if len(text) > REPORT_TEXT_MAX:
        raise Refused(_("A report has at most %(n)d characters.") % {"n": REPORT_TEXT_MAX})
    message = None
    if chat_message_id is not None:
        message = ChatMessage.objects.select_related("table").filter(pk=chat_message_id).first()
        if message is None or not can_view_table(message.table, by, invited_tables):
            raise Refused(_("This message does not exist."))
        reported_user_id, table_id = message.author_id, message.table_id
    reported = User.objects.filter(pk=reported_user_id).first() if reported_user_id else None
    if reported is None:
        raise Refused(_("This user does not exist."))
    if reported.pk == by.pk:
        raise Refused(_("You cannot report yourself."))
    table = Table.objects.filter(pk=table_id).first() if table_id else None
    if table_id and (table is None or not can_view_table(table, by, invited_tables)):
        raise Refused(_("This table does not exist."))
    with transaction.atomic():
        # The reporter's row serializes his reports: the checks below cannot race.
        User.objects.select_for_update().filter(pk=by.pk).first()
        mine = Report.objects.filter(reporter=by)
        if mine.filter(created_at__gte=now - timedelta(hours=1)).count() >= REPORTS_PER_HOUR:
            raise Refused(_("You have sent many reports in the last hour; wait a while."))
        same = mine.filter(status=Report.Status.OPEN, reported_user=reported, chat_message=message)
        if message is None:
            same = same.filter(table=table)
        if same.exists():
            raise Refused(_("You have already reported this; the moderators will look at it."))
        return Report.objects.create(
            reporter=by,
            reported_user=reported,
            chat_message=message,
            table=table,
            reason=reason,
            text=text,
        )


def report_resolve(*, by: User, report_id: int, action_taken: str) -> Report:
    """Close a report as resolved, saying what was done. The reporter is told on his next
    page view. Locks the report row."""
    return _report_close(
        by=by, report_id=report_id, status=Report.Status.RESOLVED, action_taken=action_taken
    )


def report_dismiss(*, by: User, report_id: int, action_taken: str = "") -> Report:
    """Close a report as dismissed (nothing to act on). Locks the report row."""
    return _report_close(
        by=by, report_id=report_id, status=Report.Status.DISMISSED, action_taken=action_taken
    )


def _report_close(*, by: User, report_id: int, status: str, action_taken: str) -> Report:
    _require(by, PERM_REPORTS)
    action_taken = _clean_reason(action_taken, required=status == Report.Status.RESOLVED)
    with transaction.atomic():
        report = Report.objects.select_for_update().filter(pk=report_id).first()
        if report is None:
            raise Refused(_("This report does not exist."))
        if report.status != Report.Status.OPEN:
            raise Refused(_("Report #%(id)d has already been handled.") % {"id": report.pk})
        report.status = status
        report.action_taken = action_taken
        report.handled_by = by
        report.handled_at = timezone.now()
        report.save(update_fields=["status", "action_taken", "handled_by", "handled_at"])
        audit_record(
            actor=by,
            action=(
                AuditLog.Action.REPORT_RESOLVE
                if status == Report.Status.RESOLVED
                else AuditLog.Action.REPORT_DISMISS
            ),
            target_user=report.reported_user,
            table=report.table,
            reason=action_taken,
            details={"report": report.pk, "reporter": report.reporter_id},
        )
    return report


def report_outcomes_deliver(*, user: User) -> list[Report]:
    """The user's handled reports he has not been told about yet, now marked as told.

    Locks those report rows (a report is told once, even with two pages loading at once).
    """
    untold = Report.objects.filter(reporter=user, reporter_notified_at__isnull=True).exclude(
        status=Report.Status.OPEN
    )
    if not untold.exists():  # the usual case, on every page view: no lock, no transaction
        return []
    with transaction.atomic():
        reports = list(
            untold.select_for_update(skip_locked=True, of=("self",)).select_related("reported_user")
        )
        if reports:
            Report.objects.filter(pk__in=[r.pk for r in reports]).update(
                reporter_notified_at=timezone.now()
            )
    return reports


# --- chat --------------------------------------------------------------------------------------


def chat_hide(*, by: User, message_id: int, reason: str = "") -> ChatMessage:
    """Hide a chat message; it disappears from every open page of its table at once.

    Locks the message row.
    """
    return _chat_set_hidden(by=by, message_id=message_id, reason=reason, hidden=True)


def chat_unhide(*, by: User, message_id: int, reason: str = "") -> ChatMessage:
    """Show a hidden chat message again (a moderator's mistake). Locks the message row."""
    return _chat_set_hidden(by=by, message_id=message_id, reason=reason, hidden=False)


def _chat_set_hidden(*, by: User, message_id: int, reason: str, hidden: bool) -> ChatMessage:
    _require(by, PERM_HIDE_CHAT)
    reason = _clean_reason(reason, required=False)
    with transaction.atomic():
        message = (
            ChatMessage.objects.select_for_update()
            .select_related("author", "table")
            .filter(pk=message_id)
            .first()
        )
        if message is None:
            raise Refused(_("This message does not exist."))
        if (message.hidden_at is not None) == hidden:
            raise Refused(
                _("This message is already hidden.") if hidden else _("This message is not hidden.")
            )
        message.hidden_at = timezone.now() if hidden else None
        message.hidden_by = by if hidden else None
        message.save(update_fields=["hidden_at", "hidden_by"])
        audit_record(
            actor=by,
            action=AuditLog.Action.CHAT_HIDE if hidden else AuditLog.Action.CHAT_UNHIDE,
            target_user=message.author,
            table=message.table,
            reason=reason,
            details={"message": message.pk, "text": message.text},
        )
        events.chat_changed_on_commit(message.table_id)
    return message


# --- games -------------------------------------------------------------------------------------


def hand_abort(*, by: User, table_id: int, reason: str, now: datetime | None = None) -> Hand:
    """Abort the hand in play at a table: nobody gets a letter, the match deals on.

    Locks the table, its match and the hand (games.services.hand_stop_without_letter).
    """
    _require(by, PERM_INTERVENE)
    reason = _clean_reason(reason, required=True)
    with transaction.atomic():
        hand = games_services.hand_stop_without_letter(table_id=table_id, now=now)
        audit_record(
            actor=by,
            action=AuditLog.Action.HAND_ABORT,
            table=hand.match.table,
            reason=reason,
            details={"match": hand.match_id, "hand": hand.pk, "number": hand.number},
        )
    return hand


def match_annul(*, by: User, match_id: int, reason: str, now: datetime | None = None) -> Match:
    """Annul a match, in play or finished: it no longer counts; a hand in play stops.

    Locks the table, the match and its hand (games.services.match_set_annulled).
    """
    _require(by, PERM_INTERVENE)
    reason = _clean_reason(reason, required=True)
    with transaction.atomic():
        match = games_services.match_set_annulled(match_id=match_id, now=now)
        audit_record(
            actor=by,
            action=AuditLog.Action.MATCH_ANNUL,
            table=match.table,
            reason=reason,
            details={
                "match": match.pk,
                "players": list(
                    match.players.exclude(user=None).values_list("user__username", flat=True)
                ),
            },
        )
    return match


def table_remove_player(*, by: User, table_id: int, user_id: int, reason: str) -> None:
    """Take a player out of his seat: at an open table it empties, during a match a bot
    takes over (games.services.table_leave). Locks the table and the seat.
    """
    _require(by, PERM_INTERVENE)
    reason = _clean_reason(reason, required=True)
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        target = User.objects.filter(pk=user_id).first()
        if table is None or target is None:
            raise Refused(_("This table or user does not exist."))
        if not table.seats.filter(user=target).exists():
            raise Refused(_("%(name)s has no seat at this table.") % {"name": target.username})
        games_services.table_leave(table_id=table.pk, user=target)
        audit_record(
            actor=by,
            action=AuditLog.Action.TABLE_REMOVE_PLAYER,
            target_user=target,
            table=table,
            reason=reason,
        )
        broadcast.user_event_on_commit(
            target.pk,
            {"type": "user.notice", "kind": "removed", "table": table.name, "reason": reason},
        )
