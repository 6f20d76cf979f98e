"""Renderers for the events a floor above games sends to a user's sockets.

Every socket of a user (games' ``UserSocketMixin``) handles the event types of the user's
group; the floor that sends an event (a tournament's ``user.follow``) registers here, in
its ``AppConfig.ready()``, the function that renders it as an HTML fragment, so games
never imports that floor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Renderer = Callable[[dict[str, Any], str], str]  # (event, language) -> HTML

_renderers: dict[str, Renderer] = {}


def register(event_type: str, render: Renderer) -> None:
    """``render`` answers every event of ``event_type`` (one renderer per type)."""
    known = _renderers.get(event_type)
    if known is not None and known is not render:
        raise ValueError(f"{event_type!r} already has a renderer: {known!r}")
    _renderers[event_type] = render


def render(event: dict[str, Any], language: str) -> str:
    """The fragment for ``event`` in ``language``; empty when no floor renders its type."""
    renderer = _renderers.get(str(event.get("type", "")))
    return renderer(event, language) if renderer is not None else ""
