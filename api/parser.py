"""The API's reader of JSON bodies: django-ninja's own, and a body holding text the
database cannot store (``core.text``) is refused whole, before any view or schema sees
it, whichever field it is in."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Schema
from ninja.parser import Parser
from pydantic import ConfigDict

from api.errors import ApiError
from core import text


class StorableJsonParser(Parser):
    def parse_body(self, request: HttpRequest) -> Any:
        """The body's JSON; ApiError 400 ``bad_text`` for a NUL or a lone surrogate."""
        data = super().parse_body(request)
        if not text.all_storable(data):
            raise ApiError(400, "bad_text", str(text.BAD_TEXT))
        return data


class BodyIn(Schema):
    """A request body's schema: the fields it names and no others (an unknown field is
    refused as ``bad_request``), so the published schema allows no input the server
    refuses; the parser above has refused what the database cannot store."""

    model_config = ConfigDict(extra="forbid")
