"""The lobby's websocket: its live list of open tables (and its TV table)."""

from __future__ import annotations

from typing import Any

from django.utils import translation

from games import events, renderers
from live import LIVE, LiveSocket, in_pool


class LobbyConsumer(LiveSocket):
    """The lobby's live list of open tables. It only listens."""

    def listen(self) -> list[str]:
        return [events.LOBBY_GROUP]

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        html = await in_pool(self._render)(event.get("id"))
        await self.send(text_data=html)

    def _render(self, event: str | None) -> str:
        with translation.override(self.language):
            if event is None:
                return renderers.lobby_fragment()
            return LIVE.shared(("lobby", event, self.language), renderers.lobby_fragment)
