"""Serve a signed-in user in the display language he chose in his settings."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from accounts import moderation
from accounts.notices import ban_notice, report_outcome_notice


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


class ModerationMiddleware:
    """Runs after authentication and messages.

    A banned user is logged out on his next request, whatever it is, and is shown why
    and until when (his sessions are deleted at the ban already; this catches the rest).
    A player whose report has been handled is told how it ended on his next page view.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if user.is_banned():
                notice = ban_notice(user)
                logout(request)
                return render(request, "accounts/notices.html", {"notice": notice}, status=403)
            if request.method == "GET" and not request.headers.get("HX-Request"):
                for report in moderation.report_outcomes_deliver(user=user):
                    messages.info(request, report_outcome_notice(report))
        return self.get_response(request)
