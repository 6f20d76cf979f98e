"""The site as an app: its web app manifest, its service worker and the page the worker
shows when a navigation finds no network.

The worker (``templates/webapp/sw.js``) is served from the root, so that its scope is
the whole site, and is never cached for long (a browser checks it for updates on each
visit). It keeps the site's static files, whose names carry their hash in production
(whitenoise's manifest storage), and the offline page in each language: nothing else.
A page of the site holds its player's data (his hand, his name, a form's token): the
worker sends every navigation to the network and keeps none of them, and it never
touches a request that is not a GET.
"""

from __future__ import annotations

import functools
import hashlib
import json

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

# The colours of the header (the felt) and of the page, in the light and the dark theme
# (static/css/site.css): the manifest carries the light one, the page's theme-color
# meta tags both.
THEME_COLOURS = {"light": "#1d5c3a", "dark": "#174d31"}
BACKGROUND_COLOURS = {"light": "#fbfaf7", "dark": "#15181a"}

ICONS = [
    {"src": "img/icons/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
    {"src": "img/icons/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
    {
        "src": "img/icons/maskable-512.png",
        "sizes": "512x512",
        "type": "image/png",
        "purpose": "maskable",
    },
]
# What {% htmx_script extensions="hx-ws" %} in _base.html loads, besides our own files.
LIBRARY_FILES = ("django_htmx/htmx-2.min.js", "django_htmx/ext/hx-ws-2.min.js")
NO_CACHE = "no-cache"


@require_safe
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the reader's language: what a phone installs."""
    data = {
        "id": "/",
        "name": settings.SITE_NAME,
        "short_name": "Pan",
        "description": _(
            "Play the Polish card game Pan online, live against people and bots, "
            "under chess clocks."
        ),
        "lang": translation.get_language(),
        "dir": "ltr",
        "start_url": reverse("home"),
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOURS["light"],
        "background_color": BACKGROUND_COLOURS["light"],
        "categories": ["games"],
        "icons": [{**icon, "src": static(icon["src"])} for icon in ICONS],
        "prefer_related_applications": False,
    }
    response = JsonResponse(
        data, content_type="application/manifest+json", json_dumps_params={"ensure_ascii": False}
    )
    response["Cache-Control"] = NO_CACHE
    return response


def offline_url(language: str) -> str:
    return reverse("offline", kwargs={"language": language})


@functools.cache
def precached() -> tuple[str, ...]:
    """The URLs of the static files the worker keeps: every file of our own static/
    folder and the htmx files, under their hashed names where the storage gives them."""
    names = {
        path
        for finder in finders.get_finders()
        if isinstance(finder, finders.FileSystemFinder)
        for path, _storage in finder.list(["*.py", ".*"])
    }
    return tuple(static(name) for name in sorted(names | set(LIBRARY_FILES)))


def _hashed() -> bool:
    """Whether static names carry their content's hash (then a kept file never changes)."""
    return static("css/site.css") != settings.STATIC_URL + "css/site.css"


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    offline = {code: offline_url(code) for code, _name in settings.LANGUAGES}
    files = precached()
    context = {
        "precache": json.dumps(files),
        "offline": json.dumps(offline),
        "default_language": json.dumps(settings.LANGUAGE_CODE),
        "hashed": json.dumps(_hashed()),
        "static_url": json.dumps(settings.STATIC_URL),
        "icon": json.dumps(static("img/icons/icon-192.png")),
        "badge": json.dumps(static("img/icons/badge-96.png")),
    }
    body = render_to_string("webapp/sw.js", context)
    # A new list of files (a deploy) or a new worker makes a new version, and a new cache.
    version = hashlib.sha256(body.encode()).hexdigest()[:16]
    body = body.replace("__VERSION__", version)
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = NO_CACHE
    return response


@require_safe
def offline(request: HttpRequest, language: str) -> HttpResponse:
    """The page the worker shows when a navigation fails, in ``language``. Drawn for
    nobody in particular (no user, no form token), as the worker keeps it."""
    if language not in dict(settings.LANGUAGES):
        raise Http404
    with translation.override(language):
        body = render_to_string(
            "webapp/offline.html",
            {
                "language": language,
                "theme_colours": THEME_COLOURS,
                "site_css": static("css/site.css"),
                "theme_js": static("js/theme.js"),
                "icon": static("img/favicon.svg"),
            },
        )
    response = HttpResponse(body)
    response["Cache-Control"] = NO_CACHE
    response["Content-Language"] = language
    return response
