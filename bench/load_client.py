"""The players of `make bench-load`: one real websocket per seat, four seats a table.

Every seat reads the frames the server sends and keeps what the page would show: the
table's position (hand, version) from ``#table-status`` (the status line's mark), the
cards of the pile, and the cards of ``#my-hand`` and whether each may be played, with
the other moves on offer (``#my-moves``). A move sends only what changed (cards put on
the pile or taken off it, cards of the hand gone, come, or whose button changed), which
the seat applies to what it keeps as htmx does to the page. The seat whose moves are on
offer sends one of them, as the browser would (htmx sends a form's fields as JSON, with
the hand's version from the status's mark), when the table's next move is due. A move
is recognised on each of the table's four sockets by the first ``#table-status`` that
stands after it: the same hand at a later version, or a newer hand. Its latency is the
arrival on the last of the four minus the moment it was sent.

Which form a seat sends: ``greedy`` (the default) chooses as the site's greedy bot
would (``games.bots.greedy.greedy_move`` on the moves its forms offer, its hand's size
and the pile the page shows), so hands last as long as players make them and end (at
random, a hand of four almost never ends before the rules cut it off at 500 actions);
``random`` picks any form.

Two pacings. ``open`` (the default) is a schedule, as players who decide when to play
whatever the server does: a table's next move is due a random pause after the previous
one was *due*, not after it showed, so a server that lags is not sent less (no
coordinated omission); a table that fell behind catches up by at most ``catch_up``
seconds. Each move also has its latency from the moment it was due (``from_due``), which
counts the wait of a move that could not be sent on time. ``closed`` waits the pause
after the turn shows, as the bench did first: a lagging server is then sent less.

``lengthen`` plays the tables quickly into long hands before the measure (a move's cost
grows with the hand's history), each to its own target number of versions.

Hands are ordered by ``data-hand`` (the hand's id, growing) when the page gives it,
else by the order in which the table's sockets first saw each hand's shuffle
commitment. Pings are answered like static/js/table.js does. A refusal (``#notice``)
counts as an error by its text; so do a failed handshake (by status or exception), a
close the server started (by code), a move not seen by all four within the move
timeout (lost), and a table on which nothing happened for ``stall_after`` seconds
(stalled: its sockets then ask for a resync, as a reload would, so play goes on).

With ``reconnect`` a socket the server dropped (close codes 1006, 1011, 1012, 1013) opens
again as htmx's ws extension does on the page: after a pause drawn between 0 and 1 s,
then up to 2, 4, ... 64 s after each failed try (full jitter), and shows the table it
is sent again; a move its seat had sent and that the new render shows not applied is
given up (the player sees his turn again and plays). ``journal`` keeps every move sent,
with its table, and ``reconnects`` every socket that came back, so that a benchmark
can compare them with the database. ``upstream`` is the daphne a proxy said it chose
(the ``X-Upstream`` header of the handshake's answer, where there is one).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import json
import math
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from core.collector import Freezer, keep_long_lived_aside
from games.bots.greedy import greedy_move
from games.engine import Move, PickUp, Play, Rules

ATTR = re.compile(r'([\w:-]+)="([^"]*)"')
FORM = re.compile(r"<form\b[^>]*\bws-send\b[^>]*>(.*?)</form>", re.S)
INPUT = re.compile(r"<input\b[^>]*>")
COMMITMENT = re.compile(r'<code\b[^>]*data-testid="commitment"[^>]*>')
PING = re.compile(r'data-ping="([^"]*)"')
RECONNECT_CODES = (1006, 1011, 1012, 1013)  # the closes after which htmx reconnects
TAG = re.compile(r"<[^>]+>")
OPENING = {
    name: re.compile(rf'<(\w+)\b[^>]*\bid="{name}"[^>]*>')
    for name in ("table-status", "status-line", "my-hand", "notice", "pile")
}
CARD = re.compile(r'data-card="([^"]+)"')
# A card of the hand: its button, whose class says whether it may be played.
HAND_BUTTON = re.compile(r'<button id="hb-([^"]+)"[^>]*?class="card-button( legal)?"')
HAND_GONE = re.compile(r'hx-swap-oob="delete:(#hc-[^"]+)"')
PILE_TAKEN = re.compile(r'hx-swap-oob="delete:#pile-cards>:nth-last-child\(-n\+(\d+)\)"')
PILE_ADDED = re.compile(r'<div hx-swap-oob="beforeend:#pile-cards">(.*?)</div>', re.S)
MOVES_FORM = re.compile(r"<form ws-send>(.*?)</form>", re.S)
RULES = Rules()  # the bench's tables play by the default rules


def attrs(tag: str) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in ATTR.findall(tag)}


def element(frame: str, name: str) -> tuple[dict[str, str], str] | None:
    """The attributes and inner HTML of the element with id ``name`` (none nested in it
    of its own tag; an empty one for an input), or None when the frame does not carry it."""
    if f'id="{name}"' not in frame:
        return None
    found = OPENING[name].search(frame)
    if found is None:
        return None
    if found.group(1) == "input":
        return attrs(found.group(0)), ""
    end = frame.find(f"</{found.group(1)}>", found.end())
    return attrs(found.group(0)), frame[found.end() : end if end >= 0 else len(frame)]


def fields(body: str) -> dict[str, str]:
    """The hidden inputs of a form's body, by name."""
    found = {}
    for tag in INPUT.findall(body):
        a = attrs(tag)
        if a.get("type") == "hidden" and a.get("name"):
            found[a["name"]] = a.get("value", "")
    return found


