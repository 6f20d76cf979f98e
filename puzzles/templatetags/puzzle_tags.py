"""The lobby's daily puzzle, drawn by an include of the lobby (games cannot import us)."""

from __future__ import annotations

from django import template
from django.utils import timezone

from puzzles import selectors
from puzzles.models import Puzzle

register = template.Library()


@register.simple_tag
def daily_puzzle() -> Puzzle | None:
    return selectors.daily_puzzle(today=timezone.localdate())
