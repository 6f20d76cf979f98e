"""The client's address behind the reverse proxy, for HTTP and websockets alike.

daphne sees every request come from the proxy, so per-address limits (allauth's login
limits, the visitors' websocket budget) would count the whole site as one client.
``X-Forwarded-For`` names the real client, but anybody can send that header: it is
believed only when the direct peer is one of ``settings.TRUSTED_PROXIES``, and then
only up to the first address (from the right) that no trusted proxy added.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from asgiref.typing import ASGIReceiveCallable, ASGISendCallable
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def trusted_networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    """The configured proxies as networks (a single address is a /32 or /128)."""
    try:
        return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)
    except ValueError as error:
        raise ImproperlyConfigured(f"TRUSTED_PROXIES: {error}") from None


def _configured_networks() -> tuple[Network, ...]:
    return trusted_networks(tuple(settings.TRUSTED_PROXIES))


def _is_trusted(address: str, networks: Iterable[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(peer: str | None, forwarded_for: str | None) -> str | None:
    """The client's address: ``peer`` itself unless ``peer`` is a trusted proxy, else the
    right-most address of ``forwarded_for`` that is not a trusted proxy (``peer`` again if
    the header is missing or that entry is not an address)."""
    networks = _configured_networks()
    if not peer or not forwarded_for or not _is_trusted(peer, networks):
        return peer
    for entry in reversed(forwarded_for.split(",")):
        address = entry.strip()
        if not _is_trusted(address, networks):
            try:
                return str(ipaddress.ip_address(address))
            except ValueError:
                return peer
    return peer  # every hop was one of ours


def is_local_address(address: str | None) -> bool:
    """127.0.0.0/8 or ::1."""
    try:
        return address is not None and ipaddress.ip_address(address.strip()).is_loopback
    except ValueError:
        return False


def is_local_request(request: HttpRequest) -> bool:
    """Made on this machine: from a loopback address (after ForwardedForMiddleware), and
    forwarded for nobody else (a proxy on this machine left out of TRUSTED_PROXIES)."""
    hops = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    addresses = [request.META.get("REMOTE_ADDR"), *(hop for hop in hops if hop.strip())]
    return all(is_local_address(address) for address in addresses)


class ForwardedForMiddleware:
    """Django middleware, first in MIDDLEWARE: ``REMOTE_ADDR`` becomes the client's address,
    so that everything after it (allauth's rate limits, /healthz) sees the real client."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        _configured_networks()  # a bad TRUSTED_PROXIES stops the start, not a request
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        address = client_address(
            request.META.get("REMOTE_ADDR"), request.META.get("HTTP_X_FORWARDED_FOR")
        )
        if address:
            request.META["REMOTE_ADDR"] = address
        return self.get_response(request)


class ForwardedForASGIMiddleware:
    """ASGI middleware around the websocket stack: ``scope["client"]`` becomes the client's
    address (the port is the proxy's and means nothing, so it is kept as it was)."""

    def __init__(self, app: Any) -> None:
        _configured_networks()
        self.app = app

    async def __call__(
        self, scope: dict[str, Any], receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Any:
        client = scope.get("client")
        if client:
            forwarded_for = b",".join(
                value
                for name, value in scope.get("headers", ())
                if name.lower() == b"x-forwarded-for"
            ).decode("latin-1")
            address = client_address(client[0], forwarded_for)
            if address != client[0]:
                scope = {**scope, "client": (address, client[1])}
        return await self.app(scope, receive, send)
