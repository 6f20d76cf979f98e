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
of a chat flood, two linked accounts allowed to play together), ``fairplay`` (warning,
marking and closing an account for breaking fair play, with the refunds and the places
that follow, and the appeal), ``fairplay_cases`` (the moderators' cases that fair play's
signals open, and their decisions), ``reports`` (a player's report and its outcome),
``tables`` (hidden chat, aborted hands, annulled matches, players taken out of their
seats) and, below them all, ``_common`` (the audit log, the permission checks, the user
row lock). This package re-exports them, so callers import
``moderation.services`` only.
"""

from moderation.services._common import REASON_MAX, audit_record
from moderation.services.fairplay import (
    APPEAL_MAX,
    MarkResult,
    account_close,
    account_mark,
    account_warn,
    appeal_create,
    appeal_decide,
)
from moderation.services.fairplay_cases import fairplay_case_decide
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
    "APPEAL_MAX",
    "FLOODS_BEFORE_MUTE",
    "FLOOD_EPISODE",
    "FLOOD_MUTE",
    "FLOOD_WINDOW",
    "REASON_MAX",
    "REPORTS_PER_HOUR",
    "REPORT_TEXT_MAX",
    "MarkResult",
    "account_close",
    "account_mark",
    "account_warn",
    "appeal_create",
    "appeal_decide",
    "audit_record",
    "chat_flood_record",
    "chat_hide",
    "chat_unhide",
    "fairplay_case_decide",
    "hand_abort",
    "match_annul",
    "on_chat_flooded",
    "report_create",
    "report_dismiss",
    "report_outcomes_deliver",
    "report_resolve",
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
