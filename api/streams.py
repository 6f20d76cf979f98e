"""The API's NDJSON streams, served by the site's ASGI server: one JSON object per line,
and an empty line every ``KEEP_ALIVE`` seconds so that clients and proxies see the
stream is alive.

Each stream listens on the channel layer through its public interface: a channel of its
own (``new_channel``), added to the groups it follows (``group_add``), read one message
at a time (``receive``), and taken out of them when the stream ends (``group_discard``).

- The event stream (``event_stream``) follows the user's group
  (``core.broadcast.user_group``), which every socket of the user joins too: it writes
  each ``api.event``'s line as it is (games starting and finishing, ``api.signals``;
  challenges, from the social app) and ignores the other events.
- A game stream (``game_stream``) follows one table's group: ``gameFull`` first, then a
  ``gameState`` after every change of the hand, the match or the next hand, ``chatLine``
  for the table's chat and ``opponentGone`` when another player's connection comes or
  goes; it ends once the match it showed is over.

Both end when the user is banned (moderation's ``user.kick`` reaches his group), and at
the keep-alive after a minute at most when his token was revoked meanwhile.

Reads run in a thread pool with persistent connections (``api.db.in_pool``); the table reads of
one process are shared by its streams (``SharedSnapshots``): after a move, the first
stream of a table to hear of it makes the snapshot from the event (no query, as the
table's sockets do), and the others take it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson
from channels.layers import get_channel_layer
from django.utils import timezone

from accounts.models import User
from api import selectors as api_selectors
from api.db import in_pool
from api.models import AccessToken
from core.broadcast import user_group
from games import selectors
from games.events import table_group
from games.selectors import TableSnapshot

logger = logging.getLogger(__name__)

KEEP_ALIVE = 6.0  # seconds between keep-alive lines
RECHECK_TOKEN = 60.0  # seconds: how often a stream asks whether its token still holds
API_EVENT = "api.event"
KEEP_ALIVE_LINE = b"\n"


def ndjson(line: dict[str, Any]) -> bytes:
    return orjson.dumps(line) + b"\n"


# Lines written when an event stream opens, beside the games in play: each provider gives
# the user's own (the social app registers its pending challenges).
OpeningLines = Callable[[User], list[dict[str, Any]]]
_opening_lines: list[OpeningLines] = []


def register_opening_lines(provider: OpeningLines) -> None:
    """``provider(user)`` gives lines the event stream writes when it opens (in a thread:
    it may read the database). Registered once, from an ``AppConfig.ready()``."""
    if provider not in _opening_lines:
        _opening_lines.append(provider)


def token_still_valid(token_id: int) -> bool:
    """Whether a stream's token is still live and its owner not banned."""
    row = AccessToken.objects.select_related("owner").filter(pk=token_id).first()
    return (
        row is not None
        and row.revoked_at is None
        and row.owner.is_active
        and not row.owner.is_banned()
    )


class Listener:
    """A channel of the running loop on the groups a stream follows; ``next`` waits for
    its next message until a deadline (None at the deadline), keeping one receive
    pending across calls so that no message is lost between them."""

    def __init__(self) -> None:
        self.layer = get_channel_layer()
        self.channel = ""
        self.groups: list[str] = []
        self.pending: asyncio.Future | None = None

    async def open(self, *groups: str) -> None:
        self.channel = await self.layer.new_channel()
        for group in groups:
            await self.layer.group_add(group, self.channel)
            self.groups.append(group)

    async def next(self, timeout: float) -> dict[str, Any] | None:
        if self.pending is None:
            self.pending = asyncio.ensure_future(self.layer.receive(self.channel))
        done, _ = await asyncio.wait({self.pending}, timeout=max(0.0, timeout))
        if not done:
            return None
        message, self.pending = self.pending.result(), None
        return message

    async def close(self) -> None:
        """Leave the groups and drop the channel. A stream ends by being cancelled (its
        client went away), maybe more than once: the leaving runs as a task of its own,
        which a second cancellation does not cut short."""
        leaving = asyncio.ensure_future(self._leave())
        _LEAVING.add(leaving)
        leaving.add_done_callback(_LEAVING.discard)
        with contextlib.suppress(asyncio.CancelledError):  # cancelled anyway; leaving goes on
            await asyncio.shield(leaving)

    async def _leave(self) -> None:
        if self.pending is not None:
            self.pending.cancel()  # a cancelled receive forgets its channel and unsubscribes
            await asyncio.gather(self.pending, return_exceptions=True)
        for group in self.groups:
            try:
                await self.layer.group_discard(group, self.channel)
            except Exception:  # the stream is over anyway; the layer logs its own trouble
                logger.exception("leaving %s failed", group)


