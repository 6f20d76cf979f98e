"""A websocket's session and user (pan_site.auth), read as Django reads a request's."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from pan_site.auth import session_and_user
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _cookies_of(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {settings.SESSION_COOKIE_NAME: client.cookies[settings.SESSION_COOKIE_NAME].value}


def test_a_signed_in_users_socket_carries_him_and_his_session():
    ola = make_user("ola_socket")
    session, user = session_and_user(_cookies_of(ola))
    assert user == ola and user.is_authenticated
    assert session.session_key


@pytest.mark.parametrize("cookies", [{}, {settings.SESSION_COOKIE_NAME: "no-such-session"}])
def test_a_visitors_socket_is_anonymous(cookies: dict[str, str]):
    _session, user = session_and_user(cookies)
    assert not user.is_authenticated


def test_a_session_signed_in_before_the_password_changed_is_anonymous():
    ola = make_user("ola_changed")
    cookies = _cookies_of(ola)
    ola.set_password("another secret 123")
    ola.save()
    _session, user = session_and_user(cookies)
    assert not user.is_authenticated


@pytest.mark.asyncio
async def test_a_socket_opening_while_the_database_is_unreachable_is_turned_away(monkeypatch):
    """No error page and traceback per handshake: the socket is refused with 1013 (try
    again later) and the page's socket reconnects by itself."""
    import psycopg
    from channels.testing import WebsocketCommunicator

    import pan_site.auth
    from pan_site.asgi import application
    from tests.games.ws import ORIGIN

    async def unreachable(cookies):
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(pan_site.auth, "_session_and_user_in_pool", unreachable)
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN])
    connected, code = await communicator.connect(timeout=10)
    assert not connected and code == 1013
