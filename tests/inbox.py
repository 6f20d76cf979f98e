"""A channel listening to groups from sync tests, on the real Redis layer.

The layer is Redis pub/sub: an event reaches whoever listens when it is published and
is not kept for later. A sync test that wants to see what a service announced opens an
``Inbox`` on the groups first; it listens on an event loop of its own, in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from types import TracebackType

from channels.layers import BaseChannelLayer, get_channel_layer


class Inbox:
    """``with Inbox(["user-1", ...]) as inbox: ...`` then ``inbox.events()``."""

    def __init__(self, groups: list[str]) -> None:
        self.groups = groups
        self._events: list[dict] = []
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(
            target=self._loop.run_until_complete, args=(self._listen(),)
        )

    async def _listen(self) -> None:
        self._stop = asyncio.Event()
        layer = get_channel_layer()
        channel = await layer.new_channel()
        for group in self.groups:
            await layer.group_add(group, channel)
        await asyncio.sleep(0.2)  # the subscriptions take effect in Redis
        self._ready.set()
        # As Channels' consumer loop does: ``receive`` after ``receive``, cancelled only at
        # the end. (A ``receive`` that timed out would forget the channel and its groups,
        # and lose what came before the next one.)
        receiving = asyncio.ensure_future(self._receive(layer, channel))
        await self._stop.wait()
        receiving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await receiving
        await layer.flush()

    async def _receive(self, layer: BaseChannelLayer, channel: str) -> None:
        while True:
            self._events.append(await layer.receive(channel))

    def __enter__(self) -> Inbox:
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the inbox did not start listening")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def events(self, *, settle: float = 0.5) -> list[dict]:
        """Every event received, after ``settle`` seconds more for late ones."""
        threading.Event().wait(settle)
        return list(self._events)

    def close(self) -> None:
        if self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)
        if not self._loop.is_closed():
            self._loop.close()
