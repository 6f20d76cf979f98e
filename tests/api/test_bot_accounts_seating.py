"""A bot account seated by a table's owner hears of the match on its event stream and
plays it through the Bot API, on the real Redis channel layer and PostgreSQL."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from games import services
from games.models import Hand, MatchPlayer, Table
from tests.api.helpers import LineReader, bearer, bot_account, current_hand, token_for
from tests.factories import make_table

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


@sync_to_async
def table_with_a_seated_bot_account() -> tuple[Table, object, str]:
    """A 2-seat table: its owner, and the bot account he seated by name."""
    table = make_table(players=1, seats=2)
    robo = bot_account("robo_seated")
    services.table_seat_bot_account(
        table_id=table.pk, by=table.owner, position=1, username="robo_seated"
    )
    return table, robo, token_for(robo)


@sync_to_async
def bots_turn(table: Table, seat: int) -> Hand:
    """Make it the bot account's turn (the owner opens if it is his)."""
    hand = current_hand(table)
    state = hand.engine_state
    if state.to_move != seat:
        move = state.private_view(state.to_move)["legal_moves"][0]
        services.execute(
            services.move_action(move, hand_id=hand.pk, version=hand.version, user=table.owner)
        )
    return current_hand(table)


async def test_the_seated_bot_account_hears_game_start_and_plays_its_turn():
    table, robo, token = await table_with_a_seated_bot_account()
    client = AsyncClient()
    response = await client.get("/api/stream/event", **bearer(token))
    assert response.status_code == 200
    reader = LineReader(response)

    match = await sync_to_async(services.match_start)(table_id=table.pk, by=table.owner)
    started = (await reader.until("gameStart"))[-1]
    seat = await sync_to_async(lambda: MatchPlayer.objects.get(match=match, user=robo).seat)()
    assert started["game"] == {"tableId": table.pk, "matchId": match.pk, "seat": seat}
    await reader.close()

    hand = await bots_turn(table, seat)
    move = hand.engine_state.private_view(seat)["legal_moves"][0]
    body = {"version": hand.version}
    if move["type"] == "play":
        body["cards"] = move["cards"]
    else:
        body["pickup"] = move["count"]
    answer = await client.post(
        f"/api/bot/game/{table.pk}/move", body, content_type="application/json", **bearer(token)
    )
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"ok": True, "handId": hand.pk, "version": hand.version + 1}
