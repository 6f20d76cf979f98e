from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from pan_site.health import run_checks


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """JSON with the state of the database, the channel layer and the broker; 503 if any fails."""
    checks = run_checks()
    ok = all(result["ok"] for result in checks.values())
    return JsonResponse({"ok": ok, "checks": checks}, status=200 if ok else 503)
