"""Moderation on the websockets, on the real Redis channel layer and real sessions.

A ban (or a log-out-everywhere) closes every open socket of the user after a notice,
and his new connections are refused; a mute refuses chat through the socket itself; a
moderator's commands on the table page (hide a message, abort a hand, remove a player)
reach every open page at once.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import ChatMessage, Hand, Table
from moderation import services as moderation
from moderation.models import AuditLog
from pan_site.asgi import application
from tests.factories import make_moderator, make_table, seated_users
from tests.games.ws import ORIGIN, connect, frames_until, session_cookie

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]

ENGLISH = (b"accept-language", b"en")


async def open_socket(path: str, cookie: bytes | None = None) -> tuple[bool, int | None, Any]:
    headers = [ORIGIN, ENGLISH]
    if cookie is not None:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await communicator.connect(timeout=10)
    return connected, code, communicator


async def frames_until_closed(
    communicator: WebsocketCommunicator, timeout: float = 10
) -> tuple[list[str], int | None]:
    """Every frame (pings left out) until the server closes the socket, and its code."""
    frames: list[str] = []
    while True:
        output = await communicator.receive_output(timeout)
        if output["type"] == "websocket.close":
            return frames, output.get("code")
        text = output.get("text", "")
        if 'id="ws-ping"' not in text:
            frames.append(text)


async def seats_without(communicator: WebsocketCommunicator, name: str) -> str:
    """Wait for a seat list in which ``name`` no longer sits."""
    for _ in range(10):
        frame = (await frames_until(communicator, 'id="seats"'))[-1]
        seats = re.search(r'id="seats".*?</section>', frame, re.S).group(0)
        if name not in seats:
            return seats
    raise AssertionError(f"{name} is still seated")


@database_sync_to_async
def open_table_with(players: int = 2) -> tuple[Table, list[User]]:
    table = make_table(players=players, base_seconds=600)
    users = seated_users(table)
    User.objects.filter(pk__in=[u.pk for u in users]).update(language="en")
    return table, [User.objects.get(pk=u.pk) for u in users]


@database_sync_to_async
def moderator() -> User:
    return make_moderator(language="en")


async def test_a_ban_closes_the_users_sockets_and_his_new_connections_are_refused():
    table, (owner, bad) = await open_table_with(2)
    mod = await moderator()
    table_path = f"/ws/tables/{table.pk}/"
    cookie = await session_cookie(bad)
    _, _, bad_table = await open_socket(table_path, cookie)
    _, _, bad_lobby = await open_socket("/ws/lobby/", cookie)
    owner_table = await connect(table_path, owner)
    await frames_until(bad_table, 'id="seats"')
    await frames_until(owner_table, 'id="seats"')

    await database_sync_to_async(moderation.user_ban)(
        by=mod, user_id=bad.pk, reason="cheating", until=timezone.now() + timedelta(days=7)
    )

    for socket in (bad_table, bad_lobby):
        frames, code = await frames_until_closed(socket)
        assert code == 4403
        notices = [f for f in frames if 'data-testid="moderation-notice"' in f]
        assert notices and "You are banned until" in notices[0] and "cheating" in notices[0]
        assert 'hx-swap-oob="afterbegin:#main"' in notices[0]
    # The others play on: his seat is empty for them at once.
    await seats_without(owner_table, bad.username)

    # His old cookie names no session any more: at most an anonymous spectator, who cannot chat.
    connected, _, anonymous = await open_socket(table_path, cookie)
    assert connected
    await anonymous.send_json_to({"action": "chat", "text": "I am back"})
    await frames_until(anonymous, 'data-testid="notice"')
    assert not await database_sync_to_async(ChatMessage.objects.exists)()
    await anonymous.disconnect()
    # A session that still names him (made after the ban) is refused on every socket.
    fresh = await session_cookie(bad)
    for path in (table_path, "/ws/lobby/"):
        connected, code, _refused = await open_socket(path, fresh)
        assert (connected, code) == (False, 4403)
    await owner_table.disconnect()


async def test_log_out_everywhere_closes_every_socket_with_a_notice():
    table, (_owner, player) = await open_table_with(2)
    mod = await moderator()
    cookie = await session_cookie(player)
    _, _, socket = await open_socket(f"/ws/tables/{table.pk}/", cookie)
    await frames_until(socket, 'id="seats"')

    await database_sync_to_async(moderation.user_logout_everywhere)(by=mod, user_id=player.pk)

    frames, code = await frames_until_closed(socket)
    assert code == 4403
    assert any("logged you out on every device" in f for f in frames)


async def test_a_mute_refuses_chat_through_the_socket_with_the_reason_and_time_left():
    table, (_owner, player) = await open_table_with(2)
    mod = await moderator()
    socket = await connect(f"/ws/tables/{table.pk}/", player)
    await frames_until(socket, 'id="seats"')

    await database_sync_to_async(moderation.user_mute)(
        by=mod, user_id=player.pk, reason="shouting", until=timezone.now() + timedelta(minutes=30)
    )
    # The page shows why and until when, pushed at once.
    pushed = (await frames_until(socket, 'data-testid="mute-notice"'))[-1]
    assert 'id="mute-notice"' in pushed and "shouting" in pushed

    # The socket was opened before the mute; the service reads the mute afresh.
    await socket.send_json_to({"action": "chat", "text": "LOUD"})
    refusal = (await frames_until(socket, 'data-testid="notice"'))[-1]
    assert "You are muted until" in refusal and "minutes left" in refusal
    assert "shouting" in refusal
    assert not await database_sync_to_async(ChatMessage.objects.exists)()

    await database_sync_to_async(moderation.user_unmute)(by=mod, user_id=player.pk)
    cleared = (await frames_until(socket, 'id="mute-notice"'))[-1]
    assert 'data-testid="mute-notice"' not in cleared
    await socket.send_json_to({"action": "chat", "text": "sorry"})
    assert "sorry" in (await frames_until(socket, 'id="chat-messages"'))[-1]
    await socket.disconnect()


async def test_a_moderator_hides_a_message_from_the_table_page_and_it_vanishes_everywhere():
    table, (owner, rude) = await open_table_with(2)
    mod = await moderator()
    message = await database_sync_to_async(services.chat_post)(
        table_id=table.pk, user=rude, text="you donkey"
    )
    path = f"/ws/tables/{table.pk}/"
    owner_socket = await connect(path, owner)
    mod_socket = await connect(path, mod)
    await frames_until(owner_socket, 'id="seats"')
    await frames_until(mod_socket, 'id="seats"')

    # A player has no such power: refused, and the message stays.
    await owner_socket.send_json_to({"action": "hide_chat", "message": str(message.pk)})
    refused = (await frames_until(owner_socket, 'data-testid="notice"'))[-1]
    assert "You do not have permission to do that." in refused

    await mod_socket.send_json_to({"action": "hide_chat", "message": str(message.pk)})

    for socket in (owner_socket, mod_socket):
        chat = (await frames_until(socket, 'id="chat-messages"'))[-1]
        assert "you donkey" not in chat
    entry = await database_sync_to_async(AuditLog.objects.get)()
    assert (entry.action, entry.actor_id, entry.target_user_id) == ("chat_hide", mod.pk, rude.pk)
    await owner_socket.disconnect()
    await mod_socket.disconnect()


async def test_a_moderator_aborts_a_hand_and_removes_a_player_from_the_table_page():
    table, (owner, other) = await open_table_with(2)
    mod = await moderator()
    await database_sync_to_async(services.match_start)(table_id=table.pk, by=owner)
    path = f"/ws/tables/{table.pk}/"
    owner_socket = await connect(path, owner)
    other_socket = await connect(path, other)
    mod_socket = await connect(path, mod)
    for socket in (owner_socket, other_socket, mod_socket):
        await frames_until(socket, 'id="seats"')

    await owner_socket.send_json_to({"action": "abort_hand", "reason": "mine"})
    assert "You do not have permission" in (await frames_until(owner_socket, "notice"))[-1]
    await mod_socket.send_json_to({"action": "abort_hand", "reason": ""})
    assert "Give a reason." in (await frames_until(mod_socket, 'data-testid="notice"'))[-1]

    await mod_socket.send_json_to({"action": "abort_hand", "reason": "lag storm"})
    status = (await frames_until(owner_socket, "A moderator aborted this hand"))[-1]
    assert "nobody gets a letter" in status
    hand = await database_sync_to_async(Hand.objects.get)(match__table=table, number=1)
    assert hand.outcome["reason"] == "aborted"

    await mod_socket.send_json_to(
        {"action": "remove_player", "user": str(other.pk), "reason": "stalling"}
    )
    notice = (await frames_until(other_socket, 'data-testid="moderation-notice"'))[-1]
    assert "A moderator removed you from the table" in notice and "stalling" in notice
    seat = await database_sync_to_async(table.seats.get)(position=1)
    assert seat.user_id is None and seat.bot_level == "greedy"
    for socket in (owner_socket, other_socket, mod_socket):
        await socket.disconnect()
