"""The API's reader of JSON bodies: django-ninja's own, and a body holding text the
database cannot store (``core.text``) is refused whole, before any view or schema sees
it, whichever field it is in."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja.parser import Parser

from api.errors import ApiError
from core import text


class StorableJsonParser(Parser):
    def parse_body(self, request: HttpRequest) -> Any:
        """The body's JSON; ApiError 400 ``bad_text`` for a NUL or a lone surrogate."""
        data = super().parse_body(request)
        if not text.all_storable(data):
            raise ApiError(400, "bad_text", str(text.BAD_TEXT))
        return data
