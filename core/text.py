"""Text from users that the database could not store.

PostgreSQL's text refuses the NUL character, and a lone surrogate (which JSON's
``\\ud800`` escapes can make) has no UTF-8 bytes at all: either one would fail the
query that stores it, or looks it up, with a server error. Every edge that takes text
(the API's bodies, the sockets' commands, the views that read a raw field) asks here
first and refuses such text as bad input. Django's form fields refuse a NUL themselves,
and a form's body cannot carry a lone surrogate (Django decodes it with replacement).
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import Refused

UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
BAD_TEXT = _("The text holds a character that cannot be stored (a NUL or a broken one).")


def is_storable(text: str) -> bool:
    """Whether the database can store ``text`` as it is."""
    return UNSTORABLE.search(text) is None


def all_storable(value: Any) -> bool:
    """Whether every string in decoded JSON ``value`` (keys too) is storable."""
    if isinstance(value, str):
        return is_storable(value)
    if isinstance(value, dict):
        return all(all_storable(key) and all_storable(item) for key, item in value.items())
    if isinstance(value, list):
        return all(all_storable(item) for item in value)
    return True


def storable_text(text: str) -> str:
    """``text`` itself; ``Refused`` (code ``bad_text``) when the database cannot store it."""
    if not is_storable(text):
        raise Refused(str(BAD_TEXT), code="bad_text")
    return text
