"""The one base of every socket of the site (``LiveSocket``): the table, the lobby, a
tournament page, the "Play now" panel and whatever else a page listens on.

Every socket, whatever it shows:

- is refused when its user is banned, holds too many sockets open in the process, or
  opened too many across the site in the last minute (``budgets``);
- counts every frame it receives: past ``COMMAND_BURST`` frames in ``COMMAND_WINDOW``
  seconds they are dropped (a command gets a refusal), far past it the socket is
  closed; a frame longer than ``MAX_FRAME`` is dropped;
- joins its user's group (``core.broadcast.user_group``) and answers what moderation
  and the tournaments send there (``user.kick``, ``user.follow``, ``user.notice``; a
  table answers ``user.mute_changed`` by its chat); an event of a type it has no
  handler for is not its to show (another kind of socket's, or an API stream's) and is
  passed over;
- reaches the database from the event loop only through ``in_pool``.

Messages come in through Channels' own consumer loop (``AsyncConsumer.__call__``);
``dispatch`` is the site's: no thread hop to close stale database connections before
every message (``in_pool`` does it), and the database going away under a message is
answered by ``database_down``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy
from django.utils.translation.trans_real import parse_accept_lang_header

import live.budgets as budgets
from accounts import notices
from accounts.models import User
from core import broadcast, fragments
from live.db import DATABASE_DOWN, in_pool
from live.layer import PubSubChannelLayer

logger = logging.getLogger(__name__)

CLOSE_LIMITED = 4429
CLOSE_BANNED = 4403  # htmx's ws extension does not reconnect on it
CLOSE_TRY_LATER = 1013  # the database is unreachable: the page reconnects by itself
LOG_IN = gettext_lazy("Log in to play or chat.")
SLOW_DOWN = gettext_lazy("Too many commands; slow down.")
UNREADABLE = gettext_lazy("That message could not be read.")
DATABASE_UNREACHABLE = gettext_lazy(
    "The server cannot reach its database just now: nothing was changed. Try again in a moment."
)


def user_is_banned(user: User | None) -> bool:
    """A signed-in user whose ban is in force (his new sockets are refused)."""
    return user is not None and user.is_authenticated and user.is_banned()


def socket_language(scope: dict[str, Any]) -> str:
    """The language to render in: the user's, else the language cookie's, else the browser's."""
    supported = dict(settings.LANGUAGES)
    user = scope.get("user")
    if user is not None and user.is_authenticated and user.language in supported:
        return user.language
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME, "")
    if cookie in supported:
        return cookie
    for name, value in scope.get("headers", []):
        if name == b"accept-language":
            for code, _quality in parse_accept_lang_header(value.decode("latin-1")):
                if code[:2] in supported:
                    return code[:2]
    return settings.LANGUAGE_CODE


async def _send_unless_gone(
    send: Callable[[dict[str, Any]], Awaitable[None]], message: dict[str, Any]
) -> None:
    """``send`` a message to the client, dropped if the client has already gone: one that
    hangs up while its socket opens leaves daphne's protocol closed for a moment before
    daphne hears of it and delivers the ``websocket.disconnect`` that ends the socket, and
    daphne refuses a frame meanwhile (autobahn's ``Disconnected``). Nobody is there to
    read it, so it is no error of the site's."""
    try:
        await send(message)
    except Disconnected:
        logger.debug("dropped a %s: the client has gone", message.get("type"))


