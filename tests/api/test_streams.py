"""The NDJSON streams on the real Redis channel layer and PostgreSQL, through the ASGI
application in-process: what a bot account's program reads, and that it never reads
another seat's cards."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.test import AsyncClient

from api import streams
from core.broadcast import user_group
from games import services
from games.engine import HandState
from games.models import Hand, Match
from social.services import challenge_create
from tests.api.helpers import (
    LineReader,
    bearer,
    bot_account,
    current_hand,
    started_match,
    token_for,
)
from tests.factories import make_moderator, make_user

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]

CODE = re.compile(r'"((?:10|[2-9JQKA])[SHDC]|X[12])"')


def cards_named(raw: bytes | str) -> set[str]:
    """Every card code a line names (as a JSON string)."""
    text = raw.decode() if isinstance(raw, bytes) else raw
    return set(CODE.findall(text))


def public_cards(line: dict[str, Any]) -> set[str]:
    """The cards a line may name for anyone at the table: the pile, what the history
    shows (plays, pick-ups, the final play) and the outcome's final play."""
    view = (line.get("state") or line).get("view") or {}
    seen = set(view.get("pile", ()))
    for entry in view.get("history", ()):
        seen.update(entry.get("cards", ()))
    outcome = (line.get("state") or line).get("outcome") or {}
    seen.update((outcome.get("final_play") or {}).get("cards", ()))
    return seen


def assert_no_leak(reader: LineReader, seat: int, deals: dict[int, HandState]) -> None:
    """No line names a card of another seat's hand that was not public by then: every
    card a line names is in the seat's own hand (as that line shows it) or public."""
    for raw in reader.raw:
        if not raw.strip():
            continue
        line = json.loads(raw)
        named = cards_named(raw)
        state = line.get("state") or line
        own = set(((state.get("view") or {}).get("hand")) or ())
        leaked = named - own - public_cards(line)
        assert leaked == set(), f"a line names {sorted(leaked)} of another seat: {raw[:300]!r}"
        hand_id = state.get("handId")
        if hand_id in deals:
            others = set()
            deal = deals[hand_id]
            for other in range(deal.players):
                if other != seat:
                    others |= set(deal.hand(other))
            assert not (named & others) - public_cards(line)


async def open_stream(client: AsyncClient, path: str, token: str) -> LineReader:
    response = await client.get(path, **bearer(token))
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/x-ndjson"
    return LineReader(response)


@sync_to_async
def setup_bot_match(bot_level: str = "") -> tuple[Any, str, Hand, Any]:
    bot = bot_account("robo")
    token = token_for(bot)
    opponent = make_user("human")
    hand = started_match(bot, opponent=None if bot_level else opponent, bot_level=bot_level)
    return bot, token, hand, opponent


def deal_of(hand_id: int) -> HandState:
    return Hand.objects.get(pk=hand_id).engine_state


async def test_a_game_stream_opens_with_the_game_and_the_bots_own_hand_only():
    bot, token, hand, _opponent = await setup_bot_match()
    deal = await sync_to_async(deal_of)(hand.pk)
    seat = await sync_to_async(lambda: hand.match.players.get(user=bot).seat)()
    client = AsyncClient()
    reader = await open_stream(client, f"/api/bot/game/stream/{hand.match.table_id}", token)
    full = (await reader.until("gameFull"))[-1]
    state = full["state"]
    assert full["mySeat"] == seat
    assert state["handId"] == hand.pk and state["version"] == hand.version
    assert state["view"]["hand"] == list(deal.hand(seat))
    assert state["letters"] == ["", ""]
    assert state["toMove"] == deal.to_move and state["myTurn"] == (deal.to_move == seat)
    assert [p["name"] for p in full["players"]] == [
        p.name for p in await sync_to_async(lambda: list(hand.match.players.all()))()
    ]
    me = next(p for p in full["players"] if p["me"])
    assert me["bot"] is True  # a bot account is a bot wherever it is shown
    assert len(state["clocksMs"]) == 2 and all(ms > 0 for ms in state["clocksMs"])
    assert_no_leak(reader, seat, {hand.pk: deal})
    await reader.close()


