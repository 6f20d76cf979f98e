"""Websocket edge of the tournaments app: the live tournament page.

``TournamentConsumer`` only listens: on every ``tournament.changed`` event of its
tournament it re-renders the page's live parts (status, standings, tables,
announcements) for its own viewer. Events that come in a burst (a balancing step moves
several players, many tables finish hands) are rendered once. As every socket of a
signed-in user (``live.LiveSocket``), it also joins the user's group, so
moderation reaches it and a tournament that seats or moves him takes the page to his
table.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qs

from core.csrf import socket_csrf_token
from live import LiveSocket, in_pool
from tournaments import events, renderers
from tournaments.models import Tournament

RENDER_COALESCE = 0.25  # seconds: events arriving meanwhile are rendered together


class TournamentConsumer(LiveSocket):
    """One viewer of one tournament page. It only listens."""

    tournament_id: int
    stale = False
    renderer: asyncio.Task | None = None

    def may_open(self) -> bool:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        return Tournament.objects.filter(pk=self.tournament_id).exists()

    def listen(self) -> list[str]:
        return [events.tournament_group(self.tournament_id)]

    async def opened(self) -> None:
        await self.tournament_changed({})  # whatever changed between the page and the socket

    def board_page(self) -> int | None:
        """The arena leaderboard's page the viewer looks at (``?page=`` of the socket)."""
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        try:
            return int(query["page"][0])
        except (KeyError, ValueError):
            return None

    async def closing(self) -> None:
        if self.renderer is not None:
            self.renderer.cancel()

    async def tournament_changed(self, event: dict[str, Any]) -> None:
        self.stale = True
        if self.renderer is None or self.renderer.done():
            self.renderer = asyncio.create_task(self._render_while_stale())

    async def _render_while_stale(self) -> None:
        while self.stale:
            await asyncio.sleep(RENDER_COALESCE)
            self.stale = False
            html = await in_pool(renderers.tournament_fragments)(
                tournament_id=self.tournament_id,
                viewer=self.signed_in_user(),
                language=self.language,
                csrf_token=socket_csrf_token(self.scope),
                page=self.board_page(),
            )
            await self.send(text_data=html)
