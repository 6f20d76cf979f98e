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

Where things live: ``users`` (bans, mutes, logging out everywhere, the automatic mute
of a chat flood, two linked accounts allowed to play together), ``reports`` (a player's
report and its outcome), ``tables`` (hidden chat, aborted hands, annulled matches,
players taken out of their seats) and, below them all, ``_common`` (the audit log, the
permission checks, the cleaning of a reason, the user row lock: public, for the floors
above that act as moderators and keep the same rules). This package re-exports them, so
callers import ``moderation.services`` only.
"""

from moderation.services._common import (
    REASON_MAX,
    audit_record,
    clean_reason,
    locked_user,
    require_may_act_on,
    require_permission,
)
from moderation.services.reports import (
    REPORT_TEXT_MAX,
    REPORTS_PER_HOUR,
    report_create,
    report_dismiss,
    report_outcomes_deliver,
    report_resolve,
)
from moderation.services.tables import (
    chat_hide,
    chat_unhide,
    hand_abort,
    match_annul,
    table_remove_player,
)
from moderation.services.users import (
    FLOOD_EPISODE,
    FLOOD_MUTE,
    FLOOD_WINDOW,
    FLOODS_BEFORE_MUTE,
    chat_flood_record,
    on_chat_flooded,
    user_auto_mute,
    user_ban,
    user_logout_everywhere,
    user_mute,
    user_pair_allow,
    user_pair_disallow,
    user_unban,
    user_unmute,
)

__all__ = [
    "FLOODS_BEFORE_MUTE",
    "FLOOD_EPISODE",
    "FLOOD_MUTE",
    "FLOOD_WINDOW",
    "REASON_MAX",
    "REPORTS_PER_HOUR",
    "REPORT_TEXT_MAX",
    "audit_record",
    "chat_flood_record",
    "chat_hide",
    "chat_unhide",
    "clean_reason",
    "hand_abort",
    "locked_user",
    "match_annul",
    "on_chat_flooded",
    "report_create",
    "report_dismiss",
    "report_outcomes_deliver",
    "report_resolve",
    "require_may_act_on",
    "require_permission",
    "table_remove_player",
    "user_auto_mute",
    "user_ban",
    "user_logout_everywhere",
    "user_mute",
    "user_pair_allow",
    "user_pair_disallow",
    "user_unban",
    "user_unmute",
]
