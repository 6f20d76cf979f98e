"""The tournament notices every page shows its user (``templates/_base.html``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from tournaments import selectors


def tournament_notices(request: HttpRequest) -> dict[str, object]:
    """Read only when a template asks (the notices' two queries stay off other renders)."""
    user = getattr(request, "user", None)
    if user is None:
        return {"tournament_notices": []}
    return {
        "tournament_notices": SimpleLazyObject(
            lambda: selectors.tournament_notices(user=user, path=request.path)
        )
    }
