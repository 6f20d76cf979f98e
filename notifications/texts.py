"""A notice's sentence in the active language, drawn from its kind and params."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.notices import table_title
from moderation.models import AuditLog
from notifications.models import Kind, Notification


def notice_text(notification: Notification) -> str:
    """What the bell and the page say of ``notification``, in the active language."""
    p = notification.params
    kind = notification.kind
    table = table_title(p.get("table_name", ""), p.get("owner", ""))
    if kind == Kind.YOUR_TURN:
        return _("Your move at the table %(table)s.") % {"table": table}
    if kind == Kind.CHALLENGED:
        return _("%(name)s challenges you.") % {"name": p.get("name", "")}
    if kind == Kind.CHALLENGE_ANSWERED:
        if p.get("accepted"):
            return _("%(name)s accepted your challenge.") % {"name": p.get("name", "")}
        return _("%(name)s declined your challenge.") % {"name": p.get("name", "")}
    if kind == Kind.TOURNAMENT_STARTS:
        return _("The tournament %(tournament)s starts in a minute.") % {
            "tournament": p.get("tournament", "")
        }
    if kind == Kind.TOURNAMENT_MOVED:
        return _("You were moved to another table in the tournament %(tournament)s.") % {
            "tournament": p.get("tournament", "")
        }
    if kind == Kind.FOLLOWED_PLAYS:
        return _("%(name)s, whom you follow, starts a game in the tournament %(tournament)s.") % {
            "name": p.get("name", ""),
            "tournament": p.get("tournament", ""),
        }
    if kind == Kind.MODERATION:
        action = p.get("action", "")
        label = AuditLog.Action(action).label if action in AuditLog.Action.values else action
        if p.get("reason"):
            return _("A moderator: %(action)s (%(reason)s).") % {
                "action": label,
                "reason": p["reason"],
            }
        return _("A moderator: %(action)s.") % {"action": label}
    if kind == Kind.MATCH_ENDED:
        return _("The match at the table %(table)s ended while you were away.") % {"table": table}
    return str(Kind(kind).label) if kind in Kind.values else kind
