"""A visitor signs up, confirms the e-mail, logs in, and reads the site in Polish."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.factories import PASSWORD

# Transactional: rows the test writes are committed, so the server process sees them.
pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CONFIRM_LINK = re.compile(r"https?://[^/\s]+(/accounts/confirm-email/[^/\s]+/)")


def test_sign_up_confirm_email_be_signed_in_and_see_the_profile(site, page: Page):
    page.goto(f"{site.url}/accounts/signup/")
    page.fill("input[name=username]", "newcomer")
    page.fill("input[name=email]", "newcomer@example.com")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.get_by_role("button", name="Sign Up").click()
    expect(page.get_by_role("heading", name="Verify Your Email Address")).to_be_visible()

    message = next(m for m in reversed(site.mail_texts()) if "newcomer@example.com" in m)
    page.goto(site.url + CONFIRM_LINK.search(message).group(1))
    page.get_by_role("button", name="Confirm").click()

    # Confirmed in the browser that signed up: signed in, no password asked again.
    expect(page.get_by_test_id("nav-profile")).to_have_text("newcomer")
    expect(page).not_to_have_url(re.compile("/accounts/login/"))
    page.get_by_test_id("nav-profile").click()
    expect(page.get_by_test_id("profile-username")).to_have_text("newcomer")
    expect(page.get_by_text("Joined")).to_be_visible()


def test_wrong_password_shows_an_error_and_logs_nobody_in(site, page: Page):
    page.goto(f"{site.url}/accounts/login/")
    page.fill("input[name=login]", "nobody-like-this")
    page.fill("input[name=password]", "not-the-password")
    page.get_by_role("button", name="Sign In").click()
    expect(
        page.get_by_text("The username and/or password you specified are not correct.")
    ).to_be_visible()
    expect(page.get_by_test_id("nav-profile")).to_have_count(0)
    expect(page.get_by_role("link", name="Log in")).to_be_visible()


def test_switching_to_polish_shows_polish_text(site, page: Page):
    page.goto(f"{site.url}/")
    expect(page.get_by_role("heading", name="Open tables")).to_be_visible()
    page.get_by_role("button", name="PL").click()
    expect(page.get_by_role("heading", name="Otwarte stoły")).to_be_visible()
    expect(page.get_by_role("link", name="Turnieje")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "pl")


# The line boxes of the heading's "e-mail" (with a hyphen or a non-breaking one).
E_MAIL_LINES = """heading => {
  const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const found = /e[-\\u2011]mail/.exec(node.textContent);
    if (!found) continue;
    const range = document.createRange();
    range.setStart(node, found.index);
    range.setEnd(node, found.index + found[0].length);
    return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
  }
  return 0;
}"""


def test_the_polish_verify_your_e_mail_heading_keeps_e_mail_whole_on_a_phone(site, browser):
    context = browser.new_context(locale="pl-PL", viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto(f"{site.url}/accounts/confirm-email/")
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_text(re.compile(r"Zweryfikuj swój adres e[-\u2011]mail"))
    # The heading takes two lines on a phone; "e-" must not end the first.
    assert heading.evaluate("h => h.getClientRects()[0].height") > 40
    assert heading.evaluate(E_MAIL_LINES) == 1
    context.close()
