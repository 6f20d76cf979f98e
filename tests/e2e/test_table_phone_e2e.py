"""The table on a phone and for the keyboard (#40): the first screen holds what a player
needs to play, and one Tab reaches the hand."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.screenshots import table_in_play
from tests.e2e.test_fixes_e2e import log_in_any_language

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LOCALES = {"en": "en-GB", "pl": "pl-PL"}
PHONES = [(360, 740), (360, 640)]
# What a player must see to play, each as a selector: every card of his hand, the pile's
# top card, that it is his turn (the words and the mark on his box), his own clock.
MUST_SEE = {
    "hand": "#my-hand .hand-cards .card-button",
    "pile top": "#pile .pile-card.top",
    "your turn": '[data-testid="your-turn"]',
    "to-move mark": '.player.me [data-testid="to-move"]',
    "own clock": '.player.me [data-testid="clock"]',
}
OUTSIDE = """(selectors) => {
  const outside = [];
  for (const [what, selector] of Object.entries(selectors)) {
    const found = [...document.querySelectorAll(selector)];
    if (!found.length) outside.push(`${what}: missing`);
    for (const el of found) {
      const r = el.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
        outside.push(`${what}: ${Math.round(r.left)},${Math.round(r.top)} to ` +
                     `${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
  }
  return outside;
}"""


@pytest.mark.parametrize("language", LOCALES)
def test_a_phone_shows_the_hand_pile_turn_and_clock_without_scrolling(
    site, browser: Browser, language: str
):
    table_id, viewer = table_in_play(4)  # the viewer is the player to move
    for width, height in PHONES:
        context = browser.new_context(
            locale=LOCALES[language], viewport={"width": width, "height": height}
        )
        page = context.new_page()
        log_in_any_language(page, site.url, viewer)
        page.goto(f"{site.url}/tables/{table_id}/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#conn-state.on")).to_have_count(1)
        expect(page.locator(".player.me")).to_have_count(1)
        assert page.evaluate("window.scrollY") == 0
        assert page.evaluate(OUTSIDE, MUST_SEE) == [], (width, height, language)
        # The header's links wait behind the menu button, a tap away.
        expect(page.locator("#site-nav")).to_be_hidden()
        page.locator("[data-menu-toggle]").click()
        expect(page.locator("#site-nav")).to_be_visible()
        expect(page.locator("[data-menu-toggle]")).to_have_attribute("aria-expanded", "true")
        context.close()


def test_one_tab_and_enter_take_the_keyboard_to_the_hand(site, browser: Browser):
    table_id, viewer = table_in_play(4)
    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in_any_language(page, site.url, viewer)
    page.goto(f"{site.url}/tables/{table_id}/")
    expect(page.locator("#conn-state.on")).to_have_count(1)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to your hand"
    page.keyboard.press("Enter")
    # The focus is on the hand's tab stop: the first card that may be played.
    expect(page.locator('#my-hand .card-button.legal[tabindex="0"]')).to_be_focused()
    context.close()
