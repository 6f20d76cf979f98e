"""Pages compressed by the site itself: ``make run`` has no proxy in front, and the nginx
of ``deploy/`` compresses only the static files (``gzip_static``), passing a compressed
page on as it is.

BREACH (guessing a secret in a compressed page from its length) is answered by Django's
own defences: GZipMiddleware pads each compressed answer with up to 100 random bytes in
the gzip header (its length-hiding mitigation), and the CSRF token in a form is masked
anew on every request, so no secret repeats from one answer to the next.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware


class PageGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware for whole answers only: a streamed answer (the API's NDJSON
    streams, a static file) goes as it is, since gzip would hold its lines back until a
    block filled, and whitenoise sends the static files' own compressed copies."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if response.streaming:
            return response
        return super().process_response(request, response)
