"""Serve a signed-in user in the display language he chose in his settings."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation


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
