"""Every response carries the Content-Security-Policy, and no template needs what it
forbids: inline scripts, on...= handlers, hx-on (htmx evals it), inline styles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import client_for, make_table, make_user, play_to_pan_on_time

TEMPLATES = Path(settings.BASE_DIR) / "templates"

POLICY = {
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
}


def directives(response) -> set[str]:
    return {part.strip() for part in response["Content-Security-Policy"].split(";")}


def assert_policy(response) -> None:
    got = directives(response)
    assert got >= POLICY, (response.request["PATH_INFO"], got)
    assert "connect-src 'self' ws://testserver" in got
    assert "unsafe" not in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_every_page_carries_the_policy():
    player = make_user("ola")
    staff = make_user("boss", is_staff=True, is_superuser=True)
    table = make_table(owner=player)
    match = play_to_pan_on_time(make_table())
    hand = match.hands.order_by("number").first()
    visitor_pages = [
        "/",
        "/rules/",
        "/fairness/",
        "/ratings/",
        "/tournaments/",
        "/u/ola/",
        "/accounts/login/",
        "/accounts/signup/",
        "/accounts/password/reset/",
        "/healthz",
        "/no-such-page/",
        "/admin/login/",
        table.get_absolute_url(),
        f"/hands/{hand.pk}/",
    ]
    for path in visitor_pages:
        assert_policy(Client().get(path))
    for path in ["/account/settings/", "/accounts/2fa/", "/accounts/email/", "/tables/new/"]:
        assert_policy(client_for(player).get(path))
    for path in ["/admin/", "/admin/accounts/user/", f"/admin/accounts/user/{player.pk}/change/"]:
        response = client_for(staff).get(path)
        assert response.status_code == 200
        assert_policy(response)
    assert_policy(client_for(player).post("/accounts/logout/"))  # a redirect too


def test_the_websocket_origin_follows_the_scheme():
    assert "connect-src 'self' wss://testserver" in directives(
        Client().get("/healthz", secure=True)
    )


@pytest.mark.django_db
def test_the_replay_and_the_site_scripts_are_files():
    match = play_to_pan_on_time(make_table())
    page = Client().get(f"/hands/{match.hands.first().pk}/").content.decode()
    assert "/static/js/replay.js" in page and "/static/js/site.js" in page
    assert 'name="htmx-config"' in page and '"includeIndicatorStyles": false' in page


COMMENT = re.compile(r"{#.*?#}|{% comment %}.*?{% endcomment %}", re.DOTALL)
HANDLER = re.compile(r"<[^>]*\s(on[a-z]+|hx-on[:\-][^\s=]*)\s*=", re.IGNORECASE)
SCRIPT = re.compile(r"<script\b[^>]*>", re.IGNORECASE)
STYLE = re.compile(r"<style\b|<[^>]*\sstyle\s*=", re.IGNORECASE)


def template_sources() -> list[tuple[str, str]]:
    return [
        (str(path.relative_to(TEMPLATES)), COMMENT.sub("", path.read_text()))
        for path in sorted(TEMPLATES.rglob("*.html"))
    ]


def test_no_template_has_inline_handlers_or_inline_scripts():
    found = []
    for name, source in template_sources():
        found += [f"{name}: {m.group(0)}" for m in HANDLER.finditer(source)]
        found += [
            f"{name}: {m.group(0)}"
            for m in SCRIPT.finditer(source)
            if "src=" not in m.group(0) and "application/json" not in m.group(0)
        ]
    assert found == []


def test_no_template_has_inline_styles():
    found = [
        f"{name}: {m.group(0)}"
        for name, source in template_sources()
        for m in STYLE.finditer(source)
    ]
    assert found == []
