"""Where a form may send the browser back to: its ``next`` field, when it names a page of
this site; never another site (an open redirect would lend the site's name to a link)."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def next_or(request: HttpRequest, default: str) -> str:
    """The posted ``next`` if it points into this site, else ``default`` (a URL or a
    URL name that ``redirect`` takes)."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default
