"""Reads of moderation, as plain data: who a report is about, and what a moderator sees
about one user."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from django.db.models import Q

from accounts.models import User
from accounts.selectors import SharedAccount, accounts_sharing
from games.models import ChatMessage, MatchPlayer, Table
from games.selectors import can_view_table
from moderation.models import AuditLog, Report


@dataclass(frozen=True)
class ReportSubject:
    """Who (and which chat message) a report from the table page is about."""

    user: User
    message: ChatMessage | None
    table: Table | None


def report_subject(
    *,
    viewer: User,
    invited_tables: Collection[int],
    user_id: int | None,
    message_id: int | None,
    table_id: int | None,
) -> ReportSubject | None:
    """The reported player (and message, and table) for ``viewer``'s report form; None if
    unknown, and None too for a table he may not see (its chat and players stay hidden,
    and an id that exists cannot be told from one that does not)."""
    if message_id:
        message = (
            ChatMessage.objects.select_related("author", "table")
            .filter(pk=message_id, hidden_at__isnull=True)
            .first()
        )
        if message is None or not can_view_table(message.table, viewer, invited_tables):
            return None
        return ReportSubject(user=message.author, message=message, table=message.table)
    user = User.objects.filter(pk=user_id, is_active=True).first() if user_id else None
    if user is None:
        return None
    table = Table.objects.filter(pk=table_id).first() if table_id else None
    if table_id and (table is None or not can_view_table(table, viewer, invited_tables)):
        return None
    return ReportSubject(user=user, message=None, table=table)


@dataclass(frozen=True)
class ModerationSummary:
    """What a moderator sees about one user on his admin page."""

    matches: list[MatchPlayer]
    reports_against: list[Report]
    reports_by: list[Report]
    recent_chat: list[ChatMessage]
    audit: list[AuditLog]
    # The accounts sharing a device or a connection with his: by name only, never the
    # device or the address.
    shared: list[SharedAccount]


PAIR_ACTIONS = (AuditLog.Action.PAIR_ALLOW, AuditLog.Action.PAIR_DISALLOW)


def user_moderation_summary(user: User, *, limit: int = 20) -> ModerationSummary:
    """His latest matches, reports against him and by him, his chat (hidden too), his log
    (with the pairs allowed that name him), the accounts sharing his device or
    connection."""
    return ModerationSummary(
        matches=list(
            MatchPlayer.objects.filter(user=user)
            .select_related("match__table__owner")
            .order_by("-match__started_at")[:limit]
        ),
        reports_against=list(
            Report.objects.filter(reported_user=user)
            .select_related("reporter", "table")
            .order_by("-created_at")[:limit]
        ),
        reports_by=list(
            Report.objects.filter(reporter=user)
            .select_related("reported_user", "table")
            .order_by("-created_at")[:limit]
        ),
        recent_chat=list(
            ChatMessage.objects.filter(author=user)
            .select_related("table__owner", "hidden_by")
            .order_by("-created_at")[: limit * 2]
        ),
        audit=list(
            AuditLog.objects.filter(
                Q(target_user=user) | Q(action__in=PAIR_ACTIONS, details__other_id=user.pk)
            )
            .select_related("actor", "target_user", "table")
            .order_by("-created_at")[:limit]
        ),
        shared=accounts_sharing(user),
    )