class LiveSocket(AsyncWebsocketConsumer):
    """A socket of the live room. A subclass says what it is with:

    - ``signed_in_only``: visitors are closed at once (``CLOSE_BANNED``);
    - ``may_open()``: run in a thread before the socket is accepted (a visitor may
      watch this tournament?); False closes it with ``refused_code``; or, instead,
      ``admission()`` in the event loop (the table's: from the read its page needs);
    - ``listen()``: the groups it joins besides its user's;
    - ``opened()`` after it is accepted, ``closing()`` when it closes;
    - ``command(text)``: a text frame within the limits (by default the socket only
      listens, and a frame is ignored).
    """

    signed_in_only = False
    refused_code = 4403
    user: User | None = None
    language: str = ""
    user_group_name: str | None = None
    socket_owner: str | None = None
    listening: tuple[str, ...] = ()

    # --- the dispatch loop -------------------------------------------------------------

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Channels' own consumer loop, with the site's send (a frame to a client that has
        gone is dropped) and, in the project's layer, the channel forgotten at the end."""
        broadcast.served_here()  # what its threads send goes through this loop
        try:
            await super().__call__(scope, receive, functools.partial(_send_unless_gone, send))
        finally:
            layer = getattr(self, "channel_layer", None)
            channel = getattr(self, "channel_name", None)
            if isinstance(layer, PubSubChannelLayer) and channel is not None:
                layer.drop_channel(channel)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """The handler of the message's type; a group event no handler takes is passed
        over. (Channels closes stale database connections before every message, in a
        thread: every database call here runs through ``in_pool``, which does it.)"""
        handler = getattr(self, get_handler_name(message), None)
        if handler is not None:
            try:
                await handler(message)
            except DATABASE_DOWN:
                await self.database_down(message)
        elif message["type"].startswith("websocket."):
            raise ValueError(f"No handler for message type {message['type']}")
        else:
            logger.debug("%s passes over %s", type(self).__name__, message["type"])

    async def database_down(self, message: dict[str, Any]) -> None:
        """The database went away under a message: nothing of it was written (a move is
        one statement, every other change one transaction). A socket that was opening is
        turned away (the page tries again), a command is refused with the reason, and a
        group event is passed over (the next one, or the page's resync, shows the
        table)."""
        kind = message.get("type", "")
        logger.warning("%s: the database is unreachable (%s)", type(self).__name__, kind)
        if kind == "websocket.connect":
            if self.socket_owner is not None:
                budgets.OPEN_SOCKETS.give_back(self.socket_owner)
                self.socket_owner = None
            await self.leave_groups()
            await self.close(code=CLOSE_TRY_LATER)
        elif kind == "websocket.receive":
            await self.refuse(DATABASE_UNREACHABLE)

    # --- opening and closing -------------------------------------------------------------

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = socket_language(self.scope)
        signed_in = self.user is not None and self.user.is_authenticated
        if (self.signed_in_only and not signed_in) or user_is_banned(self.user):
            await self.close(code=CLOSE_BANNED)
            return
        owner, limit = budgets.who(self.scope)
        if not budgets.OPEN_SOCKETS.take(owner, limit):
            await self.close(code=CLOSE_LIMITED)
            return
        self.socket_owner = owner
        refused = None if await budgets.connection_allowed(self.scope) else CLOSE_LIMITED
        if refused is None:
            refused = await self.admission()
        if refused is not None:
            await self.leave_groups()
            budgets.OPEN_SOCKETS.give_back(owner)
            self.socket_owner = None
            await self.close(code=refused)
            return
        await self.join(self.listen())
        if signed_in:
            self.user_group_name = broadcast.user_group(self.user.pk)
            await self.channel_layer.group_add(self.user_group_name, self.channel_name)
        await self.accept()
        await self.opened()

    async def disconnect(self, code: int) -> None:
        if self.socket_owner is not None:
            budgets.OPEN_SOCKETS.give_back(self.socket_owner)
            self.socket_owner = None
        await self.leave_groups()
        await self.closing()

    async def join(self, groups: list[str]) -> None:
        """Join ``groups`` (those not joined yet): their events reach the socket from now."""
        for group in groups:
            if group not in self.listening:
                await self.channel_layer.group_add(group, self.channel_name)
                self.listening += (group,)

    async def leave_groups(self) -> None:
        for group in self.listening:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.listening = ()
        if self.user_group_name is not None:
            await self.channel_layer.group_discard(self.user_group_name, self.channel_name)
            self.user_group_name = None

    async def admission(self) -> int | None:
        """The close code of a socket this page may not open, or None: ``may_open`` in a
        thread of the pool, when the socket's kind has one. A kind may instead join its
        groups here (``join``) and judge on what it reads for the page anyway."""
        if type(self).may_open is LiveSocket.may_open:
            return None
        return None if await in_pool(self.may_open)() else self.refused_code

    def may_open(self) -> bool:
        return True

    def listen(self) -> list[str]:
        return []

    async def opened(self) -> None:
        pass

    async def closing(self) -> None:
        pass

    # --- frames --------------------------------------------------------------------------

    frames: budgets.FrameWindow | None = None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.frames is None:
            self.frames = budgets.FrameWindow()
        counted = self.frames.count()
        if counted > budgets.COMMAND_BURST:
            if counted > budgets.FLOOD_CLOSE:
                await self.close(code=CLOSE_LIMITED)
            elif counted == budgets.COMMAND_BURST + 1:
                await self.refuse(SLOW_DOWN)
            return
        if text_data is None or len(text_data) > budgets.MAX_FRAME:
            await self.refuse(UNREADABLE)
            return
        await self.command(text_data)

    async def command(self, text: str) -> None:
        """A frame within the limits; this socket only listens."""

    async def refuse(self, message: str | Promise) -> None:
        """Say why a frame was not taken (too many, unreadable): a socket that takes
        commands shows it; one that only listens says nothing."""

    # --- the user's group: moderation and tournaments ---------------------------------------

    def signed_in_user(self) -> User | None:
        user = self.user
        return user if user is not None and user.is_authenticated else None

    async def user_kick(self, event: dict[str, Any]) -> None:
        """Banned or logged out everywhere: say why, then close the socket."""
        html = await in_pool(self._render_kick)(str(event.get("why", "")))
        await self.send(text_data=html)
        await self.leave_groups()
        await self.close(code=CLOSE_BANNED)

    def _render_kick(self, why: str) -> str:
        user = self.signed_in_user()
        with translation.override(self.language):
            if why == "banned" and user is not None:
                user.refresh_from_db(fields=["banned_until", "ban_reason"])
                return notices.socket_notice_fragment(notices.ban_notice(user))
            return notices.socket_notice_fragment(notices.logged_out_notice())

    async def user_follow(self, event: dict[str, Any]) -> None:
        """A tournament seated, moved or eliminated this user: the page goes where he plays
        now (tournaments.events). The fragment is the tournament's (``core.fragments``)."""
        html = await in_pool(fragments.render)(event, self.language)
        if html:
            await self.send(text_data=html)

    async def user_notice(self, event: dict[str, Any]) -> None:
        if event.get("kind") == "removed":
            html = await in_pool(self._render_removed)(event)
            await self.send(text_data=html)

    def _render_removed(self, event: dict[str, Any]) -> str:
        with translation.override(self.language):
            return notices.socket_notice_fragment(
                notices.removed_notice(
                    table_name=notices.table_title(
                        str(event.get("table", "")), str(event.get("owner", ""))
                    ),
                    reason=str(event.get("reason", "")),
                )
            )
