"""The bare baseline of `make bench-load`: a minimal Channels consumer per socket.

``/ws/base/<table>/<seat>/`` joins the table's group. A ``move`` command from the seat
whose turn it is is group_sent over the same channels_redis layer as the site's, and
every consumer of the table forwards a small frame with the new sequence number, shaped
like the site's (the status's mark, ``table-status`` with ``data-hand`` and
``data-version``, and a ``my-hand`` whose ``my-moves`` hold the one form for the seat to
move), so the same client drives both. Run it under daphne with
``DJANGO_SETTINGS_MODULE=bench.baseline_settings``.
"""

from __future__ import annotations

import json
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.baseline_settings")
django.setup()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

SEATS = 4


def frame(version: int, seat: int) -> str:
    """The table as the seat sees it at ``version``: seat ``version % 4`` is to move,
    offered one move among the hand's other moves (``my-moves``), which the client
    sends with the version the status's mark holds, as the site's forms do."""
    form = (
        '<form ws-send><input type="hidden" name="action" value="pickup">'
        '<input type="hidden" name="count" value="1"></form>'
        if version % SEATS == seat
        else ""
    )
    return (
        f'<input id="table-status" type="hidden" data-hand="1" data-version="{version}">'
        f'<div id="my-hand"><div id="my-moves">{form}</div></div>'
    )


class BaselineConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        self.seat = kwargs["seat"]
        self.group = f"base-{kwargs['table']}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send(text_data=frame(0, self.seat))

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        content = json.loads(text_data or "{}")
        if content.get("action") == "pickup":
            version = int(content["version"]) + 1
            await self.channel_layer.group_send(self.group, {"type": "bench.move", "v": version})

    async def bench_move(self, event: dict) -> None:
        await self.send(text_data=frame(event["v"], self.seat))


application = ProtocolTypeRouter(
    {"websocket": URLRouter([path("ws/base/<str:table>/<int:seat>/", BaselineConsumer.as_asgi())])}
)