def forms(inner: str) -> list[dict[str, str]]:
    """The fields of each ``ws-send`` form: its hidden inputs, as htmx would send them.
    A form whose button is marked ``aria-disabled`` (a card that may not be played now,
    which sends its play only to hear why not) is no move on offer."""
    found = []
    for body in FORM.findall(inner):
        if 'aria-disabled="true"' in body:
            continue
        hidden = fields(body)
        if hidden:
            found.append(hidden)
    return found


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def latency_summary(values: list[float]) -> str:
    return " ".join(
        f"{name}={quantile(values, share):.0f}"
        for name, share in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))
    )


@dataclass
class Errors:
    handshake: Counter[str] = field(default_factory=Counter)
    closed: Counter[int] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    client: Counter[str] = field(default_factory=Counter)  # this client's own failures
    lost: int = 0  # moves not seen by all four seats in time, sockets never shown the table
    stalled: int = 0

    def total(self) -> int:
        return (
            self.handshake.total()
            + self.closed.total()
            + self.refused.total()
            + self.client.total()
            + self.lost
            + self.stalled
        )

    def add(self, other: Errors) -> None:
        for counter in ("handshake", "closed", "refused", "client"):
            getattr(self, counter).update(getattr(other, counter))
        self.lost += other.lost
        self.stalled += other.stalled

    def summary(self) -> str:
        return (
            f"errors={self.total()} (handshake={self.handshake.total()} "
            f"closed={self.closed.total()} refused={self.refused.total()} lost={self.lost} "
            f"stalled={self.stalled}{f' client={self.client.total()}' if self.client else ''})"
        )

    def details(self) -> list[str]:
        kinds = [
            ("failed handshakes", self.handshake),
            ("server closes by code", self.closed),
            ("refusals", self.refused),
            ("CLIENT FAILURES (figures not to be trusted)", self.client),
        ]
        return [f"{label}: {dict(counter.most_common(8))}" for label, counter in kinds if counter]


@dataclass(frozen=True)
class SeatSpec:
    url: str
    origin: str
    cookie: str = ""


@dataclass
class Pending:
    seat: int
    hand: int
    version: int
    sent: float
    due: float  # when the schedule wanted it sent (the send itself, closed loop)
    arrived: dict[int, float] = field(default_factory=dict)
    form: dict[str, str] = field(default_factory=dict)
    given_up: bool = False  # its seat reconnected and was shown it not applied

    @property
    def acknowledged(self) -> bool:
        """Its own seat was shown the table after it."""
        return self.seat in self.arrived


@dataclass
class Reconnect:
    """A socket the server dropped, and when (monotonic) it came back and showed the table."""

    table: int
    seat: int
    code: int
    closed: float
    upstream_before: str
    opened: float | None = None
    shown: float | None = None
    upstream_after: str = ""
    tries: int = 0


