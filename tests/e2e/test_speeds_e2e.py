"""The leaderboard's speed tabs in Polish on a phone 360 px wide: all five on screen,
nothing scrolls sideways, and the keyboard moves from one speed's ranking to another."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from games.models import Rating
from games.speeds import Speed
from tests.e2e.test_narrow_e2e import HEIGHT, LOCALES, WIDTH, offenders_of
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

POLISH_TABS = ["Bullet", "Blitz", "Szybkie", "Klasyczne", "Korespondencyjne"]


def test_the_speed_tabs_fit_a_phone_in_polish_and_work_from_the_keyboard(site, browser: Browser):
    fast = make_user("aleksander.wisniewski-kowalski")
    steady = make_user("katarzyna_nowak")
    Rating.objects.create(user=fast, speed=Speed.BULLET, mu=31.0, sigma=3.0, matches=40)
    Rating.objects.create(user=steady, speed=Speed.BLITZ, mu=28.0, sigma=3.0, matches=40)
    context = browser.new_context(locale=LOCALES["pl"], viewport={"width": WIDTH, "height": HEIGHT})
    context.set_default_timeout(15_000)
    page = context.new_page()

    assert offenders_of(page, f"{site.url}/ratings/", "pl") == []
    tabs = page.get_by_test_id("speed-tab")
    expect(tabs).to_have_text(POLISH_TABS)
    expect(page.get_by_role("navigation", name="Tempa gry")).to_be_visible()
    for i in range(len(POLISH_TABS)):
        box = tabs.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH and box["height"] >= 24
    expect(page.locator('[data-testid="speed-tab"][aria-current="page"]')).to_have_text("Blitz")
    leaders = page.get_by_test_id("leader")
    expect(leaders).to_have_count(1)
    expect(leaders).to_contain_text(steady.username)

    # From the keyboard: Tab through the page to the bullet tab, Enter opens it.
    page.keyboard.press("Tab")
    for _ in range(40):
        if page.evaluate("() => document.activeElement.textContent") == "Bullet":
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{site.url}/ratings/?speed=bullet")
    expect(page.locator('[data-testid="speed-tab"][aria-current="page"]')).to_have_text("Bullet")
    expect(leaders).to_have_count(1)
    expect(leaders).to_contain_text(fast.username)
    assert offenders_of(page, f"{site.url}/ratings/?speed=bullet", "pl") == []
    context.close()
