"""A move sends what changed (#51): every page of a table of four, and a spectator's, takes
the frames of its socket for thirty moves and more, swapped in as htmx swaps them, and
then shows what a page loaded afresh shows, byte for byte, in every part a move changes;
and a move's frames are small."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from bench import load_client
from games import services
from games.models import Hand
from tests.factories import make_table, seated_users
from tests.games import dom
from tests.games.ws import connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]

PARTS = ("status-line", "players", "pile", "action-log", "my-hand")
MOVES = 32


@database_sync_to_async
def started_table_of_four() -> tuple[int, dict[int, object]]:
    table = make_table(players=4, base_seconds=3600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    by_seat = {p.seat: p.user for p in hand.match.players.select_related("user")}
    assert sorted(u.pk for u in by_seat.values()) == sorted(u.pk for u in seated_users(table))
    return table.pk, by_seat


@database_sync_to_async
def page_of(table_id: int, user) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    response = client.get(f"/tables/{table_id}/")
    assert response.status_code == 200
    return response.content.decode()


class Seat:
    """One page of the table and its socket."""

    def __init__(self, name: str, page: str, ws) -> None:
        self.name, self.page, self.ws = name, dom.parse(page), ws
        self.received: list[str] = []

    def take(self, frame: str) -> None:
        self.received.append(frame)
        dom.swap(self.page, frame)

    async def until(self, pattern: str, timeout: float = 10) -> None:
        """Swap in every frame (pings aside) until one matches ``pattern``."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + timeout
        while True:
            frame = await self.ws.receive_from(timeout=max(0.01, give_up - loop.time()))
            if 'id="ws-ping"' in frame:
                continue
            self.take(frame)
            if re.search(pattern, frame):
                return

    async def drain(self) -> None:
        while not await self.ws.receive_nothing(timeout=0.3):
            frame = await self.ws.receive_from()
            if 'id="ws-ping"' not in frame:
                self.take(frame)

    def version(self) -> int:
        return int(self.page.by_id("table-status").attrs["value"])

    def offered(self) -> list[dict[str, str]]:
        """The moves the page offers, as the browser sends them: a form's fields and the
        hand's version (hx-include of the status's mark); none when it is not his turn."""
        hand = self.page.by_id("my-hand")
        if hand is None or not any(e.attrs.get("data-testid") == "your-turn" for e in hand.walk()):
            return []
        forms = []
        for form in (e for e in hand.walk() if e.tag == "form"):
            buttons = [e for e in form.walk() if e.tag == "button"]
            if any(b.attrs.get("aria-disabled") == "true" for b in buttons):
                continue  # a card that may not be played now
            fields = {
                e.attrs["name"]: e.attrs.get("value", "")
                for e in form.walk()
                if e.tag == "input" and e.attrs.get("name")
            }
            forms.append({**fields, "version": str(self.version())})
        return forms


def shown(page: dom.Element, part: str) -> str:
    """A part of the page as it is written out, the running clock's time left out (it
    counts down on the page; a fresh page draws it from a later moment), the hand's tab
    stop where the page's script puts it (static/js/table-keys.js: on the first card
    that may be played, else the first)."""
    element = page.by_id(part)
    assert element is not None, part
    cards = [e for e in element.walk() if "card-button" in e.attrs.get("class", "").split()]
    legal = [e for e in cards if "legal" in e.attrs["class"].split()]
    stop = (legal or cards or [None])[0]
    for card in cards:
        card.attrs["tabindex"] = "0" if card is stop else "-1"
    html = element.html()
    return re.sub(
        r'(<span id="p\d+-label" hidden="" class="to-move">[^<]*</span>.*?<div id="p\d+-clock" '
        r'class="clock(?: low)?") data-ms="\d+">[^<]*</div>',
        r"\1>(running)</div>",
        html,
        flags=re.S,
    )


async def test_thirty_moves_of_changes_show_what_a_fresh_page_shows():
    rng = random.Random(51)
    table_id, by_seat = await started_table_of_four()
    path = f"/ws/tables/{table_id}/"
    seats = []
    users = [*(u for _s, u in sorted(by_seat.items())), None]
    for n, user in enumerate(users):
        name = "spectator" if user is None else f"seat {n}"
        seats.append(Seat(name, await page_of(table_id, user), await connect(path, user)))
    for seat in seats:
        await seat.until('id="seats"')  # the whole table, as a socket's first frame
    for seat in seats:
        await seat.drain()  # the others' presence marks
    players = seats[:4]
    moves = pickups = 0
    while moves < MOVES:
        mover = next((s for s in players if s.offered()), None)
        assert mover is not None, "nobody may move"
        offered = mover.offered()
        pickup = [f for f in offered if f["action"] == "pickup"]
        form = rng.choice(pickup if pickup and rng.random() < 0.35 else offered)
        pickups += form["action"] == "pickup"
        version = mover.version()
        await mover.ws.send_json_to(form)
        for seat in seats:
            await seat.until(rf'id="table-status"[^>]*data-version="{version + 1}"')
        moves += 1
        hand_over = await database_sync_to_async(
            lambda: Hand.objects.filter(match__table_id=table_id, outcome__isnull=False).exists()
        )()
        if hand_over:
            break
    for seat in seats:
        await seat.drain()
    assert moves >= 30 and pickups, (moves, pickups)
    for seat in seats:  # the load generator's players follow the same frames
        follower = load_client.Seat.__new__(load_client.Seat)
        follower.hand, follower.options, follower.pile = {}, [], ()
        for frame in seat.received:
            follower.take_hand(frame)
            follower.take_pile(frame)
        page_pile = [e.attrs["data-card"] for e in seat.page.by_id("pile-cards").elements()]
        assert list(follower.pile) == page_pile, seat.name
        cards = [e for e in seat.page.by_id("my-hand").walk() if e.attrs.get("data-card")]
        shown_hand = {e.attrs["data-card"]: "legal" in e.attrs["class"].split() for e in cards}
        assert follower.hand == shown_hand, seat.name
        assert sorted(map(sorted, (f.items() for f in follower.forms))) == sorted(
            sorted({k: v for k, v in f.items() if k != "version"}.items()) for f in seat.offered()
        ), seat.name
    fresh = [dom.parse(await page_of(table_id, user)) for user in users]
    for seat in seats:
        await seat.ws.disconnect()
    for seat, page in zip(seats, fresh, strict=True):
        for part in PARTS:
            assert shown(seat.page, part) == shown(page, part), (seat.name, part)
