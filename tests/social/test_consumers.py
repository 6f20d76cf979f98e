"""``/ws/me/`` on the real ASGI stack and Redis layer: a challenge reaches the challenged
player's socket at once with forms that post (their CSRF token is the socket's), and the
challenger's socket hears that it was accepted."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import services as games
from games.engine import Rules, move_to_json
from pan_site.asgi import application
from social import presence, services
from social.models import Challenge
from tests.factories import act_first_legal, make_user
from tests.games.ws import ORIGIN, connect, frames_until

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


def _browser(user: User) -> Client:
    """A signed-in client that enforces CSRF, after a page set its CSRF cookie."""
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    assert client.get("/rules/").status_code == 200
    return client


async def _socket(client: Client) -> WebsocketCommunicator:
    cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())
    socket = WebsocketCommunicator(
        application, "/ws/me/", headers=[ORIGIN, (b"cookie", cookie.encode())]
    )
    connected, _ = await socket.connect(timeout=10)
    assert connected
    return socket


def _form_token(frame: str, action: str) -> str:
    form = re.search(rf'<form method="post" action="{re.escape(action)}".*?</form>', frame, re.S)
    assert form, f"no form posting to {action}"
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.group(0))
    assert found, f"the form posting to {action} has no CSRF token"
    return found.group(1)


async def test_a_challenge_appears_live_and_its_accept_form_seats_both_players():
    ola = await database_sync_to_async(make_user)("ola_me")
    janek = await database_sync_to_async(make_user)("janek_me")
    janek_client = await database_sync_to_async(_browser)(janek)
    janek_socket = await _socket(janek_client)
    ola_socket = await connect("/ws/me/", ola)

    challenge = await database_sync_to_async(services.challenge_create)(
        challenger=ola, challenged=janek, seats=2, profile="kurnik"
    )
    frames = await frames_until(janek_socket, 'data-testid="incoming-challenge"')
    frame = frames[-1]
    assert 'id="challenges-incoming"' in frame and 'hx-swap-oob="true"' in frame
    assert "ola_me challenges you" in frame and "2 seats" in frame
    accept = f"/challenges/{challenge.pk}/accept/"
    answer = await database_sync_to_async(janek_client.post)(
        accept, {"csrfmiddlewaretoken": _form_token(frame, accept), "from": "bar"}
    )
    assert answer.status_code == 302
    await challenge.arefresh_from_db()
    assert challenge.status == Challenge.Status.ACCEPTED
    assert answer["Location"] == f"/tables/{challenge.table_id}/"

    # The challenged player's list empties; the challenger's page is taken to the table.
    # (The list may come twice with the challenge first: the socket's opening render,
    # in the pool, can read the challenge committed meanwhile, and its event follows.)
    emptied = r'id="challenges-incoming"(?![\s\S]*data-testid="incoming-challenge")'
    frames = await frames_until(janek_socket, emptied)
    assert 'data-testid="incoming-challenge"' not in frames[-1]
    frames = await frames_until(ola_socket, 'data-testid="challenge-accepted"')
    assert f'hx-get="/challenges/{challenge.pk}/"' in frames[-1]
    await janek_socket.disconnect()
    await ola_socket.disconnect()


async def test_a_declined_challenge_tells_the_challenger_why():
    ola = await database_sync_to_async(make_user)("ola_why")
    janek = await database_sync_to_async(make_user)("janek_why")
    ola_socket = await connect("/ws/me/", ola)
    challenge = await database_sync_to_async(services.challenge_create)(
        challenger=ola, challenged=janek
    )
    await database_sync_to_async(services.challenge_decline)(
        challenge_id=challenge.pk, user=janek, reason="too_slow"
    )
    frames = await frames_until(ola_socket, 'data-testid="challenge-declined"')
    assert "janek_why declined your challenge" in frames[-1]
    assert "too slow for me" in frames[-1]
    await ola_socket.disconnect()


async def test_an_open_challenge_shows_on_a_page_opened_after_it_was_sent():
    ola = await database_sync_to_async(make_user)("ola_late")
    janek = await database_sync_to_async(make_user)("janek_late")
    await database_sync_to_async(services.challenge_create)(challenger=ola, challenged=janek)
    socket = await connect("/ws/me/", janek)
    frames = await frames_until(socket, 'data-testid="incoming-challenge"')
    assert "ola_late challenges you" in frames[-1]
    await socket.disconnect()


async def test_a_visitor_gets_no_socket_of_his_own():
    socket = WebsocketCommunicator(application, "/ws/me/", headers=[ORIGIN])
    connected, code = await socket.connect(timeout=10)
    assert not connected and code == 4403


async def test_the_other_sockets_of_the_challenged_player_pass_the_challenge_over():
    ola = await database_sync_to_async(make_user)("ola_lobby")
    janek = await database_sync_to_async(make_user)("janek_lobby")
    lobby = await connect("/ws/lobby/", janek)
    me = await connect("/ws/me/", janek)
    await database_sync_to_async(services.challenge_create)(challenger=ola, challenged=janek)
    await frames_until(me, 'data-testid="incoming-challenge"')
    assert await lobby.receive_nothing(timeout=0.5)
    # The lobby socket is still open: a change of the lobby still reaches it.
    await database_sync_to_async(games.table_create)(
        owner=ola, name="After the challenge", rules=Rules()
    )
    await frames_until(lobby, "After the challenge")
    await lobby.disconnect()
    await me.disconnect()


async def test_a_user_with_a_page_open_counts_as_online():
    ewa = await database_sync_to_async(make_user)("ewa_online")
    assert presence.online_ids([ewa.pk], now=time.time()) == set()
    socket = await connect("/ws/me/", ewa)
    for _ in range(100):  # the socket notes it just after it opens
        if presence.online_ids([ewa.pk], now=time.time()):
            break
        await asyncio.sleep(0.05)
    assert presence.online_ids([ewa.pk], now=time.time()) == {ewa.pk}
    await socket.disconnect()


async def test_the_count_of_games_waiting_for_his_move_follows_each_turn_live():
    def two_games():
        ola, janek = make_user("ola_wait"), make_user("janek_wait")
        hands = []
        for _ in range(2):
            table = games.table_create(owner=janek, name="", rules=Rules(), seats=2, move_days=3)
            games.table_sit(table_id=table.pk, user=ola)
            match = games.match_start(table_id=table.pk, by=janek)
            hands.append(match.hands.get())
        return ola, janek, hands

    def play_until_ola_moves(hand):
        """Moves at ``hand``, at least one (the deal may give ola the first move, and
        the count is pushed only when a turn passes), until it is ola's turn."""
        moved = False
        while True:
            hand.refresh_from_db()
            player = hand.match.players.get(seat=hand.engine_state.to_move)
            if moved and player.user.username == "ola_wait":
                return hand
            moved = True
            act_first_legal(hand, timezone.now())

    ola, _janek, hands = await database_sync_to_async(two_games)()
    socket = await connect("/ws/me/", ola)
    for hand in hands:
        await database_sync_to_async(play_until_ola_moves)(hand)
    await frames_until(socket, r'id="my-games-count"[^>]*data-count="2"[^>]*hx-swap-oob')
    # His move passes the turn on: one game fewer waits for him.
    hand = hands[0]
    await database_sync_to_async(games.execute)(
        games.move_action(
            move_to_json(hand.engine_state.legal_moves()[0]),
            hand_id=hand.pk,
            version=hand.version,
            user=ola,
        )
    )
    await frames_until(socket, r'id="my-games-count"[^>]*data-count="1"')
    await socket.disconnect()
