"""TableConsumer on the real Redis channel layer: moves reach everyone, each with his view."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games import services
from games.consumers import SHARED_RENDERS
from games.engine import HandState, card_label
from games.models import Hand, Table
from tests.factories import make_moderator, make_table, make_user, seated_users
from tests.games.ws import connect, frames_until, version_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


@dataclass
class Started:
    table: Table
    hand: Hand
    users: list[User]
    state: HandState
    by_seat: dict[int, User]


@database_sync_to_async
def started_table(players: int = 2) -> Started:
    table = make_table(players=players, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    return Started(
        table=table,
        hand=hand,
        users=seated_users(table),
        state=hand.engine_state,
        by_seat={p.seat: p.user for p in hand.match.players.all()},
    )


def hand_cards_in(frame: str) -> set[str]:
    """Card codes shown as one's own hand in a frame."""
    section = re.search(r'id="my-hand".*?</section>', frame, re.S)
    return set(re.findall(r'data-card="([^"]+)"', section.group(0))) if section else set()


def secret_marks(codes: set[str]) -> list[str]:
    """How a hidden card could leak into HTML: as a code attribute or as its label."""
    return [m for c in codes for m in (f'"{c}"', f"{c},", card_label(c))]


async def test_a_move_reaches_every_seat_and_spectator_each_with_his_own_view():
    g = await started_table()
    table, hand, state, by_seat = g.table, g.hand, g.state, g.by_seat
    mover_seat = state.to_move
    mover, other = by_seat[mover_seat], by_seat[1 - mover_seat]
    path = f"/ws/tables/{table.pk}/"
    ws_mover, ws_other, ws_spectator = (
        await connect(path, mover),
        await connect(path, other),
        await connect(path, None),
    )
    first = {
        "mover": await frames_until(ws_mover, 'id="my-hand"'),
        "other": await frames_until(ws_other, 'id="my-hand"'),
        "spectator": await frames_until(ws_spectator, 'id="my-hand"'),
    }
    assert hand_cards_in(first["mover"][-1]) == set(state.hand(mover_seat))
    assert hand_cards_in(first["other"][-1]) == set(state.hand(1 - mover_seat))
    assert hand_cards_in(first["spectator"][-1]) == set()

    await ws_mover.send_json_to({"action": "play", "cards": "9H", "version": str(hand.version)})
    updates = {
        "mover": await frames_until(ws_mover, 'data-version="2"'),
        "other": await frames_until(ws_other, 'data-version="2"'),
        "spectator": await frames_until(ws_spectator, 'data-version="2"'),
    }
    for frames in updates.values():
        assert re.search(r'id="pile".*data-card="9H"', frames[-1], re.S)
    assert "9H" not in hand_cards_in(updates["mover"][-1])
    assert hand_cards_in(updates["other"][-1]) == set(state.hand(1 - mover_seat))

    # The spectator never saw a card of any hand (the base card is public once played).
    hidden = (set(state.hand(0)) | set(state.hand(1))) - {"9H"}
    spectator_text = "".join(first["spectator"] + updates["spectator"])
    leaks = [m for m in secret_marks(hidden) if m in spectator_text]
    assert leaks == []
    # Nor did the other player see the mover's remaining cards.
    other_text = "".join(first["other"] + updates["other"])
    assert [m for m in secret_marks(set(state.hand(mover_seat)) - {"9H"}) if m in other_text] == []
    for ws in (ws_mover, ws_other, ws_spectator):
        await ws.disconnect()


async def test_one_render_of_a_move_serves_every_spectator_of_a_kind_and_nobody_else():
    g = await started_table()
    mover = g.by_seat[g.state.to_move]
    path = f"/ws/tables/{g.table.pk}/"
    watcher_a, watcher_b = await database_sync_to_async(lambda: (make_user(), make_user()))()
    moderator = await database_sync_to_async(make_moderator)()
    ws_mover, ws_moderator = await connect(path, mover), await connect(path, moderator)
    visitors = [await connect(path, None), await connect(path, None)]
    watchers = [await connect(path, watcher_a), await connect(path, watcher_b)]
    everyone = [ws_mover, ws_moderator, *visitors, *watchers]
    for ws in everyone:
        await frames_until(ws, 'id="my-hand"')
    hits = SHARED_RENDERS.hits

    await ws_mover.send_json_to({"action": "play", "cards": "9H", "version": str(g.hand.version)})
    seen = {}
    for name, ws in zip(["mover", "moderator", "v1", "v2", "w1", "w2"], everyone, strict=True):
        seen[name] = (await frames_until(ws, 'data-version="2"'))[-1]
    # Each kind of spectator gets the same fragments, down to the clocks' milliseconds:
    # one render of the move for the visitors and one for the signed-in spectators.
    assert seen["v1"] == seen["v2"] and seen["w1"] == seen["w2"]
    assert SHARED_RENDERS.hits >= hits + 2
    assert re.search(r'id="pile".*data-card="9H"', seen["w1"], re.S)
    assert 'data-testid="report-player"' in seen["w1"]
    assert 'data-testid="report-player"' not in seen["v1"]
    # The player and the moderator get their own: the hand, the moderator's tools.
    assert hand_cards_in(seen["mover"]) and not hand_cards_in(seen["w1"])
    assert 'data-testid="remove-player"' in seen["moderator"]
    assert 'data-testid="remove-player"' not in seen["w1"]
    for ws in everyone:
        await ws.disconnect()


