"""What every signed-in page shows from games (``templates/_base.html``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games import selectors


def waiting_games(request: HttpRequest) -> dict[str, object]:
    """How many correspondence games wait for the signed-in user's move (the header's
    count): read only when a template shows it, from the cache (``core.cached``)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"waiting_games_count": 0}
    return {"waiting_games_count": SimpleLazyObject(lambda: selectors.waiting_count(user=user))}
