"""The websocket edge of moderation, shared by the table and lobby consumers.

Every socket of a signed-in user joins the group ``user-<id>`` (``core.broadcast.user_group``).
Moderation reaches all of them at once through it: a ban or a log-out-everywhere
sends a notice saying why and closes the socket (code 4403, which htmx's ws extension
does not reconnect on); a mute re-renders the table page's mute notice; a removal from
a table shows a notice. The moderator commands of the table page are parsed here and
handed to ``accounts.moderation``; the services hold every rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async
from django.core.exceptions import PermissionDenied
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from accounts import notices
from accounts.models import User
from core import broadcast, fragments
from games import selectors, services
from games.models import Table

CLOSE_BANNED = 4403
MODERATOR_COMMANDS = frozenset({"hide_chat", "abort_hand", "annul_match", "remove_player"})


def user_is_banned(user: User | None) -> bool:
    """A signed-in user whose ban is in force (his new sockets are refused)."""
    return user is not None and user.is_authenticated and user.is_banned()


# The moderator commands of the table page, each run by the floor that holds its rules
# (moderation registers them in its ready()): ``run(by=, table_id=, reason=, **fields)``.
_moderator_commands: dict[str, Callable[..., object]] = {}


def register_moderator_command(action: str, run: Callable[..., object]) -> None:
    """``run`` answers the table page's moderator command ``action`` (one of
    MODERATOR_COMMANDS). Besides ``by``, ``table_id`` and ``reason``, hide_chat gets
    ``message_id``, annul_match ``match_id`` (the table's current match) and remove_player
    ``user_id``."""
    known = _moderator_commands.get(action)
    if known is not None and known is not run:
        raise ValueError(f"{action!r} already has a handler: {known!r}")
    _moderator_commands[action] = run


def run_moderator_command(
    *, action: str, content: dict[str, Any], user: User, table_id: int
) -> None:
    """One moderator command from the table page, parsed here and run by its handler."""
    run = _moderator_commands.get(action)
    if run is None:
        raise services.Refused(_("You do not have permission to do that."))
    # Fresh from the database: the socket's user (and his cached permissions) may be
    # older than a change of his rights or a ban.
    user = User.objects.get(pk=user.pk)
    fields: dict[str, int] = {}
    if action == "hide_chat":
        fields["message_id"] = _id(content.get("message"))
    elif action == "annul_match":
        match = selectors.current_match(Table.objects.get(pk=table_id))
        if match is None:
            raise services.Refused(_("No match has been played at this table."))
        fields["match_id"] = match.pk
    elif action == "remove_player":
        fields["user_id"] = _id(content.get("user"))
    try:
        run(by=user, table_id=table_id, reason=str(content.get("reason", "")), **fields)
    except PermissionDenied as denied:
        raise services.Refused(str(denied) or _("You do not have permission to do that.")) from None


def _id(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise services.Refused(_("That message could not be read.")) from None


class UserSocketMixin:
    """Joins a signed-in user's socket to his own group and answers moderation events.

    The consumer using it sets ``self.user`` (or has a scope user) and ``self.language``.
    """

    user_group_name: str | None = None

    def _socket_user(self) -> User | None:
        user = getattr(self, "user", None) or self.scope.get("user")
        return user if user is not None and user.is_authenticated else None

    async def join_user_group(self) -> None:
        user = self._socket_user()
        if user is not None:
            self.user_group_name = broadcast.user_group(user.pk)
            await self.channel_layer.group_add(self.user_group_name, self.channel_name)

    async def leave_user_group(self) -> None:
        if self.user_group_name is not None:
            await self.channel_layer.group_discard(self.user_group_name, self.channel_name)
            self.user_group_name = None

    async def user_kick(self, event: dict[str, Any]) -> None:
        """Banned or logged out everywhere: say why, then close the socket."""
        html = await database_sync_to_async(self._render_kick)(str(event.get("why", "")))
        await self.send(text_data=html)
        await self.leave_user_group()
        await self.close(code=CLOSE_BANNED)

    def _render_kick(self, why: str) -> str:
        user = self._socket_user()
        with translation.override(self.language):
            if why == "banned" and user is not None:
                user.refresh_from_db(fields=["banned_until", "ban_reason"])
                return notices.socket_notice_fragment(notices.ban_notice(user))
            return notices.socket_notice_fragment(notices.logged_out_notice())

    async def user_follow(self, event: dict[str, Any]) -> None:
        """A tournament seated, moved or eliminated this user: the page goes where he plays
        now (tournaments.events); every socket of his must handle it, or it would close.
        The fragment is the tournament's (``core.fragments``)."""
        html = await database_sync_to_async(fragments.render)(event, self.language)
        if html:
            await self.send(text_data=html)

    async def user_notice(self, event: dict[str, Any]) -> None:
        if event.get("kind") == "removed":
            html = await database_sync_to_async(self._render_removed)(event)
            await self.send(text_data=html)

    def _render_removed(self, event: dict[str, Any]) -> str:
        with translation.override(self.language):
            return notices.socket_notice_fragment(
                notices.removed_notice(
                    table_name=str(event.get("table", "")), reason=str(event.get("reason", ""))
                )
            )

    async def user_mute_changed(self, event: dict[str, Any]) -> None:
        """Muted or unmuted: a table page shows (or drops) the notice by its chat form."""
        if getattr(self, "table_id", None) is None:
            return  # the lobby has no chat
        html = await database_sync_to_async(self._render_mute_notice)()
        await self.send(text_data=html)

    def _render_mute_notice(self) -> str:
        user = self._socket_user()
        if user is not None:
            user.refresh_from_db(fields=["muted_until", "mute_reason"])
        with translation.override(self.language):
            return render_to_string(
                "games/table.html#mute-notice", {"v": {"viewer": user}, "oob": True}
            )
