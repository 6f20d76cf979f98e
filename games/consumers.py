"""Websocket edge of the games app: parse, call a service, relay events."""

from __future__ import annotations

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class PingConsumer(AsyncJsonWebsocketConsumer):
    """Echoes pings so a page can show its connection lag (round trip time)."""

    async def receive_json(self, content: object, **kwargs: object) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong", "t": content.get("t")})
        else:
            await self.send_json({"type": "refused", "reason": "unknown command"})
