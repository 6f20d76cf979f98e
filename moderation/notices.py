"""What a reporter is told once a moderator has handled his report (in his language)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from moderation.models import Report


def report_outcome_notice(report: Report) -> str:
    """What the reporter is told once his report has been handled."""
    name = report.reported_user.username
    if report.status == Report.Status.RESOLVED:
        return _("Your report about %(name)s has been resolved: %(action)s") % {
            "name": name,
            "action": report.action_taken,
        }
    if report.action_taken:
        return _("Your report about %(name)s has been dismissed: %(action)s") % {
            "name": name,
            "action": report.action_taken,
        }
    return _("Your report about %(name)s has been dismissed.") % {"name": name}
