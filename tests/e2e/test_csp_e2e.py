"""Under the Content-Security-Policy every page still works in a real browser, and the
browser reports no violation: the scripts are files, htmx adds no inline style, the
websockets connect."""

from __future__ import annotations

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.e2e.pages import count_frames, first_frame_drawn, log_in, new_page
from tests.factories import PASSWORD, make_table, make_user, play_to_pan_on_time
from tests.tournaments.helpers import make_tournament

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def watch_violations(page: Page) -> list[str]:
    """Chromium reports each refused script, style, frame or connection on the console."""
    violations: list[str] = []

    def note(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text}")

    page.on("console", note)
    return violations


def test_pages_work_under_the_policy_without_a_violation(site, browser):
    ola = make_user("ola_csp")
    make_user("boss_csp", is_staff=True, is_superuser=True)
    table = make_table(owner=ola)
    hand = play_to_pan_on_time(make_table(owner=ola)).hands.order_by("number").first()
    tournament = make_tournament(bots=3)

    context, page = new_page(browser)
    count_frames(page)
    violations = watch_violations(page)
    log_in(page, site.url, "ola_csp")

    page.goto(f"{site.url}/tournaments/{tournament.pk}/")
    expect(page.locator(".tournament-page[data-ws=open]")).to_have_count(1)

    page.goto(f"{site.url}/hands/{hand.pk}/")
    position = page.locator(".replay-position")
    expect(position).to_contain_text("0 / ")
    page.locator("[data-step='1']").click()
    expect(position).to_contain_text("1 / ")

    page.goto(f"{site.url}{table.get_absolute_url()}")
    first_frame_drawn(page)  # the whole table, seats and report buttons drawn again
    page.get_by_test_id("report-player").first.click()
    expect(page.get_by_test_id("report-form")).to_be_visible()
    page.locator("#report-box").get_by_role("button", name="Cancel").click()
    expect(page.get_by_test_id("report-form")).to_have_count(0)

    page.goto(f"{site.url}/accounts/2fa/totp/activate/")
    if "/reauthenticate/" in page.url:
        page.fill("input[name=password]", PASSWORD)
        page.locator("main button[type=submit]").click()
    qr_code = page.locator("img[src^='data:']")
    expect(qr_code).to_have_count(1)
    assert qr_code.evaluate("img => img.complete && img.naturalWidth > 0")
    context.close()

    context, page = new_page(browser)
    violations += watch_violations(page)
    log_in(page, site.url, "boss_csp")
    for path in ("/admin/", "/admin/accounts/user/", f"/admin/accounts/user/{ola.pk}/change/"):
        page.goto(f"{site.url}{path}")
        expect(page.locator("#content")).to_be_visible()
    context.close()

    assert violations == []