class Seat:
    """One player's socket and what his page shows."""

    def __init__(self, table: Table, index: int, spec: SeatSpec) -> None:
        self.table, self.index, self.spec = table, index, spec
        self.ws: ClientConnection | None = None
        self.reader: asyncio.Task | None = None
        self.position: tuple[int, int] | None = None  # (hand ordinal, version)
        self.hand: dict[str, bool] = {}  # its cards, and whether each may be played
        self.options: list[dict[str, str]] = []  # the other moves on offer
        self.pile: tuple[str, ...] = ()  # its cards, as the page holds them (the top last)
        self.rematch = False
        self.closing = False
        self.upstream = ""
        self.coming_back: Reconnect | None = None  # while coming back, until it shows the table

    async def open(self, run: LoadRun) -> None:
        """The handshake. A failed one is counted, then tried again after a pause as
        htmx's ws extension does (full jitter, doubling), up to ``run.retries`` times."""
        for attempt in range(run.retries + 1):
            if attempt:
                await asyncio.sleep(random.uniform(0, min(2**attempt, 64)))
                if time.monotonic() > run.retry_until:
                    return
            if await self._handshake(run):
                return

    async def _handshake(self, run: LoadRun, *, slot: bool = True) -> bool:
        """One try; a failure is counted by its kind. ``slot``: wait for one of the run's
        handshake slots (``connect``'s concurrency); a page that reconnects waits for
        nobody, so neither does ``_reconnect``."""
        headers = {"Cookie": self.spec.cookie} if self.spec.cookie else None
        try:
            async with run.slots if slot else contextlib.nullcontext():
                began = time.monotonic()
                self.ws = await connect(
                    self.spec.url,
                    origin=self.spec.origin,
                    additional_headers=headers,
                    open_timeout=run.open_timeout,
                    ping_interval=None,  # daphne pings; the client only answers
                    close_timeout=2,
                    max_size=None,
                    compression=None,
                )
        except InvalidStatus as exc:
            run.errors.handshake[f"HTTP {exc.response.status_code}"] += 1
        except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed) as exc:
            # InvalidMessage: the server dropped the connection without an answer
            run.errors.handshake[type(exc).__name__] += 1
        else:
            run.handshake_ms.append((time.monotonic() - began) * 1000)
            assert self.ws.response is not None
            # nginx lists every daphne it tried: the last one answered.
            tried = self.ws.response.headers.get("X-Upstream", "")
            self.upstream = tried.rsplit(",", 1)[-1].strip()
            self.reader = asyncio.create_task(self._read(run))
            return True
        return False

    async def _reconnect(self, run: LoadRun, code: int) -> None:
        """Open again as the page does after the server dropped the socket. A socket
        dropped again before it showed the table (a daphne that stopped as its handshake
        completed) is still the same coming back: it counts from its first drop."""
        back = self.coming_back
        if back is None:
            back = Reconnect(
                self.table.index, self.index, code, time.monotonic(), upstream_before=self.upstream
            )
            run.reconnects.append(back)
        self.ws, self.position = None, None
        self.hand, self.options = {}, []
        while not self.closing:
            await asyncio.sleep(random.uniform(0, 2 ** min(back.tries, 6)))
            back.tries += 1
            if self.closing:
                return
            self.coming_back = back
            if await self._handshake(run, slot=False):
                back.opened, back.upstream_after = time.monotonic(), self.upstream
                return
            self.coming_back = None

    async def _read(self, run: LoadRun) -> None:
        ws = self.ws
        assert ws is not None
        try:
            async for message in ws:
                if isinstance(message, str):
                    await self.receive(run, message)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug of this client: counted, never silent
            run.errors.client[f"{type(exc).__name__}: {exc}"[:100]] += 1
            self.closing = True
            await ws.close()
        if not self.closing:
            received = ws.protocol.close_rcvd  # None: the connection dropped without a close
            code = received.code if received else 1006
            run.errors.closed[code] += 1
            if run.reconnect and code in RECONNECT_CODES:
                run.spawn(self._reconnect(run, code))

    async def receive(self, run: LoadRun, frame: str) -> None:
        now = time.monotonic()
        run.frames += 1
        run.frame_characters += len(frame)
        run.frame_bytes += len(frame.encode())
        if 'id="ws-ping"' in frame:
            ping = PING.search(frame)
            if ping:
                await self.send({"action": "pong", "t": ping.group(1)})
        notice = element(frame, "notice")
        if notice is not None:
            text = html.unescape(TAG.sub("", notice[1])).strip()
            if text:
                run.errors.refused[text] += 1
                self.table.refused(self)
        line = element(frame, "status-line")
        if line is not None:
            self.rematch = any(f.get("action") == "rematch" for f in forms(line[1]))
        self.take_hand(frame)
        self.take_pile(frame)
        status = element(frame, "table-status")
        if status is not None:
            self.position = self.table.position(status, line[1] if line is not None else "")
            if self.coming_back is not None:
                self.coming_back.shown, self.coming_back = now, None
                self.table.shown_again(self)
            self.table.arrived(self, now)
        self.table.next_move()

    def take_hand(self, frame: str) -> None:
        """The own hand as a frame leaves it: drawn whole, or its cards gone, come or
        whose button changed, and its other moves drawn again."""
        if 'id="my-hand"' in frame:
            self.hand, self.options = {}, []
        for gone in HAND_GONE.findall(frame):
            for code in gone.split(","):
                self.hand.pop(code.removeprefix("#hc-"), None)
        for code, legal in HAND_BUTTON.findall(frame):
            self.hand[code] = bool(legal)
        moves = frame.find('<div id="my-moves">')
        if moves >= 0:
            self.options = [
                hidden
                for hidden in map(fields, MOVES_FORM.findall(frame, moves))
                if hidden.get("action") in ("play", "pickup")
            ]

    def take_pile(self, frame: str) -> None:
        """The pile as a frame leaves it: drawn whole, or cards taken off it or put on it."""
        pile = element(frame, "pile")
        if pile is not None:
            self.pile = tuple(CARD.findall(pile[1]))
        taken = PILE_TAKEN.search(frame)
        if taken is not None:
            self.pile = self.pile[: -int(taken.group(1))]
        for added in PILE_ADDED.findall(frame):
            self.pile += tuple(CARD.findall(added))

    def offer_nothing(self) -> None:
        """No move on offer until the server draws the hand again."""
        self.hand = dict.fromkeys(self.hand, False)
        self.options = []

    @property
    def hand_size(self) -> int:
        return len(self.hand)

    @property
    def forms(self) -> list[dict[str, str]]:
        """The moves on offer, as their forms' fields: the cards that may be played, and
        the other moves."""
        plays = [{"action": "play", "cards": code} for code, legal in self.hand.items() if legal]
        return plays + self.options

    def choose(self) -> dict[str, str]:
        """The form to send: the greedy bot's choice among them, or any (``random``)."""
        if self.table.run.players == "random":
            return random.choice(self.forms)
        offered: list[tuple[Move, dict[str, str]]] = []
        for form in self.forms:
            if form.get("action") == "play" and form.get("cards"):
                offered.append((Play(tuple(form["cards"].split(","))), form))
            elif form.get("action") == "pickup" and form.get("count", "").isdigit():
                offered.append((PickUp(int(form["count"])), form))
        if not offered:
            return random.choice(self.forms)
        chosen = greedy_move(
            [move for move, _ in offered],
            max(1, self.hand_size),
            lambda: self.pile,
            RULES.three_cards != "nines",
            RULES.spades_back,
        )
        return next(form for move, form in offered if move is chosen)

    def can_move(self) -> bool:
        """Moves on offer at the position the seat shows (a move's frame carries both)."""
        return self.position is not None and bool(self.forms)

    async def send(self, content: dict[str, str]) -> None:
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(json.dumps(content))

    async def close(self) -> None:
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)


