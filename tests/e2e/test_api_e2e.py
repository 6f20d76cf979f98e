"""The API's pages in a real browser: the tokens page (make one, see it once, revoke it),
the API's docs under the Content-Security-Policy, and a bot account marked "bot"."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from games import services
from games.engine import Rules
from tests.e2e.pages import log_in, new_page
from tests.e2e.test_fixes_e2e import CONTRAST
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def watch_violations(page: Page) -> list[str]:
    violations: list[str] = []

    def note(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            violations.append(message.text)

    page.on("console", note)
    return violations


def account_status(base_url: str, token: str) -> int:
    request = urllib.request.Request(
        f"{base_url}/api/account", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_token_is_made_on_the_settings_page_shown_once_and_revoked(site, browser):
    make_user("tokens_e2e")
    context, page = new_page(browser)
    log_in(page, site.url, "tokens_e2e")
    page.goto(f"{site.url}/account/settings/")
    page.get_by_role("link", name="API access tokens").click()
    page.fill("input[name=name]", "my bot")
    page.get_by_label("Play games as a bot account (bot:play)").check()
    page.get_by_role("button", name="Create the token").click()
    token = page.get_by_test_id("token-value").inner_text().strip()
    assert token.startswith("pan_")
    assert account_status(site.url, token) == 200

    page.goto(f"{site.url}/account/tokens/")
    expect(page.get_by_test_id("token")).to_have_count(1)
    assert token not in page.content()
    page.get_by_test_id("revoke").click()
    expect(page.get_by_test_id("revoked")).to_have_count(1)
    assert account_status(site.url, token) == 401
    context.close()


def test_the_api_docs_list_the_endpoints_without_a_policy_violation(site, browser):
    context, page = new_page(browser)
    violations = watch_violations(page)
    page.goto(f"{site.url}/api/docs")
    expect(page.get_by_text("/api/bot/game/{table_id}/move").first).to_be_visible()
    expect(page.get_by_text("/api/stream/event").first).to_be_visible()
    assert violations == []
    with urllib.request.urlopen(f"{site.url}/api/openapi.json", timeout=10) as response:
        schema = json.loads(response.read())
    assert "/api/board/game/{table_id}/move" in schema["paths"]
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_api_docs_are_a_legible_page_of_the_site_at_360_px(site, browser, scheme):
    context = browser.new_context(
        locale="pl-PL", color_scheme=scheme, viewport={"width": 360, "height": 800}
    )
    page = context.new_page()
    page.goto(f"{site.url}/api/docs")

    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.get_by_role("main")).to_have_count(1)
    expect(page.get_by_test_id("operation")).to_have_count(19)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    texts = page.locator("main :is(h1, h2, h3, p, a, caption, th, td, code)")
    contrasts = texts.evaluate_all(f"els => els.map({CONTRAST})")
    assert min(contrasts) >= 4.5
    page.get_by_role("link", name="Poczekalnia").click()
    expect(page).to_have_url(f"{site.url}/")
    context.close()


def test_a_bot_account_is_marked_bot_at_its_table(site, browser):
    robo = make_user("robo_e2e", is_bot_account=True)
    make_user("viewer_e2e")
    table = services.table_create(owner=robo, name="Robo's", rules=Rules(), seats=2)
    context, page = new_page(browser)
    log_in(page, site.url, "viewer_e2e")
    page.goto(f"{site.url}/tables/{table.pk}/")
    seat = page.get_by_test_id("seat").filter(has_text="robo_e2e")
    expect(seat.get_by_test_id("bot-account")).to_have_text("bot")
    page.goto(f"{site.url}/u/robo_e2e/")
    expect(page.get_by_test_id("bot-account")).to_have_text("bot")
    context.close()
