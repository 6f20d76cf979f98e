"""Notes that a signed-in user is online (``social.presence``)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from social.presence import SEEN


class LastSeenMiddleware:
    """Runs after authentication and moderation (a banned user is not seen): each
    request of a signed-in user counts as a sign of life, written at most once a minute."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            SEEN.seen(user.pk)
        return self.get_response(request)
