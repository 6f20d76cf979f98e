"""Serve a signed-in user in the display language he chose in his settings; note where he
is seen from (fair play)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts import devices, services

logger = logging.getLogger(__name__)


class UserLanguageMiddleware:
    """Runs after authentication: the user's saved language beats the browser's.

    It also writes Django's language cookie, so that the choice sticks on pages that
    are served before authentication (and after logout).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        language = getattr(user, "language", "") if user and user.is_authenticated else ""
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        response = self.get_response(request)
        # Read again: the view may just have changed it (account settings, switch).
        language = getattr(user, "language", "") if user and user.is_authenticated else ""
        if language and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                samesite="Lax",
                secure=settings.HTTPS,
            )
        return response


SIGHTING_EVERY = 600.0  # seconds between two writes of one sighting, per process
_BOOK_LIMIT = 50_000  # sightings remembered per process before the book starts again


class SightingBook:
    """When this process last wrote each (user, device, address): a sighting is written
    at most every ``SIGHTING_EVERY``, so a busy page costs no write per request. The
    address stays in this memory only; the database gets its hash."""

    def __init__(self) -> None:
        self._written: dict[tuple[int, str, str], float] = {}
        self._lock = threading.Lock()

    def seen(self, user_id: int, device: str, address: str, *, now: float | None = None) -> None:
        now = time.time() if now is None else now
        key = (user_id, device, address)
        with self._lock:
            last = self._written.get(key)
            if last is not None and now - last < SIGHTING_EVERY:
                return
            if len(self._written) >= _BOOK_LIMIT:
                self._written.clear()
            self._written[key] = now
        try:
            services.sighting_record(user_id=user_id, device=device, address=address)
        except DatabaseError:  # the page matters more than the record: the next one retries
            logger.warning("could not record where user %s was seen", user_id, exc_info=True)
            with self._lock:
                self._written.pop(key, None)


SIGHTINGS = SightingBook()


SESSION_DEVICE = "pan_device"  # the device id a session was given, kept with it


class DeviceMiddleware:
    """Runs after authentication; works on the way out, so that a login's own response
    counts (the view has just signed the user in). A signed-in user's browser keeps a
    device id in a signed cookie (given on the first response without a valid one) and
    his session keeps it too; the user is noted as seen on it from the client's address
    (``accounts.devices``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return response
        device = devices.device_of(request)
        if device is None:
            # The session's, where it has one: a client that drops the cookie is still one
            # device (and cannot make a new one per request).
            device = request.session.get(SESSION_DEVICE) or devices.new_device_id()
            devices.set_device_cookie(response, device)
        if request.session.get(SESSION_DEVICE) != device:
            request.session[SESSION_DEVICE] = device
        SIGHTINGS.seen(user.pk, device, request.META.get("REMOTE_ADDR") or "")
        return response
