"""/api/docs: the API's reference as a page of the site, drawn on the server from the
schema, with no script to wait for and nothing from another host."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from api.api import api

pytestmark = pytest.mark.django_db


def test_the_docs_are_a_page_of_the_site_in_its_language_with_its_landmarks():
    page = Client(HTTP_ACCEPT_LANGUAGE="pl").get("/api/docs")

    assert page.status_code == 200
    html = page.content.decode()
    assert '<html lang="pl"' in html
    assert '<meta name="viewport"' in html
    assert '<main id="main">' in html
    assert 'href="/"' in html  # the way back to the site
    assert "<h1>Dokumentacja API</h1>" in html
    assert 'href="/api/openapi.json"' in html


def test_the_docs_list_every_operation_of_the_schema_with_its_body_and_answers():
    html = Client(HTTP_ACCEPT_LANGUAGE="en").get("/api/docs").content.decode()

    for path, operations in api.get_openapi_schema()["paths"].items():
        for method in operations:
            assert f"<code>{method.upper()} {path}</code>" in html
    assert "exactly one of cards | pickup" in html
    assert "string (1–300 characters)" in html
    assert "one of generic, later, too_fast" in html
    assert "application/x-ndjson" in html


def test_the_docs_page_needs_no_script_and_nothing_from_another_host():
    html = Client().get("/api/docs").content.decode()

    assert "swagger" not in html.lower()
    assert not re.search(r'(src|href)="(https?:)?//', html)
