"""What a banned, muted or removed user is told: why, and until when (in his language).

Texts only, and the fragments that carry them to an open page over its websocket;
nothing here changes state.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.timesince import timeuntil
from django.utils.translation import gettext as _

from accounts.models import User

# "For good": a ban or mute until a date nobody lives to see (None means none in force).
PERMANENT = datetime(9000, 1, 1, tzinfo=UTC)


def is_permanent(until: datetime | None) -> bool:
    return until is not None and until >= PERMANENT


def format_until(until: datetime) -> str:
    return timezone.localtime(until).strftime("%Y-%m-%d %H:%M")


def _sentence(text: str) -> str:
    """``text`` ending in exactly one full stop, or in the mark its author ended it with
    (a moderator's reason may or may not end in one)."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else f"{text}."


def ban_notice(user: User) -> str:
    """'You are banned until 2025-05-01 18:00: insults in the chat.'"""
    reason = user.ban_reason or _("no reason given")
    if is_permanent(user.banned_until):
        return _sentence(_("You are banned for good: %(reason)s") % {"reason": reason})
    return _sentence(
        _("You are banned until %(until)s: %(reason)s")
        % {"until": format_until(user.banned_until), "reason": reason}
    )


def owner_ban_notice(user: User) -> str:
    """What a program is told when the owner of its token is banned."""
    if is_permanent(user.banned_until):
        return _("The token's owner is banned for good.")
    return _("The token's owner is banned until %(until)s.") % {
        "until": format_until(user.banned_until)
    }


def mute_notice(user: User, *, now: datetime | None = None) -> str:
    """The chat refusal of a muted user: until when, how long is left, and why."""
    reason = user.mute_reason or _("no reason given")
    if is_permanent(user.muted_until):
        return _sentence(_("You are muted for good: %(reason)s") % {"reason": reason})
    return _sentence(
        _("You are muted until %(until)s (%(left)s left): %(reason)s")
        % {
            "until": format_until(user.muted_until),
            "left": timeuntil(user.muted_until, now or timezone.now()),
            "reason": reason,
        }
    )


def logged_out_notice() -> str:
    return _("A moderator has logged you out on every device. Log in again to go on.")


def table_title(name: str, owner_name: str) -> str:
    """A table's name as its reader sees it, in the active language: the one its owner
    gave it, else his table ("ola's table")."""
    return name or _("%(username)s's table") % {"username": owner_name}


def removed_notice(*, table_name: str, reason: str) -> str:
    return _("A moderator removed you from the table %(table)s: %(reason)s") % {
        "table": table_name,
        "reason": reason or _("no reason given"),
    }


def socket_notice_fragment(message: str) -> str:
    """A notice put at the top of any page (table or lobby) through its open socket."""
    return render_to_string("accounts/notices.html#socket-notice", {"notice": message})
