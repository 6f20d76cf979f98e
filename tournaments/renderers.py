"""HTML fragments for the tournament websockets, rendered from the page template's partials.

Every fragment's root element carries its id and ``hx-swap-oob``, so htmx's ws
extension swaps it into the page in place.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from tournaments import arena_selectors, events, selectors
from tournaments.models import Tournament

LIVE_PARTIALS = ("status", "standings", "announcements", "staff-buttons")
ARENA_PARTIALS = ("mine", "arena-status", "podium", "leaderboard", "my-games")
FOLLOW_DELAY_MS = {events.FOLLOW_ELIMINATED: 3000, events.FOLLOW_MOVED: 1500}


def tournament_fragments(
    *,
    tournament_id: int,
    viewer: User | None,
    language: str,
    csrf_token: str,
    page: int | None = None,
) -> str:
    """The live parts of the tournament page for one viewer. Their forms post with
    ``csrf_token`` (``core.csrf.socket_csrf_token`` of the viewer's socket): rendered
    without a request, ``{% csrf_token %}`` would otherwise be empty and every form in
    them refused once they replaced the page's parts."""
    with translation.override(language):
        tournament = Tournament.objects.get(pk=tournament_id)
        if tournament.is_arena:  # ``page``: the leaderboard's page the viewer looks at
            data = arena_selectors.arena_page(tournament=tournament, viewer=viewer, page=page)
            template, partials = "tournaments/arena.html", ARENA_PARTIALS
        else:
            data = selectors.tournament_page(tournament=tournament, viewer=viewer)
            template, partials = "tournaments/detail.html", LIVE_PARTIALS
        context = {
            "p": data,
            "oob": True,
            "csrf_token": csrf_token,
            "user": viewer if viewer is not None else AnonymousUser(),
        }
        return "".join(render_to_string(f"{template}#{name}", context) for name in partials)


def follow_fragment(event: dict[str, Any], language: str) -> str:
    """A tiny element appended to the page: after a moment it asks where the user plays now
    and the answer (``HX-Redirect``) takes the page there. The reminder a minute before
    the start (``events.FOLLOW_REMINDER``) is instead a notice put at the top of the page."""
    kind = str(event.get("kind", ""))
    tournament_id = int(event["tournament"])
    if kind == events.FOLLOW_REMINDER:
        return reminder_fragment(tournament_id=tournament_id, language=language)
    with translation.override(language):
        return render_to_string(
            "tournaments/detail.html#follow",
            {
                "kind": kind,
                "follow_url": reverse(
                    "tournaments:follow", kwargs={"tournament_id": tournament_id}
                ),
                "delay_ms": FOLLOW_DELAY_MS.get(kind, 300),
            },
        )


def reminder_fragment(*, tournament_id: int, language: str) -> str:
    """The notice that the tournament starts in a minute, put at the top of any open page."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return ""
    notice = selectors.TournamentNotice("reminder", tournament, tournament.get_absolute_url())
    with translation.override(language):
        return render_to_string("tournaments/notices.html#socket-notice", {"n": notice})