async def test_every_move_and_chat_line_reaches_the_stream_and_none_leaks():
    bot, token, hand, opponent = await setup_bot_match()
    deal = await sync_to_async(deal_of)(hand.pk)
    players = await sync_to_async(lambda: {p.seat: p.user for p in hand.match.players.all()})()
    seat = next(s for s, u in players.items() if u.pk == bot.pk)
    table_id = hand.match.table_id
    client = AsyncClient()
    reader = await open_stream(client, f"/api/bot/game/stream/{table_id}", token)
    await reader.until("gameFull")

    # Both seats play their first legal moves through the services, a few actions long.
    for _ in range(6):
        current = await sync_to_async(current_hand)(table_id)
        if current is None or current.pk != hand.pk:
            break
        state = current.engine_state
        mover = players[state.to_move]
        move = state.private_view(state.to_move)["legal_moves"][0]
        await sync_to_async(services.execute)(
            services.move_action(move, hand_id=current.pk, version=current.version, user=mover)
        )
        line = (await reader.until("gameState", version=current.version + 1))[-1]
        after = await sync_to_async(lambda: Hand.objects.get(pk=hand.pk).engine_state)()
        assert line["view"]["hand"] == list(after.hand(seat))
        assert line["view"]["pile"] == list(after.pile)
        assert line["myTurn"] == (not after.is_over and after.to_move == seat)

    await sync_to_async(services.chat_post)(table_id=table_id, user=opponent, text="good luck")
    chat = (await reader.until("chatLine"))[-1]
    assert (chat["username"], chat["text"]) == ("human", "good luck")
    assert_no_leak(reader, seat, {hand.pk: deal})
    await reader.close()


async def test_the_stream_goes_on_through_the_next_hand_and_ends_with_the_match():
    bot, token, hand, _opponent = await setup_bot_match()
    table_id = hand.match.table_id
    seat = await sync_to_async(lambda: hand.match.players.get(user=bot).seat)()
    client = AsyncClient()
    reader = await open_stream(client, f"/api/bot/game/stream/{table_id}", token)
    await reader.until("gameFull")
    deals = {}

    @sync_to_async
    def run_out_the_clock() -> tuple[Hand, bool]:
        """The player to move runs out of time: the hand, and whether the match is over."""
        current = current_hand(table_id)
        deals[current.pk] = current.engine_state
        services.execute(
            services.Timeout(hand_id=current.pk), now=current.deadline + timedelta(seconds=1)
        )
        return current, not Match.objects.filter(pk=current.match_id, status="playing").exists()

    numbers = []
    for _ in range(12):
        ended_hand, over = await run_out_the_clock()
        ended = (await reader.until("gameState", handId=ended_hand.pk, version=2))[-1]
        assert ended["outcome"]["reason"] == "timeout"
        if over:
            assert ended["matchStatus"] == "finished"
            assert "PAN" in ended["letters"]
            break
        await sync_to_async(services.match_next_hand)(
            match_id=ended_hand.match_id, after_number=ended_hand.number
        )
        dealt = (await reader.until("gameState", version=1))[-1]
        numbers.append(dealt["handNumber"])
        assert dealt["handId"] != ended_hand.pk and dealt["matchStatus"] == "playing"
    else:
        raise AssertionError("the match did not end")
    assert numbers == list(range(2, len(numbers) + 2))
    # The stream ends after the match's last line.
    with pytest.raises(StopAsyncIteration):
        while True:
            await reader.next_line()
    assert_no_leak(reader, seat, deals)