# Streams leaving their groups: asyncio keeps only weak references to tasks.
_LEAVING: set[asyncio.Future] = set()


class Beats:
    """When to write the next keep-alive line and when to check the token again."""

    def __init__(self, token_id: int) -> None:
        self.token_id = token_id
        now = time.monotonic()
        self.next_beat = now + KEEP_ALIVE
        self.next_check = now + RECHECK_TOKEN

    def wait(self) -> float:
        return self.next_beat - time.monotonic()

    def beat(self) -> None:
        self.next_beat = time.monotonic() + KEEP_ALIVE

    async def token_holds(self) -> bool:
        now = time.monotonic()
        if now < self.next_check:
            return True
        self.next_check = now + RECHECK_TOKEN
        return await in_pool(token_still_valid)(self.token_id)


async def kicked(user_id: int) -> bool:
    """Moderation reached the user's group (a ban, or a log-out everywhere): whether his
    ban is in force, which ends his streams."""

    def banned() -> bool:
        user = User.objects.filter(pk=user_id).only("banned_until").first()
        return user is None or user.is_banned()

    return await in_pool(banned)()


# --- the event stream -------------------------------------------------------------------


# The event stream's lines about the account's games: a token that plays (bot:play,
# board:play) reads them; one that only reads challenges (challenge:read) does not.
GAME_LINES = frozenset({"gameStart", "gameFinish"})


def _opening(user: User, games: bool) -> list[dict[str, Any]]:
    lines = api_selectors.games_in_play(user) if games else []
    for provider in _opening_lines:
        try:
            lines.extend(provider(user))
        except Exception:  # one provider's failure must not close everybody's stream
            logger.exception("opening lines of %r failed", provider)
    return lines


async def event_stream(user: User, token_id: int, *, games: bool = True) -> AsyncIterator[bytes]:
    """The user's event stream: ``gameStart`` for each match he plays now, the lines of
    the registered providers, then every ``api.event`` sent to his group; without
    ``games``, none of the ``GAME_LINES``."""
    listener, beats = Listener(), Beats(token_id)
    try:
        await listener.open(user_group(user.pk))  # before the read: nothing falls between
        for line in await in_pool(_opening)(user, games):
            yield ndjson(line)
        while True:
            message = await listener.next(beats.wait())
            if message is None:
                if not await beats.token_holds():
                    return
                yield KEEP_ALIVE_LINE
                beats.beat()
                continue
            kind = message.get("type")
            if kind == API_EVENT and isinstance(message.get("line"), dict):
                if games or message["line"].get("type") not in GAME_LINES:
                    yield ndjson(message["line"])
            elif kind == "user.kick" and await kicked(user.pk):
                return
    finally:
        await listener.close()


# --- a game stream ----------------------------------------------------------------------


