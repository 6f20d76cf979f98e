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

import functools

from django.db import connection

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
        and (user.is_superuser or (holds_rights(user) and user.has_perm(permission)))
    )


def holds_rights(user: User) -> bool:
    """Whether ``user`` is in a group or holds a permission of his own: if neither, as
    nearly every player, he holds no permission at all, and Django's two queries for
    them (his own, his groups') are not needed. One query, answered once per user
    object, as Django keeps the permissions it read on it. A table's socket asks it as
    it opens (the seats' moderator tools), so a crowd of sockets opening at once makes
    one query each rather than two. The answer is kept on the user object
    (``User.rights_held``), as Django keeps the permissions it read."""
    held = user.rights_held
    if held is None:
        with connection.cursor() as cursor:
            cursor.execute(_rights_sql(), [user.pk, user.pk])
            held = user.rights_held = bool(cursor.fetchone()[0])
    return held


def read_rights(users: list[User]) -> None:
    """``holds_rights`` for several users in one query (the sockets that open together),
    kept on each as it keeps it."""
    asking = [user for user in users if user.rights_held is None]
    if not asking:
        return
    ids = sorted({user.pk for user in asking})
    through = (User.groups.through, User.user_permissions.through)
    held = set(
        through[0]
        .objects.filter(user_id__in=ids)
        .values_list("user_id", flat=True)
        .union(through[1].objects.filter(user_id__in=ids).values_list("user_id", flat=True))
    )
    for user in asking:
        user.rights_held = user.pk in held


@functools.cache
def _rights_sql() -> str:
    tables = [through._meta for through in (User.groups.through, User.user_permissions.through)]
    return "SELECT " + " OR ".join(
        f"EXISTS (SELECT 1 FROM {meta.db_table} WHERE {meta.get_field('user').column} = %s)"
        for meta in tables
    )
