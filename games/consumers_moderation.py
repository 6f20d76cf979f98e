"""The websocket edge of moderation, shared by the table and lobby consumers.

Every socket of a signed-in user joins the group ``user-<id>`` (``core.broadcast.user_group``).
Moderation reaches all of them at once through it: a ban or a log-out-everywhere
sends a notice saying why and closes the socket (code 4403, which htmx's ws extension
does not reconnect on); a mute re-renders the table page's mute notice; a removal from
a table shows a notice. The moderator commands of the table page (read by
``games.commands``) are handled here, each by the function moderation registers for it
in its ``ready()`` (``register_moderator_command``); moderation's services hold every
rule. Games never imports moderation.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
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
from games.commands import AbortHand, AnnulMatch, Asker, Command, HideChat, RemovePlayer
from games.models import Table, table_title

CLOSE_BANNED = 4403


def user_is_banned(user: User | None) -> bool:
    """A signed-in user whose ban is in force (his new sockets are refused)."""
    return user is not None and user.is_authenticated and user.is_banned()


# The moderator commands of the table page, each run by the floor that holds its rules
# (moderation registers them in its ready()): ``run(by=, table_id=, reason=, **fields)``.
_moderator_commands: dict[str, Callable[..., object]] = {}


def register_moderator_command(action: str, run: Callable[..., object]) -> None:
    """``run`` answers the table page's moderator command ``action`` (a command's
    ``action``: hide_chat, abort_hand, annul_match, remove_player). Besides ``by``,
    ``table_id`` and ``reason``, hide_chat gets ``message_id``, annul_match ``match_id``
    (the table's current match) and remove_player ``user_id``."""
    known = _moderator_commands.get(action)
    if known is not None and known is not run:
        raise ValueError(f"{action!r} already has a handler: {known!r}")
    _moderator_commands[action] = run


def _as_moderator(
    fields: Callable[[Asker, Any], dict[str, int]],
) -> Callable[[Asker, Any], None]:
    """A moderator command's handler: it gets the asking user fresh from the database
    (the socket's user, and his cached permissions, may be older than a change of his
    rights or a ban), runs the registered command with the command's ``fields``, and a
    refused permission becomes a refusal the page shows."""

    @wraps(fields)
    def run(asker: Asker, command: Any) -> None:
        handler = _moderator_commands.get(command.action)
        if handler is None:
            raise services.Refused(_("You do not have permission to do that."))
        user = User.objects.get(pk=asker.user.pk)
        values = fields(asker, command)
        try:
            handler(by=user, table_id=asker.table_id, reason=command.reason, **values)
        except PermissionDenied as denied:
            raise services.Refused(
                str(denied) or _("You do not have permission to do that.")
            ) from None

    return run


@_as_moderator
def _hide_chat(asker: Asker, command: HideChat) -> dict[str, int]:
    return {"message_id": command.message}


@_as_moderator
def _abort_hand(asker: Asker, command: AbortHand) -> dict[str, int]:
    return {}


@_as_moderator
def _annul_match(asker: Asker, command: AnnulMatch) -> dict[str, int]:
    match = selectors.current_match(Table.objects.get(pk=asker.table_id))
    if match is None:
        raise services.Refused(_("No match has been played at this table."))
    return {"match_id": match.pk}


@_as_moderator
def _remove_player(asker: Asker, command: RemovePlayer) -> dict[str, int]:
    return {"user_id": command.user}


# The moderator commands of the table page, each run by moderation (which holds every
# rule, the permission first); TableConsumer's table includes them.
MODERATOR_HANDLERS: dict[type[Command], Callable[[Asker, Any], None]] = {
    HideChat: _hide_chat,
    AbortHand: _abort_hand,
    AnnulMatch: _annul_match,
    RemovePlayer: _remove_player,
}


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
                    table_name=table_title(
                        str(event.get("table", "")), str(event.get("owner", ""))
                    ),
                    reason=str(event.get("reason", "")),
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
