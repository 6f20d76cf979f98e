"""Websocket edge of the games app: parse, call a service, relay events.

``TableConsumer`` speaks htmx's ws extension: the browser sends form values as JSON
(``ws-send``), the server answers with HTML fragments that htmx swaps in by id
(out-of-band). Every command is checked for who is asking; a refused one gets a
refusal fragment and changes nothing. On every group event each consumer renders
its own viewer's fragments, so a player sees his hand and nobody else does; spectators
all see the same public view, so one render of an event serves every spectator of the
process (``SharedRenders``): one for visitors, one for signed-in spectators.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer
from django.core.cache import cache
from django.utils import translation
from django.utils.translation import gettext as _

from games import events, renderers, selectors, services
from games.consumers_moderation import (
    MODERATOR_COMMANDS,
    UserSocketMixin,
    run_moderator_command,
    user_is_banned,
)
from games.models import Table

logger = logging.getLogger(__name__)

PING_EVERY = 5.0
PRESENCE_TTL = 20
COMMAND_BURST, COMMAND_WINDOW = 20, 5.0  # at most 20 commands in 5 seconds per socket
CONNECTIONS_PER_MINUTE = 60  # per user (or per address for visitors)


@dataclass(frozen=True)
class SharedRender:
    render: tuple[str, int]  # the fragments and the hand's version
    insiders: frozenset[int]  # users who must not be served this render (TableView.insiders)


class SharedRenders:
    """The table fragments of one group event as spectators see them, by (table, event,
    language, signed in or not): the first spectator's consumer renders, the others in
    the process reuse it. Only the latest few events are kept; a render is never shared
    across events, so clocks and presence are as fresh as a render of one's own."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.hits = 0
        self._renders: OrderedDict[tuple[int, str, str, bool], SharedRender] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, str, str, bool]) -> SharedRender | None:
        with self._lock:
            return self._renders.get(key)

    def hit(self) -> None:
        with self._lock:
            self.hits += 1

    def put(self, key: tuple[int, str, str, bool], shared: SharedRender) -> None:
        with self._lock:
            self._renders[key] = shared
            while len(self._renders) > self.size:
                self._renders.popitem(last=False)


SHARED_RENDERS = SharedRenders()


class PingConsumer(AsyncJsonWebsocketConsumer):
    """Echoes pings so a page can measure its connection lag (round trip time)."""

    async def receive_json(self, content: object, **kwargs: object) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong", "t": content.get("t")})
        else:
            await self.send_json({"type": "refused", "reason": "unknown command"})


class RateLimited(Exception):
    pass


def connection_allowed(scope: dict[str, Any]) -> bool:
    """Count a new socket against its user's (or address's) budget per minute."""
    user = scope.get("user")
    client = scope.get("client") or ("unknown", 0)
    who = f"u{user.pk}" if user is not None and user.is_authenticated else f"ip{client[0]}"
    key = f"ws-connects:{who}:{int(time.time() // 60)}"
    cache.add(key, 0, 70)
    try:
        return cache.incr(key) <= CONNECTIONS_PER_MINUTE
    except ValueError:
        return True


