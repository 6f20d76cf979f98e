"""Behind the reverse proxy each client keeps his own address, for HTTP and websockets;
an X-Forwarded-For from anybody but a trusted proxy is ignored."""

from __future__ import annotations

import pytest
from channels.testing import WebsocketCommunicator
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from live import budgets
from pan_site.asgi import application
from pan_site.proxy import ForwardedForMiddleware, client_address

PROXY = "10.0.0.7"
ORIGIN = (b"origin", b"http://127.0.0.1:8000")


@pytest.fixture
def behind_proxy(settings):
    settings.TRUSTED_PROXIES = [PROXY, "10.1.0.0/16"]


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "client"),
    [
        (PROXY, "203.0.113.5", "203.0.113.5"),
        (PROXY, "198.51.100.1, 203.0.113.5", "203.0.113.5"),  # the left one is the client's word
        (PROXY, "203.0.113.5, 10.1.2.3", "203.0.113.5"),  # a second proxy of ours
        (PROXY, " 2001:db8::5 ", "2001:db8::5"),
        (PROXY, "10.1.2.3", PROXY),  # only our own hops: the proxy itself asked
        (PROXY, "not-an-address", PROXY),
        (PROXY, None, PROXY),
        ("203.0.113.9", "198.51.100.1", "203.0.113.9"),  # forged: the peer is nobody we trust
    ],
)
def test_the_client_is_the_right_most_address_no_trusted_proxy_added(
    behind_proxy, peer, forwarded_for, client
):
    assert client_address(peer, forwarded_for) == client


def test_without_trusted_proxies_the_header_is_never_believed():
    assert client_address(PROXY, "203.0.113.5") == PROXY


def test_a_bad_trusted_proxies_setting_stops_the_start(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.7", "proxy.internal"]
    with pytest.raises(ImproperlyConfigured, match="TRUSTED_PROXIES"):
        ForwardedForMiddleware(lambda request: HttpResponse())


def failed_logins(client: Client, count: int, **headers: str) -> str:
    """``count`` failed logins, each for another unknown name; the last page's text."""
    page = ""
    for n in range(count):
        response = client.post(
            reverse("account_login"), {"login": f"nobody{n}", "password": "wrong"}, **headers
        )
        page = response.content.decode()
    return page


@pytest.mark.django_db
def test_login_limits_count_each_client_behind_the_proxy_by_his_own_address(behind_proxy):
    cache.clear()
    via_proxy = Client(REMOTE_ADDR=PROXY, HTTP_ACCEPT_LANGUAGE="en")
    assert "Too many failed login attempts" not in failed_logins(
        via_proxy, 10, HTTP_X_FORWARDED_FOR="203.0.113.5"
    )
    limited = failed_logins(via_proxy, 1, HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert "Too many failed login attempts" in limited  # 10/m per address
    other = failed_logins(via_proxy, 1, HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert "Too many failed login attempts" not in other


@pytest.mark.django_db
def test_a_forged_forwarded_for_does_not_escape_the_login_limit(behind_proxy):
    cache.clear()
    direct = Client(REMOTE_ADDR="203.0.113.9", HTTP_ACCEPT_LANGUAGE="en")
    for n in range(10):
        failed_logins(direct, 1, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    forged = failed_logins(direct, 1, HTTP_X_FORWARDED_FOR="198.51.100.200")
    assert "Too many failed login attempts" in forged


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("peer", "forwarded_for", "counted_as"),
    [
        (PROXY, b"198.51.100.1, 203.0.113.5", "203.0.113.5"),
        ("203.0.113.9", b"198.51.100.1", "203.0.113.9"),
        ("203.0.113.9", None, "203.0.113.9"),
    ],
)
async def test_websocket_budgets_count_the_forwarded_client_only_behind_a_trusted_proxy(
    behind_proxy, monkeypatch, peer, forwarded_for, counted_as
):
    seen: list[str] = []

    async def refuse_and_record(scope: dict) -> bool:
        seen.append(scope["client"][0])
        return False

    monkeypatch.setattr(budgets, "connection_allowed", refuse_and_record)
    headers = [ORIGIN] + ([(b"x-forwarded-for", forwarded_for)] if forwarded_for else [])
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=headers)
    communicator.scope["client"] = (peer, 40123)
    connected, _ = await communicator.connect()
    assert not connected
    assert seen == [counted_as]
