"""Websocket edge of the quick pairing: ``/ws/seek/``, the lobby's "Play now" panel.

The seek lives as long as this socket: a ``seek`` command creates it (and seats whoever
can be seated now), closing the socket deletes it. The socket hears how many wait for
the same table (``pairing.waiting``), where its player was seated (``pairing.seated``),
and that staff removed his seek (``pairing.removed``, answered with ``cancelled``).
Frames are JSON both ways; the texts the page shows are translated here.

In: ``{"action": "seek", "time_control": "3+2", "size": "2"|"3"|"4"|"any", "wait": 30}``,
``{"action": "cancel"}``, ``{"action": "bots", "level": "greedy"}``.
Out: ``{"type": "waiting", "count": n, "text": ..., "bots_after": s}``,
``{"type": "seated", "url": ...}``, ``{"type": "cancelled"}``,
``{"type": "refused", "message": ..., "waiting": bool}`` (with ``"url"``: the table at
which the player already has a seat).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.errors import Refused
from games.models import Table
from games.services import PRESET_KEYS
from live import LiveSocket, in_pool
from pairing import events, matching, services
from pairing.models import SEEN_EVERY, SIZES

T = TypeVar("T")
SEEKS_PER_MINUTE = 10  # seek commands one socket may send in a minute


class SeekConsumer(LiveSocket):
    """One signed-in player's "Play now" panel."""

    signed_in_only = True
    seeking: tuple[str, int | None] | None = None  # (time control, size) while waiting
    waiting_group_name: str | None = None
    heartbeat: asyncio.Task | None = None

    def listen(self) -> list[str]:
        return [events.seeker_group(self.user.pk)]

    async def opened(self) -> None:
        self.seek_times: list[float] = []
        self.heartbeat = asyncio.create_task(self._say_alive())

    async def closing(self) -> None:
        if self.heartbeat is None:
            return  # never opened
        self.heartbeat.cancel()
        await self._stop_waiting()
        await in_pool(services.seek_cancel)(user=self.user, channel_name=self.channel_name)

    async def command(self, text: str) -> None:
        try:
            frame = json.loads(text)
        except ValueError:
            frame = None
        action = frame.get("action") if isinstance(frame, dict) else None
        try:
            if action == "seek":
                await self._seek(frame)
            elif action == "cancel":
                await self._cancel()
            elif action == "bots":
                await self._bots(frame)
            else:
                raise Refused(self._say(lambda: _("Unknown command.")))
        except Refused as refused:
            waiting = self.seeking is not None
            reply = {"type": "refused", "message": refused.message, "waiting": waiting}
            if isinstance(refused, services.SeatedElsewhere):
                reply["url"] = refused.table_url  # the panel links to his table
            await self._send(reply)

    async def _seek(self, frame: dict[str, Any]) -> None:
        time_control, size, wait = _seek_fields(frame)
        now = time.monotonic()
        self.seek_times = [t for t in self.seek_times if now - t < 60]
        if len(self.seek_times) >= SEEKS_PER_MINUTE:
            raise Refused(self._say(lambda: _("Too many requests; wait a minute.")))
        self.seek_times.append(now)
        if self.seeking is not None:
            raise Refused(self._say(lambda: _("You are already waiting for a game.")))
        # Hear the counts before the seek exists, so that none of them is missed (a group
        # name is made only of a known time control; the service refuses another).
        self.seeking = (time_control, size)
        if time_control in PRESET_KEYS:
            self.waiting_group_name = events.waiting_group(time_control)
            await self.channel_layer.group_add(self.waiting_group_name, self.channel_name)
        try:
            await in_pool(self._in_language(services.seek_create))(
                user=self.user,
                time_control=time_control,
                size=size,
                bots_after=wait,
                channel_name=self.channel_name,
                now=timezone.now(),
            )
        except Refused:
            await self._stop_waiting()
            raise
        await self._send({"type": "waiting", "bots_after": wait, "count": None, "text": ""})
        await in_pool(services.pairing_match)(now=timezone.now())

    async def _cancel(self) -> None:
        await self._stop_waiting()
        await in_pool(services.seek_cancel)(user=self.user, channel_name=self.channel_name)
        await self._send({"type": "cancelled"})

    async def _bots(self, frame: dict[str, Any]) -> None:
        level = frame.get("level")
        await in_pool(self._in_language(services.seek_fill_with_bots))(
            user=self.user, level=level if isinstance(level, str) else "", now=timezone.now()
        )  # the seated event takes the page to the table

    async def _say_alive(self) -> None:
        """While the socket waits, its seek is marked alive (a silent one is dropped)."""
        while True:
            await asyncio.sleep(SEEN_EVERY)
            if self.seeking is not None:
                await in_pool(services.seek_seen)(
                    user=self.user, channel_name=self.channel_name, now=timezone.now()
                )

    async def _stop_waiting(self) -> None:
        self.seeking = None
        if self.waiting_group_name is not None:
            await self.channel_layer.group_discard(self.waiting_group_name, self.channel_name)
            self.waiting_group_name = None

    async def pairing_waiting(self, event: dict[str, Any]) -> None:
        if self.seeking is None or self.seeking[0] != event.get("time_control"):
            return
        count = matching.waiting_for(event.get("counts") or {}, self.seeking[1])
        text = self._say(
            lambda: (
                ngettext(
                    "%(n)d player waits for this table.",
                    "%(n)d players wait for this table.",
                    count,
                )
                % {"n": count}
            )
        )
        await self._send({"type": "waiting", "count": count, "text": text})

    async def pairing_removed(self, event: dict[str, Any]) -> None:
        """Staff removed his seek: the panel stops waiting."""
        if self.seeking is None:
            return
        await self._stop_waiting()
        await self._send({"type": "cancelled"})

    async def pairing_seated(self, event: dict[str, Any]) -> None:
        await self._stop_waiting()
        url = Table(pk=int(event["table"])).get_absolute_url()
        await self._send({"type": "seated", "url": url})

    async def _send(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(frame))

    def _say(self, text: Callable[[], str]) -> str:
        with translation.override(self.language):
            return text()

    def _in_language(self, service: Callable[..., T]) -> Callable[..., T]:
        """``service`` saying its refusals in the socket's language."""

        def run(**kwargs: Any) -> T:
            with translation.override(self.language):
                return service(**kwargs)

        return run


def _seek_fields(frame: dict[str, Any]) -> tuple[str, int | None, int]:
    """The time control, size (None: any) and wait of a seek frame; the service checks
    their values, this only their types."""
    time_control = frame.get("time_control")
    size = str(frame.get("size", ""))
    try:
        wait = int(frame.get("wait", 0))
    except (TypeError, ValueError):
        wait = 0
    if size == "any":
        return str(time_control or ""), None, wait
    if size not in {str(n) for n in SIZES}:
        size = "0"  # the service refuses it
    return (time_control if isinstance(time_control, str) else ""), int(size), wait
