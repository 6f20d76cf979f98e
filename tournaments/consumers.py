"""Websocket edge of the tournaments app: the live tournament page.

``TournamentConsumer`` only listens: on every ``tournament.changed`` event of its
tournament it re-renders the page's live parts (status, standings, tables,
announcements) for its own viewer. Events that come in a burst (a balancing step moves
several players, many tables finish hands) are rendered once. As every socket of a
signed-in user, it also joins the user's group, so moderation reaches it and a
tournament that seats or moves him takes the page to his table.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from core.csrf import socket_csrf_token
from games.consumers import (
    CLOSE_LIMITED,
    FLOOD_CLOSE,
    LimitedSocketMixin,
    _scope_language,
    connection_allowed,
)
from games.consumers_moderation import UserSocketMixin, user_is_banned
from tournaments import events, renderers
from tournaments.models import Tournament

RENDER_COALESCE = 0.25  # seconds: events arriving meanwhile are rendered together


class TournamentConsumer(LimitedSocketMixin, UserSocketMixin, AsyncWebsocketConsumer):
    """One viewer of one tournament page, within the limits of every socket (sockets open
    per user, connections per minute, frames per second)."""

    tournament_id: int
    group: str | None = None

    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.user = self.scope.get("user")
        self.language = _scope_language(self.scope)
        self.stale = False
        self.renderer: asyncio.Task | None = None
        if not self.take_socket():
            await self.close(code=CLOSE_LIMITED)
            return
        if user_is_banned(self.user) or not await database_sync_to_async(self._may_watch)():
            await self.close(code=4403)
            return
        self.group = events.tournament_group(self.tournament_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.join_user_group()
        await self.accept()
        await self.tournament_changed({})  # whatever changed between the page and the socket

    def _may_watch(self) -> bool:
        return (
            connection_allowed(self.scope)
            and Tournament.objects.filter(pk=self.tournament_id).exists()
        )

    async def disconnect(self, code: int) -> None:
        self.give_back_socket()
        if self.renderer is not None:
            self.renderer.cancel()
        await self.leave_user_group()
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # The page only listens; a socket that keeps talking is closed.
        if not self.frame_allowed() and len(self.frame_times) > FLOOD_CLOSE:
            await self.close(code=CLOSE_LIMITED)

    async def tournament_changed(self, event: dict[str, Any]) -> None:
        self.stale = True
        if self.renderer is None or self.renderer.done():
            self.renderer = asyncio.create_task(self._render_while_stale())

    async def _render_while_stale(self) -> None:
        while self.stale:
            await asyncio.sleep(RENDER_COALESCE)
            self.stale = False
            html = await database_sync_to_async(renderers.tournament_fragments)(
                tournament_id=self.tournament_id,
                viewer=self._socket_user(),
                language=self.language,
                csrf_token=socket_csrf_token(self.scope),
            )
            await self.send(text_data=html)
