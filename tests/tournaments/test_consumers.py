"""The live tournament page and the pages that follow their player, on the real Redis layer."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from tests.factories import make_user
from tests.games.ws import connect, frames_until
from tests.tournaments.helpers import hands_in_play, make_tournament, started, time_out
from tournaments import services
from tournaments.models import TournamentEntry

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


async def test_the_standings_update_live_when_someone_registers_and_is_eliminated():
    tournament = await database_sync_to_async(make_tournament)(bots=3)
    ws = await connect(f"/ws/tournaments/{tournament.pk}/")
    ola = await database_sync_to_async(make_user)("ola_live")
    await database_sync_to_async(services.tournament_register)(
        tournament_id=tournament.pk, user=ola
    )
    frames = await frames_until(ws, "ola_live")
    assert 'id="tournament-standings"' in frames[-1]

    await database_sync_to_async(started)(tournament, letters=2)
    await frames_until(ws, 'data-testid="standing-in"')
    hand = (await database_sync_to_async(hands_in_play)(tournament))[0]
    await database_sync_to_async(time_out)(hand)
    frames = await frames_until(ws, 'data-testid="standing-out"')
    assert 'hx-swap-oob="true"' in frames[-1]
    await ws.disconnect()


async def test_a_players_pages_follow_him_when_the_tournament_seats_and_removes_him():
    ola = await database_sync_to_async(make_user)("ola_follows")
    tournament = await database_sync_to_async(make_tournament)(bots=3, users=[ola])
    page = await connect(f"/ws/tournaments/{tournament.pk}/", ola)
    await database_sync_to_async(started)(tournament)
    frames = await frames_until(page, 'data-testid="follow"')
    assert f'hx-get="/tournaments/{tournament.pk}/my-table/"' in frames[-1]
    assert 'data-kind="seated"' in frames[-1]
    assert 'hx-swap-oob="beforeend:body"' in frames[-1]

    entry = await database_sync_to_async(TournamentEntry.objects.select_related("table").get)(
        user=ola
    )
    table = await connect(f"/ws/tables/{entry.table.table_id}/", ola)
    await database_sync_to_async(services.tournament_disqualify)(
        tournament_id=tournament.pk, entry_id=entry.pk, by=tournament.created_by
    )
    frames = await frames_until(table, 'data-testid="follow"')
    assert 'data-kind="eliminated"' in frames[-1]
    for ws in (page, table):
        await ws.disconnect()


async def test_a_tournament_table_says_live_that_the_tournament_is_over_and_who_won():
    """As it says who is out, the table's socket says the tournament is over and who won,
    in each viewer's language (#31)."""
    tournament = await database_sync_to_async(started)(
        await database_sync_to_async(make_tournament)(bots=3)
    )
    hand = (await database_sync_to_async(hands_in_play)(tournament))[0]
    ola = await database_sync_to_async(make_user)("ola_watches", language="en")
    janek = await database_sync_to_async(make_user)("janek_watches", language="pl")
    english = await connect(f"/ws/tables/{hand.match.table_id}/", ola)
    polish = await connect(f"/ws/tables/{hand.match.table_id}/", janek)
    entries = await database_sync_to_async(list)(tournament.entries.order_by("pk"))
    for entry in entries[:2]:
        await database_sync_to_async(services.tournament_disqualify)(
            tournament_id=tournament.pk, entry_id=entry.pk, by=tournament.created_by
        )
    winner = entries[2].display_name
    frames = await frames_until(english, 'data-testid="tournament-over"')
    assert f"The tournament is over: {winner} won." in frames[-1]
    assert f'href="{tournament.get_absolute_url()}"' in frames[-1]
    frames = await frames_until(polish, 'data-testid="tournament-over"')
    assert f"Turniej zakończony. Zwycięzca: {winner}." in frames[-1]
    for ws in (english, polish):
        await ws.disconnect()


async def test_a_tournament_socket_counts_against_the_users_sockets_and_a_flood_is_closed():
    from channels.testing import WebsocketCommunicator

    from live import CLOSE_LIMITED, FLOOD_CLOSE, SOCKETS_PER_USER
    from pan_site.asgi import application
    from tests.games.ws import ORIGIN, session_cookie

    tournament = await database_sync_to_async(make_tournament)()
    ola = await database_sync_to_async(make_user)("ola_sockets")
    path = f"/ws/tournaments/{tournament.pk}/"
    held = [await connect(path, ola) for _ in range(SOCKETS_PER_USER)]
    cookie = await session_cookie(ola)
    extra = WebsocketCommunicator(application, path, headers=[ORIGIN, (b"cookie", cookie)])
    connected, code = await extra.connect(timeout=10)
    assert not connected and code == CLOSE_LIMITED

    talker = held.pop()
    for _ in range(FLOOD_CLOSE + 1):
        await talker.send_to(text_data="x")
    closed = await talker.receive_output(timeout=5)
    while closed["type"] != "websocket.close":
        closed = await talker.receive_output(timeout=5)
    assert closed["code"] == CLOSE_LIMITED
    await talker.disconnect()  # the browser leaves: its slot is given back
    again = WebsocketCommunicator(application, path, headers=[ORIGIN, (b"cookie", cookie)])
    assert (await again.connect(timeout=10))[0]
    for ws in [*held, again]:
        await ws.disconnect()