async def test_a_stream_is_refused_to_who_has_no_seat_and_for_an_unknown_table():
    _bot, token, hand, _opponent = await setup_bot_match()
    stranger = await sync_to_async(bot_account)("stranger")
    stranger_token = await sync_to_async(token_for)(stranger)
    client = AsyncClient()
    response = await client.get(
        f"/api/bot/game/stream/{hand.match.table_id}", **bearer(stranger_token)
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "not_seated"
    response = await client.get("/api/bot/game/stream/999999", **bearer(token))
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_game"


async def test_the_event_stream_tells_of_games_in_play_and_of_those_that_start_and_end():
    bot, token, hand, _opponent = await setup_bot_match()
    client = AsyncClient()
    reader = await open_stream(client, "/api/stream/event", token)
    opening = (await reader.until("gameStart"))[-1]
    assert opening["game"] == {
        "tableId": hand.match.table_id,
        "matchId": hand.match_id,
        "seat": await sync_to_async(lambda: hand.match.players.get(user=bot).seat)(),
    }

    # Another match of the bot's starts, then is annulled.
    second = await sync_to_async(started_match)(bot, bot_level="greedy")
    started = (await reader.until("gameStart", timeout=10))[-1]
    assert started["game"]["matchId"] == second.match_id
    await sync_to_async(services.match_set_annulled)(match_id=second.match_id)
    finished = (await reader.until("gameFinish"))[-1]
    assert finished["game"]["matchId"] == second.match_id
    assert finished["game"]["status"] == "annulled"

    # Any api.event sent to the user's group is written as it is; other events are not.
    layer = get_channel_layer()
    await layer.group_send(user_group(bot.pk), {"type": "user.mute_changed"})
    await layer.group_send(
        user_group(bot.pk), {"type": "api.event", "line": {"type": "challenge", "id": 7}}
    )
    lines = await reader.until("challenge")
    assert lines == [{"type": "challenge", "id": 7}]
    await reader.close()


async def test_a_token_that_only_reads_challenges_reads_no_game_lines():
    player = await sync_to_async(make_user)("reader")
    token = await sync_to_async(token_for)(player, ["challenge:read"])
    playing = await sync_to_async(started_match)(player, bot_level="greedy")
    await sync_to_async(challenge_create)(
        challenger=await sync_to_async(make_user)("ola"),
        challenged=player,
        seats=2,
        profile="kurnik",
        base_seconds=180,
        increment_seconds=2,
        rated=False,
    )
    reader = await open_stream(AsyncClient(), "/api/stream/event", token)

    # The open challenge, and no gameStart of the match in play before it.
    assert [line["type"] for line in await reader.until("challenge")] == ["challenge"]
    await sync_to_async(services.match_set_annulled)(match_id=playing.match_id)
    layer = get_channel_layer()
    await layer.group_send(
        user_group(player.pk), {"type": "api.event", "line": {"type": "challenge", "id": 7}}
    )
    # Nor the match's end: the next line is the next challenge.
    assert await reader.until("challenge", id=7) == [{"type": "challenge", "id": 7}]
    await reader.close()


async def test_an_idle_stream_writes_an_empty_line_to_keep_alive(monkeypatch):
    monkeypatch.setattr(streams, "KEEP_ALIVE", 0.05)
    bot = await sync_to_async(bot_account)()
    token = await sync_to_async(token_for)(bot)
    reader = await open_stream(AsyncClient(), "/api/stream/event", token)
    assert await reader.next_line() is None
    assert reader.raw == [b""]
    await reader.close()


async def test_the_streams_end_when_the_owner_is_banned():
    from moderation import services as moderation

    bot, token, hand, _opponent = await setup_bot_match()
    moderator = await sync_to_async(make_moderator)()
    client = AsyncClient()
    events = await open_stream(client, "/api/stream/event", token)
    game = await open_stream(client, f"/api/bot/game/stream/{hand.match.table_id}", token)
    await events.until("gameStart")
    await game.until("gameFull")
    await sync_to_async(moderation.user_ban)(by=moderator, user_id=bot.pk, reason="cheating")
    for reader in (events, game):
        with pytest.raises(StopAsyncIteration):
            while True:
                await reader.next_line()


async def test_an_open_stream_ends_soon_after_its_token_is_revoked(monkeypatch):
    from api import services as api_services
    from api.models import AccessToken

    monkeypatch.setattr(streams, "KEEP_ALIVE", 0.05)
    monkeypatch.setattr(streams, "RECHECK_TOKEN", 0.0)
    bot = await sync_to_async(bot_account)()
    token = await sync_to_async(token_for)(bot)
    reader = await open_stream(AsyncClient(), "/api/stream/event", token)
    assert await reader.next_line() is None  # alive
    row = await sync_to_async(AccessToken.objects.get)(owner=bot)
    await sync_to_async(api_services.token_revoke)(owner=bot, token_id=row.pk)
    with pytest.raises(StopAsyncIteration):
        while True:
            await reader.next_line()


async def test_a_game_stream_reopened_after_a_drop_starts_again_with_the_game_as_it_is_now():
    """The program's connection drops; moves are made meanwhile; the stream opened again
    begins with ``gameFull`` at the hand's current version, the missed moves in it."""
    bot, token, hand, _opponent = await setup_bot_match()
    players = await sync_to_async(lambda: {p.seat: p.user for p in hand.match.players.all()})()
    seat = next(s for s, u in players.items() if u.pk == bot.pk)
    table_id = hand.match.table_id
    path = f"/api/bot/game/stream/{table_id}"
    first = await open_stream(AsyncClient(), path, token)
    await first.until("gameFull")
    await first.close()  # the drop

    for _ in range(3):  # both seats play on while the program is away
        current = await sync_to_async(current_hand)(table_id)
        state = current.engine_state
        move = state.private_view(state.to_move)["legal_moves"][0]
        await sync_to_async(services.execute)(
            services.move_action(
                move, hand_id=current.pk, version=current.version, user=players[state.to_move]
            )
        )
    now = await sync_to_async(current_hand)(table_id)

    again = await open_stream(AsyncClient(), path, token)
    lines = await again.until("gameFull")
    full = lines[-1]
    assert [line.get("type") for line in lines] == ["gameFull"]  # nothing before it
    assert (full["state"]["handId"], full["state"]["version"]) == (now.pk, now.version)
    assert full["state"]["view"]["hand"] == list(now.engine_state.hand(seat))
    assert len(full["state"]["view"]["history"]) == now.engine_state.history_length
    await again.close()
