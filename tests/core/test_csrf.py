"""The CSRF token that a socket's fragments carry (core.csrf)."""

from __future__ import annotations

from django.conf import settings
from django.middleware.csrf import CsrfViewMiddleware
from django.test import RequestFactory

from core.csrf import socket_csrf_token


def test_a_socket_without_the_cookie_gets_no_token():
    assert socket_csrf_token({"cookies": {}}) == ""
    assert socket_csrf_token({}) == ""


def test_the_token_is_masked_anew_each_time_and_django_accepts_it_for_the_cookie():
    secret = "a1" * 16
    scope = {"cookies": {settings.CSRF_COOKIE_NAME: secret}}
    first, second = socket_csrf_token(scope), socket_csrf_token(scope)
    assert len(first) == len(second) == 64
    assert first != second  # masked anew, as Django masks it for every page
    for token, cookie, accepted in ((first, secret, True), (second, "b2" * 16, False)):
        request = RequestFactory().post("/", {"csrfmiddlewaretoken": token})
        request.COOKIES[settings.CSRF_COOKIE_NAME] = cookie
        middleware = CsrfViewMiddleware(lambda r: None)
        middleware.process_request(request)
        refused = middleware.process_view(request, lambda r: None, (), {})
        assert (refused is None) is accepted