class Table:
    """Four seats, the move in flight, and the pace of the table."""

    def __init__(self, run: LoadRun, seats: list[SeatSpec], index: int = 0) -> None:
        self.run, self.index = run, index
        self.seats = [Seat(self, i, spec) for i, spec in enumerate(seats)]
        self.hands: dict[str, int] = {}  # commitment -> ordinal, when there is no data-hand
        self.pending: Pending | None = None
        self.acting: asyncio.Task | None = None
        self.latest: tuple[int, int] = (-1, -1)
        self.progress = time.monotonic()
        self.rematched: tuple[int, int] | None = None
        self.complete = False  # every seat connected: the table plays (else it sits out)
        self.due = 0.0  # open loop: when the table's next move is due
        self.target = 0  # while lengthening: the version its hand should reach

    def position(self, status: tuple[dict[str, str], str], line: str = "") -> tuple[int, int]:
        """Where the table stands as the status's mark says (``line``: the status line,
        when the frame carries it, whose shuffle commitment names a hand without id)."""
        attributes, inner = status[0], line
        version = int(attributes.get("data-version") or 0)
        if attributes.get("data-hand"):
            return int(attributes["data-hand"]), version
        code = COMMITMENT.search(inner)
        if code is None:
            return 0, version
        commitment = attrs(code.group(0)).get("title", "")
        return self.hands.setdefault(commitment, len(self.hands) + 1), version

    def arrived(self, seat: Seat, now: float) -> None:
        position = seat.position
        assert position is not None
        if position > self.latest:
            if self.run.playing and position[0] > self.latest[0]:
                self.run.new_hands += 1
            self.latest, self.progress = position, now
        pending = self.pending
        if pending is None or seat.index in pending.arrived:
            return
        if position >= (pending.hand, pending.version + 1):
            pending.arrived[seat.index] = now
            if len(pending.arrived) == len(self.seats):
                arrivals = pending.arrived.values()
                latency = (max(arrivals) - pending.sent) * 1000
                self.run.latencies.append(latency)
                self.run.from_due.append((max(arrivals) - pending.due) * 1000)
                self.run.versions.append(pending.version)
                self.run.timeline.append((pending.sent, latency))
                self.run.first_latencies.append((min(arrivals) - pending.sent) * 1000)
                self.pending = None
                self.progress = now

    def long_enough(self) -> bool:
        """While lengthening: this table's hand has reached its target (or it sits out)."""
        return not self.complete or self.latest[1] >= self.target

    def shown_again(self, seat: Seat) -> None:
        """A reconnected seat was shown the table: a move it had sent that the table does
        not show applied is given up, and its player may play again."""
        pending = self.pending
        if (
            pending is not None
            and pending.seat == seat.index
            and seat.position is not None
            and seat.position <= (pending.hand, pending.version)
        ):
            pending.given_up = True
            self.pending = None

    def refused(self, seat: Seat) -> None:
        if self.pending is not None and self.pending.seat == seat.index:
            self.pending = None

    def next_move(self) -> None:
        """Start the pause of whoever may act, unless a move is already on its way (or,
        while lengthening, the hand is long enough)."""
        if not (self.run.playing and self.complete) or self.pending or self.acting:
            return
        if self.run.lengthening and self.long_enough():
            return
        for seat in self.seats:
            if seat.position == self.latest and seat.can_move():
                self.acting = asyncio.create_task(self._act(seat, seat.position))
                return
        owner = self.seats[0]
        if owner.rematch and self.rematched != owner.position:
            # Marked asked when it is sent (``_act``): a pause cut by the end of a
            # ``play`` asks again in the next one.
            self.acting = asyncio.create_task(self._act(owner, None))

    def _pause(self) -> tuple[float, float]:
        """How long to wait before acting, and the moment the move counts as due."""
        now, run = time.monotonic(), self.run
        if run.pacing == "closed" or run.lengthening:
            pause = random.uniform(*run.pace)
            return pause, now + pause
        return max(0.0, self.due - now), self.due

    def _sent(self, due: float) -> None:
        """An action left: when the next one is due (open loop), from this one's due time,
        never more than ``catch_up`` seconds in the past."""
        run = self.run
        if run.pacing == "open" and not run.lengthening:
            self.due = max(due + random.uniform(*run.pace), time.monotonic() - run.catch_up)

    async def _act(self, seat: Seat, position: tuple[int, int] | None) -> None:
        try:
            pause, due = self._pause()
            await asyncio.sleep(pause)
            if not self.run.playing:
                return
            if position is None:
                self.rematched = seat.position
                self.run.rematches += 1
                self._sent(due)
                await seat.send({"action": "rematch"})
                return
            if seat.position != position or not seat.can_move():
                return  # the table moved on meanwhile (a timeout, a resync)
            form = seat.choose()
            version = int(form.get("version") or position[1])
            form = {**form, "version": str(version)}  # htmx adds it (hx-include)
            now = time.monotonic()
            self.pending = Pending(seat.index, position[0], version, now, min(due, now), form=form)
            self.run.journal.append((self, self.pending))
            self.run.moves_sent += 1
            self._sent(due)
            await seat.send(form)
        finally:
            self.acting = None
            self.next_move()

    def watch(self, now: float) -> None:
        """Give up on a move that never reached every seat; wake a table that stalled; with
        ``run.join_late``, let a table play once its last socket opened."""
        run = self.run
        if run.join_late and not self.complete:
            self.complete = all(seat.ws is not None for seat in self.seats)
            if self.complete:
                self.progress = now
        if self.pending is not None and now - self.pending.sent > run.move_timeout:
            run.errors.lost += 1
            self.seats[self.pending.seat].offer_nothing()  # no click again: wait (or stall)
            self.pending = None
            self.progress = now
        elif (
            self.complete
            and self.pending is None
            and self.acting is None
            and not (run.lengthening and self.long_enough())  # resting on purpose
            and now - self.progress > run.stall_after
        ):
            run.errors.stalled += 1
            self.progress = now
            for seat in self.seats:
                seat.offer_nothing()
                run.spawn(seat.send({"action": "resync"}))
        self.next_move()