class TableConsumer(UserSocketMixin, AsyncWebsocketConsumer):
    """One viewer of one table: a seated player or a spectator."""

    table_id: int
    last_version: int = -1

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope.get("user")
        self.language = _scope_language(self.scope)
        self.command_times: list[float] = []
        allowed = await database_sync_to_async(self._may_watch)()
        if not allowed:
            await self.close(code=4403)
            return
        self.group = events.table_group(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.join_user_group()
        await self.accept()
        await database_sync_to_async(self._mark_present)()
        # Layer 1 of the clock: an overdue timeout is applied before the table is shown.
        await database_sync_to_async(self._check_deadline)()
        await self._send_table()
        self.pinger = asyncio.create_task(self._ping_forever())

    def _may_watch(self) -> bool:
        if user_is_banned(self.user) or not connection_allowed(self.scope):
            return False
        table = Table.objects.filter(pk=self.table_id).first()
        if table is None:
            return False
        session = self.scope.get("session") or {}
        return selectors.can_view_table(table, self.user, session.get("invited_tables", []))

    def _check_deadline(self) -> None:
        hand = selectors.current_hand(selectors.current_match(Table.objects.get(pk=self.table_id)))
        if hand is not None and not hand.is_over:
            services.hand_check_deadline(hand_id=hand.pk)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "pinger"):
            self.pinger.cancel()
        await self.leave_user_group()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await database_sync_to_async(self._mark_absent)()

    # --- presence and lag ---------------------------------------------------------------

    def _is_user(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    def _mark_present(self) -> None:
        if self._is_user():
            cache.set(selectors.presence_key(self.table_id, self.user.pk), True, PRESENCE_TTL)
            events.table_changed_on_commit(self.table_id, version=None)

    def _mark_absent(self) -> None:
        if self._is_user():
            cache.delete(selectors.presence_key(self.table_id, self.user.pk))
            events.table_changed_on_commit(self.table_id, version=None)

    async def _ping_forever(self) -> None:
        while True:
            await self.send(text_data=renderers.ping_fragment(time.monotonic()))
            await asyncio.sleep(PING_EVERY)

    def _record_pong(self, sent: float) -> None:
        lag_ms = max(0, int((time.monotonic() - sent) * 1000))
        if self._is_user() and lag_ms < 60_000:
            cache.set(selectors.presence_key(self.table_id, self.user.pk), True, PRESENCE_TTL)
            cache.set(selectors.lag_key(self.table_id, self.user.pk), lag_ms, PRESENCE_TTL)

    # --- commands from the browser ----------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            content = json.loads(text_data or "")
            if not isinstance(content, dict):
                raise ValueError
        except ValueError:
            await self._refuse(_("That message could not be read."))
            return
        action = str(content.get("action", ""))
        if action == "pong":
            with contextlib.suppress(ValueError):
                await database_sync_to_async(self._record_pong)(float(content.get("t", "")))
            return
        if not self._within_rate():
            await self._refuse(_("Too many commands; slow down."))
            return
        if action == "resync":
            await self._send_table(force=True)
            return
        if not self._is_user():
            await self._refuse(_("Log in to play or chat."))
            return
        try:
            await database_sync_to_async(self._run)(action, content)
        except services.Refused as refusal:
            await self._refuse(refusal.message)
            if refusal.resync:
                await self._send_table(force=True)

    def _within_rate(self) -> bool:
        now = time.monotonic()
        self.command_times = [t for t in self.command_times if now - t < COMMAND_WINDOW]
        self.command_times.append(now)
        return len(self.command_times) <= COMMAND_BURST

    def _run(self, action: str, content: dict[str, Any]) -> None:
        """Translate one command into one service call (all checks live in the service)."""
        with translation.override(self.language):
            user, table_id = self.user, self.table_id
            if action in {"play", "pickup"}:
                hand = selectors.current_hand(
                    selectors.current_match(Table.objects.get(pk=table_id))
                )
                if hand is None:
                    raise services.Refused(_("No hand is being played here."))
                services.hand_act(
                    hand_id=hand.pk,
                    move=parse_move(action, content),
                    version=_int(content.get("version")),
                    user=user,
                )
            elif action == "sit":
                position = content.get("position")
                services.table_sit(
                    table_id=table_id,
                    user=user,
                    position=None if position in (None, "") else _int(position),
                )
            elif action == "leave":
                services.table_leave(table_id=table_id, user=user)
            elif action == "add_bot":
                services.table_add_bot(
                    table_id=table_id,
                    by=user,
                    position=_int(content.get("position")),
                    level=str(content.get("level", "")),
                )
            elif action == "remove_bot":
                services.table_remove_bot(
                    table_id=table_id, by=user, position=_int(content.get("position"))
                )
            elif action == "start":
                services.match_start(table_id=table_id, by=user)
            elif action == "rematch":
                services.match_rematch(table_id=table_id, by=user)
            elif action == "chat":
                services.chat_post(table_id=table_id, user=user, text=str(content.get("text", "")))
            elif action in MODERATOR_COMMANDS:
                run_moderator_command(action=action, content=content, user=user, table_id=table_id)
            else:
                raise services.Refused(_("Unknown command."))

    async def _refuse(self, message: str) -> None:
        await self.send(text_data=await database_sync_to_async(self._render_notice)(message))

    def _render_notice(self, message: str) -> str:
        with translation.override(self.language):
            return renderers.notice_fragment(message)

    # --- events from the group -----------------------------------------------------------------

    async def table_changed(self, event: dict[str, Any]) -> None:
        version = event.get("version")
        if version is not None and version <= self.last_version:
            return  # an older event overtaken by a newer render: nothing new to show
        await self._send_table(event=event.get("id"))

    async def chat_changed(self, event: dict[str, Any]) -> None:
        html = await database_sync_to_async(self._render_chat)()
        await self.send(text_data=html)

    async def _send_table(self, force: bool = False, event: str | None = None) -> None:
        html, version = await database_sync_to_async(self._render_table)(event)
        if not force and version < self.last_version:
            return
        self.last_version = version
        await self.send(text_data=html)

    def _render_table(self, event: str | None = None) -> tuple[str, int]:
        key = (self.table_id, event, self.language, self._is_user()) if event else None
        if key is not None:
            shared = SHARED_RENDERS.get(key)
            if shared is not None and selectors.sees_as_spectator(self.user, shared.insiders):
                SHARED_RENDERS.hit()
                return shared.render
        with translation.override(self.language):
            table = Table.objects.get(pk=self.table_id)
            view = selectors.table_view(table=table, viewer=self.user)
            render = renderers.table_fragments(view), view.version
        if key is not None and selectors.sees_as_spectator(self.user, view.insiders):
            SHARED_RENDERS.put(key, SharedRender(render, view.insiders))
        return render

    def _render_chat(self) -> str:
        with translation.override(self.language):
            table = Table.objects.get(pk=self.table_id)
            return renderers.chat_fragment(table, viewer=self.user)


class LobbyConsumer(UserSocketMixin, AsyncWebsocketConsumer):
    """The lobby's live list of open tables."""

    async def connect(self) -> None:
        if user_is_banned(self.scope.get("user")):
            await self.close(code=4403)
            return
        allowed = await database_sync_to_async(connection_allowed)(self.scope)
        if not allowed:
            await self.close(code=4429)
            return
        self.language = _scope_language(self.scope)
        await self.channel_layer.group_add(events.LOBBY_GROUP, self.channel_name)
        await self.join_user_group()
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.leave_user_group()
        await self.channel_layer.group_discard(events.LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # the lobby only listens

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        html = await database_sync_to_async(self._render)()
        await self.send(text_data=html)

    def _render(self) -> str:
        with translation.override(self.language):
            return renderers.lobby_fragment()


def parse_move(action: str, content: dict[str, Any]) -> dict[str, Any]:
    """The engine move JSON of a play or pick-up command (the engine judges it)."""
    if action == "pickup":
        return {"type": "pickup", "count": _int(content.get("count", 3))}
    cards = content.get("cards", "")
    if isinstance(cards, str):
        cards = [c for c in cards.split(",") if c]
    if not isinstance(cards, list) or not cards:
        raise services.Refused(_("Choose a card to play."))
    return {"type": "play", "cards": [str(c) for c in cards]}


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise services.Refused(_("That message could not be read.")) from None


def _scope_language(scope: dict[str, Any]) -> str:
    """The language to render in: the user's, else the language cookie's, else the browser's."""
    from django.conf import settings
    from django.utils.translation.trans_real import parse_accept_lang_header

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
