"""Pages come compressed to a browser that accepts gzip; streams go as they are."""

from __future__ import annotations

import gzip

import pytest
from django.http import HttpResponse, StreamingHttpResponse
from django.test import Client, RequestFactory

from pan_site.compression import PageGZipMiddleware

pytestmark = pytest.mark.django_db


def test_a_page_comes_compressed_to_a_browser_that_accepts_gzip():
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    plain = client.get("/rules/")
    compressed = client.get("/rules/", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert "Content-Encoding" not in plain
    assert compressed["Content-Encoding"] == "gzip"
    assert len(compressed.content) < len(plain.content) / 3
    page = gzip.decompress(compressed.content)  # its masked CSRF token differs, not its length
    assert len(page) == len(plain.content) and page.endswith(b"</html>\n")
    assert "Accept-Encoding" in compressed["Vary"]


def test_a_stream_goes_line_by_line_uncompressed():
    request = RequestFactory().get("/api/stream/event", HTTP_ACCEPT_ENCODING="gzip")
    lines = [b'{"type": "gameStart"}\n'] * 50
    middleware = PageGZipMiddleware(lambda request: StreamingHttpResponse(iter(lines)))
    response = middleware(request)
    assert not response.has_header("Content-Encoding")
    assert list(response.streaming_content) == lines
    whole = PageGZipMiddleware(lambda request: HttpResponse(b"".join(lines)))(request)
    assert whole["Content-Encoding"] == "gzip"  # the same lines in one answer are
