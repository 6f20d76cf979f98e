"""``{% play_now %}``: the lobby's "Play now" panel (the lobby is games' page; the panel
is the pairing's, so games needs no import of it)."""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

from games.models import BotLevel
from games.selectors import move_days_label
from games.services import DAY_PRESETS, TIME_PRESETS
from pairing.models import DEFAULT_WAIT

register = template.Library()


@register.inclusion_tag("pairing/_play_now.html")
def play_now() -> dict[str, Any]:
    return {
        "time_presets": list(TIME_PRESETS),
        "day_presets": [(key, move_days_label(days)) for key, days in DAY_PRESETS.items()],
        "waits": settings.PAIRING_WAITS,
        "default_wait": DEFAULT_WAIT,
        "bot_levels": BotLevel.choices,
    }
