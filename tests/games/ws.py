"""Websocket clients for consumer tests: real ASGI stack, real sessions, real Redis layer."""

from __future__ import annotations

import asyncio
import re

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts.models import User
from pan_site.asgi import application

ORIGIN = (b"origin", b"http://127.0.0.1:8000")


@database_sync_to_async
def session_cookie(user: User) -> bytes:
    client = Client()
    client.force_login(user)
    session_id = client.cookies[settings.SESSION_COOKIE_NAME].value
    return f"{settings.SESSION_COOKIE_NAME}={session_id}".encode()


async def connect(path: str, user: User | None = None) -> WebsocketCommunicator:
    """Open a websocket as ``user`` (None: an anonymous visitor); assert it is accepted."""
    headers = [ORIGIN]
    if user is not None:
        headers.append((b"cookie", await session_cookie(user)))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect(timeout=10)
    assert connected, f"{path} refused the connection"
    return communicator


async def frames_until(
    communicator: WebsocketCommunicator, pattern: str, timeout: float = 10
) -> list[str]:
    """Every frame received (pings left out) until one matches ``pattern``."""
    frames: list[str] = []
    loop = asyncio.get_running_loop()
    give_up = loop.time() + timeout
    while True:
        remaining = give_up - loop.time()
        if remaining <= 0:
            raise AssertionError(f"no frame matched {pattern!r}; got {frames!r}")
        try:
            frame = await communicator.receive_from(timeout=remaining)
        except TimeoutError:
            raise AssertionError(f"no frame matched {pattern!r}; got {frames!r}") from None
        if 'id="ws-ping"' in frame:
            continue
        frames.append(frame)
        if re.search(pattern, frame):
            return frames


def version_of(frame: str) -> int:
    return int(re.search(r'data-version="(\d+)"', frame).group(1))
