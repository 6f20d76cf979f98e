"""A websocket's session and user (pan_site.auth), read as Django reads a request's, and
read together for the sockets that open together."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.conf import settings
from django.contrib import auth
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client

from pan_site.auth import session_and_user, sessions_and_users
from tests.factories import make_moderator, make_user

pytestmark = pytest.mark.django_db


def _cookies_of(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {settings.SESSION_COOKIE_NAME: client.cookies[settings.SESSION_COOKIE_NAME].value}


def test_a_signed_in_users_socket_carries_him_and_his_session():
    ola = make_user("ola_socket")
    session, user = session_and_user(_cookies_of(ola))
    assert user == ola and user.is_authenticated
    assert session[auth.SESSION_KEY] == str(ola.pk)
    with pytest.raises(TypeError):  # read only: a socket never changes the session
        session["invited_tables"] = [1]


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


def _key_of(user) -> str:
    return _cookies_of(user)[settings.SESSION_COOKIE_NAME]


def _as_django_reads_it(key: str | None):
    """The user Django's ``get_user`` gives a request with this session (it may flush it)."""
    return auth.get_user(SimpleNamespace(session=SessionStore(key)))


def test_sockets_opening_together_are_read_in_three_queries_as_django_reads_each(
    django_assert_num_queries, settings
):
    """A restart's sockets: players, a moderator, a visitor with a session of his own,
    a session that names nobody, a player whose password changed, an inactive account,
    an expired session: each socket gets whom Django's ``get_user`` would give its
    request, and the sessions, the users and their rights cost one query each."""
    players = [make_user(f"back{i}") for i in range(20)]
    moderator = make_moderator("back_mod")
    changed, inactive, expired = make_user("back_changed"), make_user("back_off"), make_user("old")
    keys = [_key_of(user) for user in [*players, moderator, changed, inactive, expired]]
    changed.set_password("another secret 123")
    changed.save()
    inactive.is_active = False
    inactive.save()
    SessionStore.get_model_class().objects.filter(session_key=keys[-1]).update(
        expire_date="2000-01-01T00:00:00Z"
    )
    visitor = SessionStore()
    visitor["invited_tables"] = [7]
    visitor.create()
    keys += [visitor.session_key, "no-such-session", None]
    with django_assert_num_queries(3):
        read = sessions_and_users(keys)

    expected = [_as_django_reads_it(key) for key in keys]  # after: Django flushes some
    assert [user for _session, user in read] == expected
    signed_in = [user for _session, user in read if user.is_authenticated]
    assert signed_in == [*players, moderator]
    assert [user.rights_held for user in signed_in] == [False] * 20 + [True]
    assert read[-3][0]["invited_tables"] == [7] and not read[-3][1].is_authenticated
    assert dict(read[-1][0]) == {} and dict(read[-2][0]) == {}


def test_a_session_hashed_with_a_retired_secret_still_signs_the_socket_in(settings):
    """As ``get_user`` takes a session made under ``SECRET_KEY_FALLBACKS`` (it renews the
    hash on the next request; a socket does not write)."""
    ola = make_user("ola_fallback")
    key = _key_of(ola)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a new secret key " * 4
    ((_session, user),) = sessions_and_users([key])
    assert user == ola and user.is_authenticated


def test_one_session_on_two_sockets_gives_each_its_own_user_object():
    ola = make_user("ola_two_tabs")
    key = _key_of(ola)
    (_s1, first), (_s2, second) = sessions_and_users([key, key])
    assert first == second == ola and first is not second
    first.rights_held = True  # what one socket learns of its user stays its own
    assert second.rights_held is False


@pytest.mark.asyncio
async def test_a_socket_opening_while_the_database_is_unreachable_is_turned_away(monkeypatch):
    """No error page and traceback per handshake: the socket is refused with 1013 (try
    again later) and the page's socket reconnects by itself."""
    import psycopg
    from channels.testing import WebsocketCommunicator

    import pan_site.auth
    from pan_site.asgi import application
    from tests.games.ws import ORIGIN

    def unreachable(keys):
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(pan_site.auth._READS, "read_many", unreachable)
    cookie = (b"cookie", f"{settings.SESSION_COOKIE_NAME}=some-session".encode())
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=[ORIGIN, cookie])
    connected, code = await communicator.connect(timeout=10)
    assert not connected and code == 1013
