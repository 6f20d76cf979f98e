"""Template helpers for the game pages: SVG cards, clocks, rule profile names, ratings."""

from __future__ import annotations

import functools

from django import template
from django.conf import settings
from django.template.loader import get_template, render_to_string
from django.utils import translation
from django.utils.safestring import SafeString

from accounts.models import User
from games import selectors
from games.models import Seat
from games.ratings import rating_label

register = template.Library()


@register.simple_tag
def card(card_view: selectors.CardView, size: str = "") -> SafeString:
    """One card drawn as inline SVG (no image downloads)."""
    if settings.DEBUG:  # in development an edited template shows at once
        return _card_svg.__wrapped__(card_view, size)
    return _card_svg(card_view, size)


@functools.lru_cache(maxsize=1024)
def _card_svg(card_view: selectors.CardView, size: str) -> SafeString:
    """A card's SVG, drawn once per card, size and label (the label is in a language):
    a table shows the same 54 cards again at every move."""
    return render_to_string("games/_card.html", {"c": card_view, "size": size})


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


# Where each seat sits around the felt, counted clockwise from the viewer's own (or from
# seat 0 for a spectator). The players' boxes get the same places from CSS (site.css).
SEAT_SLOTS = {
    2: ("bottom", "top"),
    3: ("bottom", "tl", "tr"),
    4: ("bottom", "left", "top", "right"),
}


@register.simple_tag
def seat_slot(position: int, my_position: int | None, seats: int) -> str:
    """The place around the felt of the seat at ``position`` as ``my_position`` sees it."""
    slots = SEAT_SLOTS.get(seats)
    if slots is None:
        return ""
    return slots[(position - (my_position or 0)) % seats]


@register.filter
def seats_taken(seats: list[Seat]) -> int:
    """How many of a table's seats hold a player or a bot."""
    return sum(1 for seat in seats if not seat.is_empty)


@register.simple_tag
def player_box(player: selectors.PlayerView) -> SafeString:
    """One player's box around the table, drawn once per look of it and language: a move
    changes the boxes of the player who moved and of the next one, not the others'."""
    if settings.DEBUG:
        return _player_box.__wrapped__(player, translation.get_language())
    return _player_box(player, translation.get_language())


@functools.lru_cache(maxsize=4096)
def _player_box(player: selectors.PlayerView, language: str | None) -> SafeString:
    return get_template("games/table.html#player").render({"p": player})
