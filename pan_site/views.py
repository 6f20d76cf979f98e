from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from accounts.selectors import user_public_profile
from games.selectors import player_record, rating_refunds
from pan_site.health import CheckResult, run_checks
from pan_site.proxy import is_local_request
from tournaments.selectors import user_tournaments


def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's page: his record at the tables and his tournaments. It lives here, at the
    top, because it reads every floor (accounts, games, tournaments)."""
    player = user_public_profile(username=username)
    context = {
        "player": player,
        "record": player_record(user=player, viewer=request.user),
        "tournaments": user_tournaments(user=player),
        "refunds": rating_refunds(user=player),
    }
    return render(request, "accounts/profile.html", context)


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """JSON with the state of the database, the channel layer and the broker; 503 if any fails.

    Backends, timings and error texts name internal hosts: only the staff and requests
    from the machine itself (the proxy's own check) see them; everybody else sees ok."""
    checks = run_checks()
    ok = all(result["ok"] for result in checks.values())
    if not _may_see_details(request):
        checks = {name: CheckResult(ok=result["ok"]) for name, result in checks.items()}
    return JsonResponse({"ok": ok, "checks": checks}, status=200 if ok else 503)


def _may_see_details(request: HttpRequest) -> bool:
    if is_local_request(request):
        return True
    try:
        user = request.user
        return bool(user.is_active and user.is_staff)
    except Exception:  # the session lives in the database, which may be the thing that is down
        return False
