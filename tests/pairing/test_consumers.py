"""The seek socket on the real ASGI stack and Redis layer: a seek lives as long as its
socket, waiting players hear how many wait, and matched players are sent to the table."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db.models import F

from games.models import Seat
from pairing import services
from pairing.models import Seek
from pan_site.asgi import application
from tests.factories import make_table, make_user
from tests.games.ws import ORIGIN, connect

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


async def next_frame(ws: WebsocketCommunicator, kind: str) -> dict:
    """The next JSON frame of ``kind`` (others skipped)."""
    for _ in range(20):
        frame = json.loads(await ws.receive_from(timeout=10))
        if frame.get("type") == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


async def send(ws: WebsocketCommunicator, **frame: object) -> None:
    await ws.send_to(text_data=json.dumps(frame))


async def test_the_seek_ends_when_its_socket_closes():
    ola = await database_sync_to_async(make_user)("ola_seeks")
    ws = await connect("/ws/seek/", ola)
    await send(ws, action="seek", time_control="3+2", size="3", wait=30)
    assert (await next_frame(ws, "waiting"))["bots_after"] == 30
    frame = await next_frame(ws, "waiting")
    assert (frame["count"], frame["text"]) == (1, "1 player waits for this table.")
    assert await database_sync_to_async(Seek.objects.filter(user=ola).exists)()
    await ws.disconnect()
    assert not await database_sync_to_async(Seek.objects.exists)()


async def test_waiting_players_hear_the_count_and_two_of_a_kind_are_sent_to_one_table():
    ola, janek, ewa = [
        await database_sync_to_async(make_user)(name) for name in ("ola_q", "janek_q", "ewa_q")
    ]
    first = await connect("/ws/seek/", ola)
    await send(first, action="seek", time_control="1+0", size="any", wait=10)
    await next_frame(first, "waiting")
    third = await connect("/ws/seek/", ewa)
    await send(third, action="seek", time_control="1+0", size="4", wait=10)
    assert (await next_frame(first, "waiting"))["count"] in (1, 2)
    second = await connect("/ws/seek/", janek)
    await send(second, action="seek", time_control="1+0", size="2", wait=10)
    urls = {(await next_frame(ws, "seated"))["url"] for ws in (first, second)}
    assert len(urls) == 1
    seats = await database_sync_to_async(
        lambda: set(
            Seat.objects.filter(user__isnull=False).values_list("user__username", flat=True)
        )
    )()
    assert seats == {"ola_q", "janek_q"}
    frame = await next_frame(third, "waiting")
    while frame["count"] != 1:
        frame = await next_frame(third, "waiting")
    for ws in (first, second, third):
        await ws.disconnect()


async def test_bad_frames_are_refused_and_visitors_cannot_seek():
    ola = await database_sync_to_async(make_user)("ola_bad")
    ws = await connect("/ws/seek/", ola)
    await ws.send_to(text_data="not json")
    assert (await next_frame(ws, "refused"))["message"] == "Unknown command."
    await send(ws, action="seek", time_control="9+9", size="2", wait=30)
    assert (await next_frame(ws, "refused"))["message"] == "Unknown time control."
    await send(ws, action="seek", time_control="zły ruch!", size="2", wait=30)
    assert (await next_frame(ws, "refused"))["message"] == "Unknown time control."
    await send(ws, action="seek", time_control="3+2", size="7", wait=30)
    await next_frame(ws, "refused")
    await send(ws, action="bots", level="greedy")
    assert (await next_frame(ws, "refused"))["message"] == "You are not waiting for a game."
    await ws.disconnect()

    visitor = WebsocketCommunicator(application, "/ws/seek/", headers=[ORIGIN])
    connected, _ = await visitor.connect(timeout=10)
    assert not connected


async def test_a_player_seated_elsewhere_is_refused_with_a_link_to_that_table():
    table = await database_sync_to_async(make_table)(players=1)
    ws = await connect("/ws/seek/", table.owner)
    await send(ws, action="seek", time_control="3+2", size="2", wait=30)
    refused = await next_frame(ws, "refused")
    assert refused["message"] == "You have a seat at another table; leave it first."
    assert (refused["url"], refused["waiting"]) == (table.get_absolute_url(), False)
    await ws.disconnect()


async def test_a_seek_removed_by_staff_ends_the_waiting_of_its_socket():
    ola = await database_sync_to_async(make_user)("ola_removed")
    ws = await connect("/ws/seek/", ola)
    await send(ws, action="seek", time_control="3+2", size="2", wait=30)
    await next_frame(ws, "waiting")
    seek_id = await database_sync_to_async(lambda: Seek.objects.get(user=ola).pk)()
    assert await database_sync_to_async(services.seek_remove)(seek_id=seek_id)
    await next_frame(ws, "cancelled")
    await send(ws, action="seek", time_control="3+2", size="2", wait=30)  # he may seek again
    assert (await next_frame(ws, "waiting"))["bots_after"] == 30
    await ws.disconnect()


async def test_after_the_wait_the_seeker_fills_the_seats_with_bots_and_is_sent_there():
    ola = await database_sync_to_async(make_user)("ola_bots")
    ws = await connect("/ws/seek/", ola)
    await send(ws, action="seek", time_control="2+1", size="3", wait=10)
    await next_frame(ws, "waiting")
    await send(ws, action="bots", level="random")
    refused = await next_frame(ws, "refused")
    assert refused["waiting"] and "after waiting 10 seconds" in refused["message"]
    # Ten seconds pass (the seek is made older rather than the test sleeping).
    await database_sync_to_async(
        lambda: Seek.objects.filter(user=ola).update(
            created_at=F("created_at") - timedelta(seconds=10)
        )
    )()
    await send(ws, action="bots", level="random")
    url = (await next_frame(ws, "seated"))["url"]
    seats = await database_sync_to_async(
        lambda: list(Seat.objects.order_by("position").values_list("user__username", "bot_level"))
    )()
    assert seats == [("ola_bots", ""), (None, "random"), (None, "random")]
    assert url.startswith("/tables/")
    await ws.disconnect()
