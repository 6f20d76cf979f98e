"""The forms inside the tournament page's live parts still post after a live update: the
fragments a socket sends carry a CSRF token for the socket's own cookie."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from accounts.models import User
from pan_site.asgi import application
from tests.factories import make_user
from tests.games.ws import ORIGIN, frames_until
from tests.tournaments.helpers import make_staff, make_tournament
from tournaments.models import Tournament, TournamentEntry

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


def _browser(user: User, tournament: Tournament) -> Client:
    """A signed-in client that enforces CSRF as a browser meets it, after loading the page
    (which sets the CSRF cookie)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get(tournament.get_absolute_url()).status_code == 200
    assert settings.CSRF_COOKIE_NAME in client.cookies
    return client


async def _page_socket(client: Client, tournament: Tournament) -> WebsocketCommunicator:
    cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())
    socket = WebsocketCommunicator(
        application,
        f"/ws/tournaments/{tournament.pk}/",
        headers=[ORIGIN, (b"cookie", cookie.encode())],
    )
    connected, _ = await socket.connect(timeout=10)
    assert connected
    return socket


def _token_of_form(frame: str, action: str) -> str:
    """The CSRF token inside the form that posts to ``action``."""
    form = re.search(rf'<form method="post" action="{re.escape(action)}">(.*?)</form>', frame, re.S)
    assert form, f"no form posting to {action} in the fragment"
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]*)"', form.group(1))
    assert token, f"the form posting to {action} has no CSRF field"
    return token.group(1)


async def test_a_player_registers_and_withdraws_with_the_forms_a_live_update_brought():
    tournament = await database_sync_to_async(make_tournament)()
    ola = await database_sync_to_async(make_user)("ola_forms")
    client = await database_sync_to_async(_browser)(ola, tournament)
    socket = await _page_socket(client, tournament)
    register = f"/tournaments/{tournament.pk}/register/"
    unregister = f"/tournaments/{tournament.pk}/unregister/"

    frames = await frames_until(socket, 'data-testid="register"')
    token = _token_of_form(frames[-1], register)
    assert token
    answer = await database_sync_to_async(client.post)(register, {"csrfmiddlewaretoken": token})
    assert answer.status_code == 302
    assert await TournamentEntry.objects.filter(tournament=tournament, user=ola).aexists()

    frames = await frames_until(socket, 'data-testid="unregister"')
    answer = await database_sync_to_async(client.post)(
        unregister, {"csrfmiddlewaretoken": _token_of_form(frames[-1], unregister)}
    )
    assert answer.status_code == 302
    assert not await TournamentEntry.objects.filter(tournament=tournament, user=ola).aexists()
    await socket.disconnect()


async def test_the_staff_starts_the_tournament_with_the_buttons_a_live_update_brought():
    staff = await database_sync_to_async(make_staff)("staff_forms")
    tournament = await database_sync_to_async(make_tournament)(by=staff, bots=4)
    client = await database_sync_to_async(_browser)(staff, tournament)
    socket = await _page_socket(client, tournament)
    start = f"/tournaments/{tournament.pk}/staff/start/"

    frames = await frames_until(socket, 'id="tournament-staff-buttons"')
    answer = await database_sync_to_async(client.post)(
        start, {"csrfmiddlewaretoken": _token_of_form(frames[-1], start)}
    )
    assert answer.status_code == 302
    await tournament.arefresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    # The buttons follow the state: pausing replaces starting.
    await frames_until(socket, 'data-testid="pause"')
    await socket.disconnect()


async def test_a_visitor_gets_no_staff_buttons_and_a_form_without_the_token_is_refused():
    tournament = await database_sync_to_async(make_tournament)()
    ola = await database_sync_to_async(make_user)("ola_no_token")
    client = await database_sync_to_async(_browser)(ola, tournament)
    socket = await _page_socket(client, tournament)
    frames = await frames_until(socket, 'data-testid="register"')
    assert "tournament-staff-buttons" not in "".join(frames)
    answer = await database_sync_to_async(client.post)(
        f"/tournaments/{tournament.pk}/register/", {"csrfmiddlewaretoken": ""}
    )
    assert answer.status_code == 403
    assert not await TournamentEntry.objects.filter(tournament=tournament).aexists()
    await socket.disconnect()
