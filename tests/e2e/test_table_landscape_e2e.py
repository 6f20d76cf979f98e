"""The table on a phone held sideways (#52), about 740 × 360: the hand, the pile, the turn
and the player's clock are on the first screen, as they are upright."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.screenshots import table_in_play
from tests.e2e.test_fixes_e2e import log_in_any_language
from tests.e2e.test_table_phone_e2e import LOCALES, MUST_SEE, OUTSIDE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LANDSCAPES = [(740, 360), (640, 360), (844, 390)]


@pytest.mark.parametrize("language", LOCALES)
def test_a_phone_held_sideways_shows_the_hand_pile_turn_and_clock_without_scrolling(
    site, browser: Browser, language: str
):
    table_id, viewer = table_in_play(4)  # the viewer is the player to move
    for width, height in LANDSCAPES:
        context = browser.new_context(
            locale=LOCALES[language],
            viewport={"width": width, "height": height},
            is_mobile=True,
            has_touch=True,
        )
        page = context.new_page()
        log_in_any_language(page, site.url, viewer)
        page.goto(f"{site.url}/tables/{table_id}/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#conn-state.on")).to_have_count(1)
        expect(page.locator(".player.me")).to_have_count(1)
        assert page.evaluate("window.scrollY") == 0
        outside = page.evaluate(OUTSIDE, MUST_SEE)
        if outside:
            page.screenshot(path=str(site.var_dir / f"landscape-{language}-{width}.png"))
        assert outside == [], (width, height, language)
        # Nothing is cut off sideways: the page is no wider than the screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        context.close()
