"""Bans and report outcomes reach a signed-in user on his next request."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.notices import ban_notice
from moderation import services
from moderation.notices import report_outcome_notice


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
                for report in services.report_outcomes_deliver(user=user):
                    messages.info(request, report_outcome_notice(report))
        return self.get_response(request)
