"""Template helpers for the game pages: SVG cards, clocks, rule profile names, ratings."""

from __future__ import annotations

from django import template
from django.utils import translation

from accounts.models import User
from games import selectors
from games.ratings import rating_label

register = template.Library()


@register.inclusion_tag("games/_card.html")
def card(card_view: selectors.CardView, size: str = "") -> dict[str, object]:
    """One card drawn as inline SVG (no image downloads)."""
    return {"c": card_view, "size": size}


@register.filter
def clock(milliseconds: int) -> str:
    """Remaining time as m:ss (or s.t under ten seconds)."""
    milliseconds = max(0, int(milliseconds))
    if milliseconds < 10_000:
        return f"{milliseconds // 1000}.{(milliseconds % 1000) // 100}"
    minutes, seconds = divmod(milliseconds // 1000, 60)
    return f"{minutes}:{seconds:02d}"


@register.simple_tag
def profile_label(key: str) -> str:
    return selectors.profile_name(key, translation.get_language() or "")


@register.simple_tag
def time_control(table: object) -> str:
    return selectors.time_control_label(table.base_seconds, table.increment_seconds)


@register.filter
def rating(user: User) -> str:
    """A person's shown rating beside his name."""
    return rating_label(user)
