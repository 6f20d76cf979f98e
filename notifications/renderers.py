"""The bell's parts as the page's own socket sends them (out of band)."""

from __future__ import annotations

from django.template.loader import render_to_string

from accounts.models import User
from notifications import selectors


def bell_fragment(user: User, csrf_token: str) -> str:
    """The unread count and the panel of ``user``'s bell, in the active language."""
    context = {"bell": selectors.bell(user), "oob": True, "csrf_token": csrf_token}
    return render_to_string("notifications/bell.html#count", context) + render_to_string(
        "notifications/bell.html#panel", context
    )