# The generator holds as many sockets as the site, and a full collection of them stalled
# its loop up to 0.3 s at 250 tables, time that counted as the site's latency: so its
# collector keeps the site's schedule (``core.collector``), except that the complete pass
# comes when a configuration's sockets are closed, never while a run measures.
COLLECTOR = Freezer(full_every=math.inf)


@functools.cache
def collect_as_the_site_does() -> None:
    """Set this process's collector on ``COLLECTOR``'s schedule, once."""
    keep_long_lived_aside(COLLECTOR)


class LoadRun:
    """One configuration's sockets: connect, warm up, play for a while, close."""

    def __init__(
        self,
        tables: list[list[SeatSpec]],
        *,
        pace: tuple[float, float] = (1.0, 3.0),
        pacing: str = "open",
        catch_up: float = 4.0,
        players: str = "greedy",
        move_timeout: float = 15.0,
        stall_after: float = 20.0,
        open_timeout: float = 30.0,
        retries: int = 3,
        reconnect: bool = False,
        join_late: bool = False,
    ) -> None:
        if pacing not in ("open", "closed"):
            raise ValueError(f"pacing is open or closed, not {pacing!r}")
        collect_as_the_site_does()
        self.tables = [Table(self, seats, index) for index, seats in enumerate(tables)]
        self.reconnect = reconnect
        # A table whose sockets open while play runs joins it (a restart: play starts as
        # the sockets connect); else a table plays only if all four were open at the start.
        self.join_late = join_late
        self.reconnects: list[Reconnect] = []
        self.journal: list[tuple[Table, Pending]] = []  # every move sent, in order
        self.pace, self.move_timeout, self.stall_after = pace, move_timeout, stall_after
        self.pacing, self.catch_up = pacing, catch_up
        if players not in ("greedy", "random"):
            raise ValueError(f"players are greedy or random, not {players!r}")
        self.players = players
        self.open_timeout, self.retries = open_timeout, retries
        self.errors = Errors()
        self.latencies: list[float] = []  # a move until the last seat has it, in ms
        self.from_due: list[float] = []  # the same from when it was due (open loop)
        self.versions: list[int] = []  # the hand's version each measured move was made at
        self.first_latencies: list[float] = []  # until the first seat has it
        self.timeline: list[tuple[float, float]] = []  # (sent, latency in ms) of each move
        self.began = 0.0  # when play began (monotonic)
        self.handshake_ms: list[float] = []
        self.loop_lag_ms: list[float] = []
        self.playing = False
        self.lengthening = False
        self.lengthen_seconds = 0.0
        self.moves_sent = 0
        self.new_hands = 0
        self.rematches = 0
        self.frames = 0
        self.frame_characters = 0  # of every frame received (HTML: about as many bytes)
        self.frame_bytes = 0  # the same in UTF-8, as the socket carries them (uncompressed)
        self.slots = asyncio.Semaphore(1)
        self.retry_until = 0.0
        self.connect_seconds = self.warmup_seconds = 0.0
        self.window = 0.0
        self.stopped_early = ""
        self.background: set[asyncio.Task] = set()

    @property
    def seats(self) -> list[Seat]:
        return [seat for table in self.tables for seat in table.seats]

    async def connect(
        self, *, concurrency: int = 32, rate: float | None = None, budget: float = 90.0
    ) -> None:
        """Open every socket: ``concurrency`` handshakes at a time, or ``rate`` new sockets a
        second whatever the server answers (a storm). No retry starts after ``budget`` s."""
        began = time.monotonic()
        self.retry_until = began + budget
        if rate:
            self.slots = asyncio.Semaphore(len(self.seats) or 1)
            tasks = []
            for i, seat in enumerate(self.seats):
                await asyncio.sleep(max(0.0, began + i / rate - time.monotonic()))
                tasks.append(asyncio.create_task(seat.open(self)))
            await asyncio.gather(*tasks)
        else:
            self.slots = asyncio.Semaphore(concurrency)
            await asyncio.gather(*(seat.open(self) for seat in self.seats))
        self.connect_seconds = time.monotonic() - began

    async def warm_up(self, timeout: float) -> None:
        """Wait until every open socket has been shown the table; the rest count as lost."""
        began = time.monotonic()
        while time.monotonic() - began < timeout:
            if all(s.position is not None for s in self.seats if s.ws is not None):
                break
            await asyncio.sleep(0.1)
        self.errors.lost += sum(1 for s in self.seats if s.ws is not None and s.position is None)
        self.warmup_seconds = time.monotonic() - began

    async def lengthen(
        self, versions: tuple[int, int], *, pace: tuple[float, float], seconds: float
    ) -> None:
        """Play quickly (``pace``) until each table's hand stands at a version drawn from
        ``versions`` (a hand that ends meanwhile is followed by the next), at most
        ``seconds``; nothing it plays is measured."""
        began, measured_pace = time.monotonic(), self.pace
        self.pace, self.lengthening = pace, True
        for table in self.tables:
            table.target = random.randint(*versions)
        try:
            await self._drive(seconds, done=lambda: all(t.long_enough() for t in self.tables))
        finally:
            self.pace, self.lengthening = measured_pace, False
            self.lengthen_seconds = time.monotonic() - began
        self.forget_measures()

    def forget_measures(self) -> None:
        """Start counting moves, frames and the client's lag anew (errors, handshakes and
        the journal stay)."""
        for measured in (self.latencies, self.from_due, self.versions, self.first_latencies):
            measured.clear()
        self.timeline.clear()
        self.loop_lag_ms.clear()
        self.moves_sent = self.new_hands = self.rematches = self.frames = 0
        self.frame_characters = self.frame_bytes = 0

    def hand_versions(self) -> list[int]:
        """The version each playing table's hand stands at."""
        return [t.latest[1] for t in self.tables if t.complete]

    async def play(
        self, seconds: float, *, give_up: float = 20.0, done: Callable[[], bool] | None = None
    ) -> None:
        """Play for ``seconds`` (stop early if no move got through in ``give_up``, or when
        ``done()``); then let the moves in flight arrive."""
        began = self.began = time.monotonic()
        for table in self.tables:  # the first moves spread over one pause
            table.due = began + random.uniform(0.0, self.pace[1])
        await self._drive(seconds, give_up=give_up, done=done)
        self.window = time.monotonic() - began
        drain_until = time.monotonic() + self.move_timeout
        while any(t.pending for t in self.tables) and time.monotonic() < drain_until:
            await asyncio.sleep(0.1)
        for table in self.tables:
            if table.pending is not None:
                self.errors.lost += 1
                table.pending = None
        # A pause cancelled before its task first ran never runs its ``finally``: waited
        # for and forgotten here, so that its table plays again in the next ``play``.
        acting = [table.acting for table in self.tables if table.acting is not None]
        for task in acting:
            task.cancel()
        await asyncio.gather(*acting, return_exceptions=True)
        for table in self.tables:
            table.acting = None

    async def _drive(
        self,
        seconds: float,
        *,
        give_up: float | None = None,
        done: Callable[[], bool] | None = None,
    ) -> None:
        """Let the tables play for ``seconds`` (less when ``done()`` or when no move got
        through in ``give_up``), watching for lost moves and stalls every quarter second."""
        began = time.monotonic()
        self.playing = True
        for table in self.tables:
            table.complete = all(seat.ws is not None for seat in table.seats)
            table.progress = began
            table.next_move()
        try:
            while time.monotonic() - began < seconds:
                asleep = time.monotonic()
                await asyncio.sleep(0.25)
                now = time.monotonic()
                self.loop_lag_ms.append((now - asleep - 0.25) * 1000)  # this client's delay
                for table in self.tables:
                    table.watch(now)
                if done is not None and done():
                    break
                if give_up is not None and not self.latencies and now - began > give_up:
                    self.stopped_early = f"no move got through in {give_up:.0f} s"
                    break
        finally:
            self.playing = False

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def close(self) -> None:
        self.playing = False
        for table in self.tables:
            if table.acting is not None:
                table.acting.cancel()
        limit = asyncio.Semaphore(64)

        async def one(seat: Seat) -> None:
            async with limit:
                await seat.close()

        await asyncio.gather(*(one(seat) for seat in self.seats))
        COLLECTOR.collect_all()

    def connected(self) -> int:
        return sum(1 for s in self.seats if s.ws is not None)

    def bytes_per_seat_move(self) -> float:
        """The bytes (UTF-8, uncompressed, every frame: pings too) a seat received per move
        in the window: a move reaches each of its table's seats."""
        moves = len(self.latencies)
        seats = len(self.seats) / len(self.tables) if self.tables else 0
        return self.frame_bytes / (moves * seats) if moves and seats else 0.0

    def playing_tables(self) -> int:
        return sum(1 for t in self.tables if t.complete)

    def p99_by_period(self, seconds: float = 5.0) -> str:
        """The p99 of the moves sent in each ``seconds`` of play, in order: whether the
        tail is spread evenly or comes from a few bad moments (a pause, a burst)."""
        periods: dict[int, list[float]] = {}
        for sent, latency in self.timeline:
            periods.setdefault(int((sent - self.began) // seconds), []).append(latency)
        return " ".join(f"{quantile(periods[k], 0.99):.0f}" for k in sorted(periods))

    def p99_windows(
        self, since: float, *, seconds: float = 5.0, span: float = 120.0
    ) -> list[tuple[float, float, int]]:
        """For each ``seconds`` from ``since`` (monotonic) until ``span`` after it: the
        window's start (s from ``since``), the p99 in ms of the moves sent in it that
        reached every seat, and how many those were; a window with none is left out."""
        windows: dict[int, list[float]] = {}
        for sent, latency in self.timeline:
            if since <= sent < since + span:
                windows.setdefault(int((sent - since) // seconds), []).append(latency)
        return [(k * seconds, quantile(windows[k], 0.99), len(windows[k])) for k in sorted(windows)]

    def p99_between(self, start: float, end: float) -> tuple[float, int]:
        """The p99 in ms of the moves sent between ``start`` and ``end`` (monotonic) that
        reached every seat, and how many those were."""
        latencies = [latency for sent, latency in self.timeline if start <= sent < end]
        return quantile(latencies, 0.99), len(latencies)

    def handshakes(self) -> str:
        ms = self.handshake_ms
        if not ms:
            return "handshake n=0"
        return (
            f"handshake n={len(ms)} p50={statistics.median(ms):.0f} "
            f"p99={quantile(ms, 0.99):.0f} max={max(ms):.0f} ms"
        )
