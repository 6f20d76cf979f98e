"""The API's one shape of refusal: ``{"error": {"code": "...", "message": "..."}}`` with
the HTTP status that fits (400 bad input, 401 no valid token, 403 not allowed, 404 no
such thing, 409 the state does not allow it now, 429 too many requests, with
``Retry-After``). ``code`` is stable, for programs; ``message`` is a sentence for people,
in English unless the request's ``Accept-Language`` asks for Polish. A refused request
changed nothing."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, JsonResponse

from core.errors import Refused


class ApiError(Exception):
    """A refusal of the API; ``extra`` goes beside the code and message (e.g. the engine's
    own code of an illegal move)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        retry_after: int | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after
        self.extra = extra

    @classmethod
    def from_refused(cls, exc: Refused, *, status: int = 409, code: str = "refused") -> ApiError:
        """A service's refusal: its own code when it gives one, else ``code``."""
        return cls(status, exc.code or code, exc.message)


def error_response(error: ApiError) -> HttpResponse:
    response = JsonResponse(
        {"error": {"code": error.code, "message": error.message, **error.extra}},
        status=error.status,
    )
    if error.retry_after is not None:
        response["Retry-After"] = str(error.retry_after)
    return response
