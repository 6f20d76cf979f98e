"""Websocket clients for consumer tests: real ASGI stack, real sessions, real Redis layer."""

from __future__ import annotations

import asyncio
import re
from html.parser import HTMLParser

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts.models import User
from pan_site.asgi import application
from tests.games import dom

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


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _Elements(HTMLParser):
    """The top-level elements of a fragment: (id, start, end) offsets."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.depth, self.start, self.id = 0, 0, ""
        self.found: list[tuple[str, int, int]] = []
        self.feed(text)
        self.close()

    def at(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.start, self.id = self.at(), dict(attrs).get("id") or ""
        if tag in VOID:
            if self.depth == 0:
                self.found.append((self.id, self.start, self.at() + len(self.get_starttag_text())))
            return
        self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        self.depth -= 1
        if self.depth == 0:
            end = self.at() + len(f"</{tag}>")
            self.found.append((self.id, self.start, end))


def elements(fragment: str) -> list[tuple[str, str]]:
    """The top-level elements of ``fragment``, each as (its id, its HTML)."""
    return [(id_, fragment[start:end]) for id_, start, end in _Elements(fragment).found]


class Page:
    """What a table page shows after the frames it took, as htmx's ws extension swaps
    them in (``tests.games.dom``): a part of a first frame is put in as it is, then
    every part goes where its id or its ``hx-swap-oob`` says."""

    def __init__(self) -> None:
        self.root = dom.Element("#root")

    def take(self, *frames: str) -> Page:
        for frame in frames:
            for oob in dom.parse(frame).elements():
                value = oob.attrs.get("hx-swap-oob", "true")
                if value == "true" and self.root.by_id(oob.attrs.get("id", "")) is None:
                    oob.attrs.pop("hx-swap-oob", None)
                    self.root.adopt([oob], len(self.root.children))
                else:
                    dom.swap(self.root, oob.html())
        return self

    def part(self, id_: str) -> str:
        """The element of id ``id_``, written out."""
        element = self.root.by_id(id_)
        assert element is not None, id_
        return element.html()

    def boxes(self) -> dict[str, str]:
        """The players' boxes, by id."""
        return {
            e.attrs["id"]: e.html()
            for e in self.root.walk()
            if re.fullmatch(r"player-\d+", e.attrs.get("id", ""))
        }

    def hand(self) -> set[str]:
        """The cards of one's own hand."""
        hand = self.root.by_id("my-hand")
        return (
            set()
            if hand is None
            else {e.attrs["data-card"] for e in hand.walk() if "data-card" in e.attrs}
        )
