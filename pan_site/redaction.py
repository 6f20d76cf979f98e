"""A token sent in a URL's query string never reaches a log or the debug page: the API
refuses it (only ``Authorization: Bearer`` authorises), but daphne's access log writes
the whole URL it was sent to, and Django's debug page shows the URL, the query's
parameters and the request in every frame. Here the values of ``SECRET_PARAMETERS`` are
masked on both ways out, through daphne's action logger and Django's exception
reporter (the ``DEFAULT_EXCEPTION_REPORTER`` setting), both public hooks."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote_plus

from daphne.server import Server
from django.http import HttpRequest, QueryDict
from django.views.debug import ExceptionReporter

SECRET_PARAMETERS = frozenset({"token", "access_token"})
MASK = "********"

ActionLogger = Any  # daphne's action logger: a callable (protocol, action, details)


def _is_secret(name: str) -> bool:
    return unquote_plus(name).strip().lower() in SECRET_PARAMETERS


def redact_query(query: str) -> str:
    """``query`` (``a=1&token=…``) with the value of every secret parameter masked; the
    rest kept byte for byte."""
    parts = []
    for part in query.split("&"):
        name, equals, _value = part.partition("=")
        parts.append(f"{name}={MASK}" if equals and _is_secret(name) else part)
    return "&".join(parts)


def redact_url(url: str) -> str:
    """A path or URL with its query's secret values masked (a fragment is kept)."""
    head, question, rest = url.partition("?")
    if not question:
        return url
    query, hash_mark, fragment = rest.partition("#")
    return f"{head}?{redact_query(query)}{hash_mark}{fragment}"


def secret_values(query: str) -> list[str]:
    """The values the query gives to secret parameters, as sent and as decoded."""
    values: list[str] = []
    for part in query.split("&"):
        name, equals, value = part.partition("=")
        if equals and value and _is_secret(name):
            values.extend({value, unquote_plus(value)})
    return values


def redacting(logger: ActionLogger) -> ActionLogger:
    """daphne's action logger ``logger`` fed paths with their secrets masked."""

    def log(protocol: str, action: str, details: dict[str, Any]) -> None:
        path = details.get("path")
        if isinstance(path, str) and "?" in path:
            details = {**details, "path": redact_url(path)}
        logger(protocol, action, details)

    return log


class RedactingServer(Server):
    """daphne's server with its access log (the action logger) masking secrets."""

    def __init__(self, *args: Any, action_logger: ActionLogger = None, **kwargs: Any) -> None:
        if action_logger is not None:
            action_logger = redacting(action_logger)
        super().__init__(*args, action_logger=action_logger, **kwargs)


def _masked(text: str, secrets: list[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


class RedactingExceptionReporter(ExceptionReporter):
    """Django's debug page and error e-mails with the query's secrets masked: the URL,
    the GET parameters, the request's META and every value shown in the frames."""

    def get_traceback_data(self) -> dict[str, Any]:
        data = super().get_traceback_data()
        request: HttpRequest | None = self.request
        if request is None:
            return data
        query_string = request.META.get("QUERY_STRING", "")
        if not secret_values(query_string):
            return data
        # Anywhere else a secret is found by its value; a value shorter than this would
        # mask half the page, and is no real token anyway.
        secrets = [value for value in secret_values(query_string) if len(value) >= 8]
        if "request_insecure_uri" in data:
            data["request_insecure_uri"] = redact_url(data["request_insecure_uri"])
        if "request_GET_items" in data:
            query = QueryDict(redact_query(query_string))
            data["request_GET_items"] = list(query.items())
        data["request_meta"] = {
            key: _masked(value, secrets) if isinstance(value, str) else value
            for key, value in data["request_meta"].items()
        }
        for frame in data["frames"]:
            if "vars" in frame:
                frame["vars"] = [(name, _masked(value, secrets)) for name, value in frame["vars"]]
        if "exception_value" in data:
            data["exception_value"] = _masked(data["exception_value"], secrets)
        return data
