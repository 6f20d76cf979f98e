"""Who may do what: the permissions of moderation and the one question every floor asks.

Games (who may see a private table), tournaments (who may manage one) and moderation
(who may ban, mute, hide, intervene) all ask :func:`may`; it lives here, with the user,
so that none of them needs to import a floor above it.

The ``Moderators`` group holds these permissions (superusers have them all):

* ``accounts.ban_user``: ban, unban, log out everywhere;
* ``accounts.mute_user``: mute, unmute;
* ``moderation.change_report``: resolve or dismiss reports;
* ``games.hide_chatmessage``: hide a chat message (and show it again);
* ``games.intervene_table``: abort a hand, annul a match, remove a player from a table.
"""

from __future__ import annotations

from accounts.models import User

PERM_BAN = "accounts.ban_user"
PERM_MUTE = "accounts.mute_user"
PERM_REPORTS = "moderation.change_report"
PERM_HIDE_CHAT = "games.hide_chatmessage"
PERM_INTERVENE = "games.intervene_table"


def may(user: User | None, permission: str) -> bool:
    """Whether ``user`` holds a moderation permission (an active, unbanned account)."""
    return bool(
        getattr(user, "is_authenticated", False)
        and user.is_active
        and not user.is_banned()
        and user.has_perm(permission)
    )
