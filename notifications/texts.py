"""A notice's sentence in the active language, drawn from its kind and params."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from accounts.notices import table_title
from games.speeds import Speed
from moderation.models import AuditLog
from notifications.models import Kind, Notification

# What a player is told of a fair play decision about his account (his language, at
# reading): a sentence each, as these say more than "a moderator did X".
FAIRPLAY_NOTICES = {
    AuditLog.Action.FAIRPLAY_WARN: _lazy(
        "A moderator warns you about fair play: %(reason)s. Play on your own, with no help "
        "from programs or other people."
    ),
    AuditLog.Action.FAIRPLAY_MARK: _lazy(
        "Your account was marked for breaking fair play: %(reason)s. You may appeal once."
    ),
    AuditLog.Action.FAIRPLAY_UPHOLD: _lazy(
        "Your appeal was decided: the fair play mark stays (%(reason)s)."
    ),
    AuditLog.Action.FAIRPLAY_LIFT: _lazy(
        "Your appeal was decided: the fair play mark is lifted (%(reason)s)."
    ),
}


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
    if kind == Kind.MODERATION and p.get("action") in FAIRPLAY_NOTICES:
        return str(FAIRPLAY_NOTICES[p["action"]]) % {"reason": p.get("reason", "")}
    if kind == Kind.RATING_REFUNDED:
        speed = p.get("speed", "")
        return _(
            "+%(points)s rating refunded (%(speed)s): games against an account marked for cheating."
        ) % {
            "points": p.get("points", 0),
            "speed": Speed(speed).label if speed in Speed.values else speed,
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
