"""Reports: a player reports another player or one of his chat messages; a moderator
resolves or dismisses it; the reporter is told the outcome on his next page view.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import PERM_REPORTS
from core.errors import Refused
from games.models import ChatMessage, Table
from games.selectors import can_view_table
from moderation.models import AuditLog, Report
from moderation.services._common import audit_record, clean_reason, require_permission

REPORT_TEXT_MAX = 1000
REPORTS_PER_HOUR = 10


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
    require_permission(by, PERM_REPORTS)
    action_taken = clean_reason(action_taken, required=status == Report.Status.RESOLVED)
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
