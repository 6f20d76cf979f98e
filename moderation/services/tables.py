"""A moderator's interventions at a table: hide or show a chat message, abort the hand in
play, annul a match, take a player out of his seat.

The table's rows are locked by the games services these call, in games' order.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import PERM_HIDE_CHAT, PERM_INTERVENE
from core import broadcast
from core.errors import Refused
from games import events
from games import services as games_services
from games.models import ChatMessage, Hand, Match, Table
from moderation.models import AuditLog
from moderation.services._common import audit_record, clean_reason, require_permission

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
    require_permission(by, PERM_HIDE_CHAT)
    reason = clean_reason(reason, required=False)
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
    require_permission(by, PERM_INTERVENE)
    reason = clean_reason(reason, required=True)
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
    require_permission(by, PERM_INTERVENE)
    reason = clean_reason(reason, required=True)
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
    require_permission(by, PERM_INTERVENE)
    reason = clean_reason(reason, required=True)
    with transaction.atomic():
        table = Table.objects.select_related("owner").filter(pk=table_id).first()
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
            {
                "type": "user.notice",
                "kind": "removed",
                # Named in the removed player's language when shown (accounts.notices.table_title).
                "table": table.name,
                "owner": table.owner.username,
                "reason": reason,
            },
        )
