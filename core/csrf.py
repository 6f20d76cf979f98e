"""The CSRF token for the POST forms inside fragments that a websocket sends.

A page's forms carry a token masked from the secret in the browser's CSRF cookie. A
fragment that a socket sends is rendered without a request, so ``{% csrf_token %}`` in it
would come out empty and the form would be refused (403) once the fragment replaced the
page's part. The socket's handshake carried the same cookie: its fragments get a token
masked from that secret, through Django's own middleware and ``get_token``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CsrfViewMiddleware, get_token


def _no_response(request: HttpRequest) -> HttpResponse:
    raise AssertionError("the middleware only reads the cookie here")


_MIDDLEWARE = CsrfViewMiddleware(_no_response)


def socket_csrf_token(scope: dict[str, Any]) -> str:
    """A fresh masked token for the CSRF cookie the socket's handshake carried, or ``""``
    when it carried none (a form would be refused anyway: the browser holds no secret)."""
    cookies = scope.get("cookies") or {}
    if settings.CSRF_COOKIE_NAME not in cookies:
        return ""
    request = HttpRequest()
    request.COOKIES = dict(cookies)
    _MIDDLEWARE.process_request(request)  # reads and checks the cookie as for a page
    return get_token(request)