class SharedSnapshots:
    """The latest snapshot of each table this process's game streams follow, so that a
    move is read (or made from its event) once per process, not once per stream. Used
    from the event loop only."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self.latest: OrderedDict[int, TableSnapshot] = OrderedDict()

    def get(self, table_id: int) -> TableSnapshot | None:
        return self.latest.get(table_id)

    def put(self, table_id: int, snapshot: TableSnapshot) -> TableSnapshot:
        """Keep ``snapshot`` unless a later one is kept; return the one kept."""
        known = self.latest.get(table_id)
        if known is not None and _later_or_same(known, snapshot):
            return known
        self.latest[table_id] = snapshot
        self.latest.move_to_end(table_id)
        while len(self.latest) > self.size:
            self.latest.popitem(last=False)
        return snapshot


def _later_or_same(known: TableSnapshot, other: TableSnapshot) -> bool:
    """Whether ``known`` shows the table at least as late as ``other`` (same match, and a
    hand position as late; a table read in full at another match is never compared)."""
    if known.match is None or other.match is None or known.match.pk != other.match.pk:
        return False
    if known.match.status != other.match.status:
        return False
    return known.position >= other.position and known.taken_at >= other.taken_at


SHARED = SharedSnapshots()


def _read_table(table_id: int, frame: TableSnapshot | None, hand_id: int | None) -> TableSnapshot:
    if frame is not None and hand_id is not None:
        return selectors.table_snapshot(table_id=table_id, frame=frame, hand_id=hand_id)
    return selectors.table_snapshot(table_id=table_id)


async def snapshot_for_event(
    table_id: int, frame: TableSnapshot, event: dict[str, Any]
) -> TableSnapshot:
    """The table after ``event`` (a ``table.changed``), from the process's latest snapshot
    or ``frame``: a move's change applied without a query where it can be, else a read
    of the hand alone, else of the whole table."""
    hand_id, version, change = event.get("hand"), event.get("version"), event.get("change")
    shared = SHARED.get(table_id)
    base = shared if shared is not None and _later_or_same(shared, frame) else frame
    if hand_id is not None and version is not None:
        if base.position == (hand_id, version) and base.hand is not None:
            return base  # another stream of this process has made it already
        if change is not None:
            after = selectors.snapshot_after_change(
                base, hand_id=hand_id, version=version, change=change, now=timezone.now()
            )
            if after is not None:
                return SHARED.put(table_id, after)
        read = await in_pool(_read_table)(table_id, base, hand_id)
    else:
        read = await in_pool(_read_table)(table_id, None, None)
    return SHARED.put(table_id, read)


async def game_stream(user: User, token_id: int, table_id: int) -> AsyncIterator[bytes]:
    """A table's game stream for ``user`` (the caller checked he may follow it)."""
    listener, beats = Listener(), Beats(token_id)
    try:
        await listener.open(table_group(table_id), user_group(user.pk))
        # Read once the channel listens: no change falls between the read and the events.
        snapshot = SHARED.put(table_id, await in_pool(_read_table)(table_id, None, None))
        seat = api_selectors.seat_of(snapshot, user)
        chat_after = await in_pool(api_selectors.last_chat_id)(table_id)
        yield ndjson(api_selectors.game_full(snapshot, user))
        shown = api_selectors.state_key(snapshot)
        over = api_selectors.match_over(snapshot)
        while not over:
            message = await listener.next(beats.wait())
            if message is None:
                if not await beats.token_holds():
                    return
                yield KEEP_ALIVE_LINE
                beats.beat()
                continue
            kind = message.get("type")
            if kind == "table.changed":
                snapshot = await snapshot_for_event(table_id, snapshot, message)
                seat = api_selectors.seat_of(snapshot, user)  # a match may have started
                key = api_selectors.state_key(snapshot)
                if key != shown:
                    yield ndjson(api_selectors.game_state(snapshot, seat))
                    shown = key
                over = api_selectors.match_over(snapshot)
            elif kind == "chat.changed":
                lines = await in_pool(api_selectors.chat_lines)(table_id, after_id=chat_after)
                for line in lines:
                    yield ndjson(line)
                    chat_after = max(chat_after, line["id"])
            elif kind == "presence.changed":
                other = next(
                    (
                        p
                        for p in snapshot.match_players
                        if p.user_id == message.get("user") and p.user_id != user.pk
                    ),
                    None,
                )
                if other is not None:
                    line = {
                        "type": "opponentGone",
                        "seat": other.seat,
                        "gone": not message.get("on"),
                    }
                    yield ndjson(line)
            elif kind == "user.kick" and await kicked(user.pk):
                return
    finally:
        await listener.close()
