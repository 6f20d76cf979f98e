"""The API's edge for what happens before its views run: every path under ``/api/``
speaks the API's language (``api.auth.api_language``: English unless Polish is asked
for), and a method the path does not take is the API's JSON refusal, not django-ninja's
bare text, with the ``Allow`` header kept."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation import gettext as _

from api.auth import api_language
from api.errors import ApiError, error_response

API_PREFIX = "/api/"
DOCS_PATH = "/api/docs"  # a page for people: it follows the site's language


class ApiEdgeMiddleware:
    """Runs after the site's language middlewares, so that a request under ``/api/``
    is answered in the API's language whatever the site's cookie or account says."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX) or request.path == DOCS_PATH:
            return self.get_response(request)
        language = api_language(request)
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        if response.status_code == 405 and response.get("Content-Type") != "application/json":
            allowed = ", ".join(sorted(m.strip() for m in response.get("Allow", "").split(",")))
            refusal = error_response(
                ApiError(
                    405,
                    "method_not_allowed",
                    _("This path takes only %(methods)s.") % {"methods": allowed},
                )
            )
            refusal["Allow"] = allowed
            return refusal
        return response
