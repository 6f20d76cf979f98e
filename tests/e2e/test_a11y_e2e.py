"""axe-core finds nothing on any page, in both themes, at a desktop's and a phone's width:
every page a signed-in player reaches, those of a visitor signed out (a table watched as a
spectator among them), the notice of a ban and the 404. axe-core comes bundled with
axe-playwright-python; nothing is downloaded. Its target-size check (WCAG 2.2, 24 px),
off by default, is on."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import Permission
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from accounts.models import User
from tests.e2e.pages import log_in
from tests.e2e.test_narrow_e2e import ANONYMOUS_PAGES, VIEWER, the_pages

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = Axe()
OPTIONS = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}
WIDTHS = {"1280": {"width": 1280, "height": 900}, "360": {"width": 360, "height": 800}}


def violations_on(page: Page, url: str) -> list[str]:
    """What axe finds on the page at ``url`` once it is drawn, one line per rule."""
    page.goto(url)
    # A live page is checked once its socket is up: what it swaps in is drawn.
    if page.locator("#conn-state").count():
        expect(page.locator("#conn-state.on")).to_have_count(1)
    if page.locator("[data-ws]").count():
        expect(page.locator("[data-ws]")).to_have_attribute("data-ws", "open")
    found = AXE.run(page, options=OPTIONS).response["violations"]
    return [
        f"{url}: {v['id']} ({v['help']}): "
        + "; ".join(" ".join(node["target"]) for node in v["nodes"][:5])
        for v in found
    ]


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_nothing_on_any_page(site, browser: Browser, theme: str, width: str):
    pages = the_pages()
    viewer = User.objects.get(username=VIEWER)
    viewer.user_permissions.add(*Permission.objects.filter(codename="add_tournament"))
    pages |= {
        "tokens": "/account/tokens/",
        "new tournament": "/tournaments/new/",
        "404": "/no-such-page/",
    }
    watched = {  # a table in play and a finished hand, seen by a visitor
        "spectator": pages["four playing"],
        "replay (signed out)": pages["replay with analysis"],
        "404 (signed out)": "/no-such-page/",
    }
    found: list[str] = []
    for signed_in, urls in ((True, pages), (False, ANONYMOUS_PAGES | watched)):
        context = browser.new_context(locale="en-GB", viewport=WIDTHS[width], color_scheme=theme)
        page = context.new_page()
        if signed_in:
            log_in(page, site.url, VIEWER)
        for path in urls.values():
            found += violations_on(page, site.url + path)
        if signed_in:  # banned, he is shown why on his next request
            User.objects.filter(pk=viewer.pk).update(
                banned_until=timezone.now() + timedelta(days=1)
            )
            found += violations_on(page, site.url + "/")
            expect(page.locator("main")).to_contain_text("banned")
        context.close()
    assert not found, "\n".join(found)