async def test_refused_commands_get_a_reason_and_change_nothing():
    g = await started_table()
    table, hand, state, by_seat = g.table, g.hand, g.state, g.by_seat
    other = by_seat[1 - state.to_move]
    path = f"/ws/tables/{table.pk}/"
    ws_other, ws_spectator = await connect(path, other), await connect(path, None)
    stranger = await database_sync_to_async(make_user)()
    ws_stranger = await connect(path, stranger)
    for ws in (ws_other, ws_spectator, ws_stranger):
        await frames_until(ws, 'id="my-hand"')

    card = state.hand(1 - state.to_move)[0]
    await ws_other.send_json_to({"action": "play", "cards": card, "version": "1"})
    assert "It is not your turn." in (await frames_until(ws_other, 'id="notice"'))[-1]
    await ws_spectator.send_json_to({"action": "play", "cards": card, "version": "1"})
    assert "Log in to play or chat." in (await frames_until(ws_spectator, 'id="notice"'))[-1]
    await ws_stranger.send_json_to({"action": "pickup", "count": "3", "version": "1"})
    assert (
        "You are not playing in this hand." in (await frames_until(ws_stranger, 'id="notice"'))[-1]
    )
    await ws_stranger.send_to(text_data="not json")
    assert "could not be read" in (await frames_until(ws_stranger, 'id="notice"'))[-1]

    await database_sync_to_async(hand.refresh_from_db)()
    assert hand.version == 1
    for ws in (ws_other, ws_spectator, ws_stranger):
        await ws.disconnect()


async def test_a_stale_version_is_refused_and_the_table_is_sent_again():
    g = await started_table()
    table, hand, state, by_seat = g.table, g.hand, g.state, g.by_seat
    ws = await connect(f"/ws/tables/{table.pk}/", by_seat[state.to_move])
    await frames_until(ws, 'id="my-hand"')
    await ws.send_json_to({"action": "play", "cards": "9H", "version": "0"})
    await frames_until(ws, "The table has changed")
    frames = await frames_until(ws, 'id="my-hand"')  # the whole table again (resync)
    assert version_of(frames[-1]) == 1
    await database_sync_to_async(hand.refresh_from_db)()
    assert hand.version == 1
    await ws.disconnect()


async def test_chat_reaches_players_and_spectators():
    g = await started_table()
    table, users = g.table, g.users
    path = f"/ws/tables/{table.pk}/"
    ws_player, ws_spectator = await connect(path, users[0]), await connect(path, None)
    await frames_until(ws_spectator, 'id="my-hand"')
    await ws_player.send_json_to({"action": "chat", "text": "  good   luck  "})
    frames = await frames_until(ws_spectator, 'id="chat-messages"')
    assert f"<strong>{users[0].username}:</strong> good luck" in frames[-1]
    for ws in (ws_player, ws_spectator):
        await ws.disconnect()


async def test_a_private_table_refuses_uninvited_watchers():
    table = await database_sync_to_async(make_table)(players=1, is_public=False)
    from channels.testing import WebsocketCommunicator

    from pan_site.asgi import application
    from tests.games.ws import ORIGIN

    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN])
    connected, _ = await communicator.connect(timeout=10)
    assert not connected
    owner_ws = await connect(f"/ws/tables/{table.pk}/", table.owner)
    await owner_ws.disconnect()


async def test_the_lobby_hears_a_new_table_and_a_filled_seat():
    lobby = await connect("/ws/lobby/", None)
    table = await database_sync_to_async(make_table)(players=1, name="Brand new table")
    frames = await frames_until(lobby, "Brand new table")
    assert frames[-1].count("seat-dot taken") == 1
    guest = await database_sync_to_async(make_user)()
    await database_sync_to_async(services.table_sit)(table_id=table.pk, user=guest)
    frames = await frames_until(lobby, "seat-dot taken.*seat-dot taken")
    assert "Brand new table" in frames[-1]
    await lobby.disconnect()
