"""Pan TV in the browser: of two live tables it shows the better rated one, its moves
arrive live, and when its match ends the page moves on to the other table; the lobby's
small TV follows."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from games import selectors, services
from moderation import services as moderation
from tests.e2e.pages import new_page
from tests.e2e.test_tables_e2e import watch_console
from tests.factories import make_moderator, seated_users
from tests.games.test_tv import live_table, open_the_pile

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_tv_shows_the_best_table_live_and_moves_on_when_its_match_ends(
    site, browser: Browser, site_channel_layer
):
    strong = live_table(1900, 1800, name="Strong table")
    weak = live_table(1500, 1400, name="Weak table")

    lobby_ctx, lobby = new_page(browser)
    lobby.goto(f"{site.url}/")
    expect(lobby.get_by_test_id("lobby-tv")).to_have_attribute("data-table", str(strong.pk))

    errors: list[str] = []
    tv_ctx, tv = new_page(browser)
    watch_console(tv, "tv", errors)
    tv.clock.install()  # the pause before moving on passes when the test moves the clock
    tv.goto(f"{site.url}/tv/")
    link = tv.get_by_test_id("tv-table-link")
    expect(link).to_have_attribute("href", strong.get_absolute_url())
    expect(tv.get_by_test_id("tv-players")).to_contain_text("1900")
    expect(tv.locator("#conn-state")).to_have_class(re.compile(r"\bon\b"))
    expect(tv.locator("#pile [data-card]")).to_have_count(0)

    # A move at the table reaches the TV without a reload.
    tv.evaluate("window.notReloaded = true")
    open_the_pile(strong)
    expect(tv.locator("#pile [data-card]")).to_have_count(1)
    expect(tv.get_by_test_id("action-log")).to_be_visible()
    assert tv.evaluate("window.notReloaded") is True
    # What the table's socket sends that the TV does not show finds its place, unseen.
    services.chat_post(table_id=strong.pk, user=seated_users(strong)[0], text="Hello TV")
    expect(tv.get_by_text("Hello TV")).to_be_attached()
    expect(tv.get_by_text("Hello TV")).not_to_be_visible()

    # The match ends (a moderator annuls it): the TV shows the end, then the next table.
    moderation.match_annul(
        by=make_moderator(), match_id=selectors.current_match(strong).pk, reason="TV test"
    )
    expect(tv.get_by_test_id("annulled")).to_be_visible()
    tv.clock.run_for(3_000)
    expect(link).to_have_attribute("href", strong.get_absolute_url())  # a pause to read it
    tv.clock.run_for(4_000)
    expect(link).to_have_attribute("href", weak.get_absolute_url())
    expect(tv.get_by_test_id("tv-players")).to_contain_text("1500")
    expect(lobby.get_by_test_id("lobby-tv")).to_have_attribute("data-table", str(weak.pk))

    # Keyboard: the table's link is reached with Tab.
    for _ in range(40):
        tv.keyboard.press("Tab")
        if tv.evaluate("document.activeElement.dataset.testid") == "tv-table-link":
            break
    else:
        raise AssertionError("the table's link is not reached with the keyboard")
    assert errors == []
    lobby_ctx.close()
    tv_ctx.close()


def test_with_nothing_live_the_tv_says_so_and_shows_the_first_match_that_starts(
    site, browser: Browser
):
    context, tv = new_page(browser)
    tv.clock.install()  # the half-minute check runs when the test moves the clock on
    tv.goto(f"{site.url}/tv/")
    expect(tv.get_by_test_id("tv-empty")).to_contain_text("No match is being played")
    expect(tv.get_by_test_id("tv-lobby")).to_have_attribute("href", "/")

    table = live_table(1500, 1500, name="First match")
    tv.clock.run_for(31_000)
    link = tv.get_by_test_id("tv-table-link")
    expect(link).to_have_attribute("href", table.get_absolute_url())

    # A better match starting elsewhere does not cut the one being watched.
    live_table(2000, 2000, name="Better match")
    tv.evaluate("window.notReloaded = true")
    with tv.expect_response(lambda response: "/tv/current/" in response.url):
        tv.clock.run_for(31_000)
    expect(link).to_have_attribute("href", table.get_absolute_url())
    assert tv.evaluate("window.notReloaded") is True
    context.close()


BULLET = {"base_seconds": 170, "increment_seconds": 0}  # bullet, and no clock runs out meanwhile


def test_a_channel_shows_its_speed_live_and_moves_on_within_it_at_both_widths(
    site, browser: Browser, site_channel_layer
):
    bullet = live_table(1700, 1700, name="Bullet table", **BULLET)
    next_bullet = live_table(1500, 1500, name="Next bullet", **BULLET)
    blitz = live_table(1900, 1900, name="Blitz table")  # the best of all, on the main channel

    errors: list[str] = []
    pages = []
    for width, locale, list_title in (
        (1280, "en-GB", "Live matches"),
        (360, "pl-PL", "Partie na żywo"),
    ):
        context = browser.new_context(locale=locale, viewport={"width": width, "height": 800})
        context.set_default_timeout(15_000)
        tv = context.new_page()
        watch_console(tv, locale, errors)
        tv.clock.install()  # the pause before moving on passes when the test moves the clock
        tv.goto(f"{site.url}/tv/")
        expect(tv.get_by_test_id("tv-table-link")).to_have_attribute(
            "href", blitz.get_absolute_url()
        )
        # The channel's tab, reached as any link is.
        tv.get_by_test_id("tv-channel").filter(has_text="Bullet").click()
        expect(tv).to_have_url(f"{site.url}/tv/bullet/")
        expect(tv.get_by_test_id("tv-channel").filter(has_text="Bullet")).to_have_attribute(
            "aria-current", "page"
        )
        expect(tv.get_by_test_id("tv-table-link")).to_have_attribute(
            "href", bullet.get_absolute_url()
        )
        expect(tv.locator("#conn-state")).to_have_class(re.compile(r"\bon\b"))
        # The list of every live match, the strongest first, each leading to its table.
        expect(tv.get_by_role("heading", name=list_title)).to_be_visible()
        listings = tv.get_by_test_id("tv-listing")
        expect(listings).to_have_count(3)
        shown = [listings.nth(i).get_attribute("data-table") for i in range(3)]
        assert shown == [str(blitz.pk), str(bullet.pk), str(next_bullet.pk)]
        assert tv.evaluate("document.documentElement.scrollWidth") <= width
        tv.evaluate("window.notReloaded = true")
        pages.append((context, tv))

    # A move at the channel's table reaches both pages without a reload.
    open_the_pile(bullet)
    for _context, tv in pages:
        expect(tv.locator("#pile [data-card]")).to_have_count(1)
        assert tv.evaluate("window.notReloaded") is True

    # Its match ends: each page moves on to the next table of its channel's speed, not to
    # the stronger match of another speed.
    moderation.match_annul(
        by=make_moderator(), match_id=selectors.current_match(bullet).pk, reason="TV test"
    )
    for _context, tv in pages:
        expect(tv.get_by_test_id("annulled")).to_be_visible()
        tv.clock.run_for(7_000)
    for context, tv in pages:
        expect(tv.get_by_test_id("tv-table-link")).to_have_attribute(
            "href", next_bullet.get_absolute_url()
        )
        expect(tv).to_have_url(f"{site.url}/tv/bullet/")
        context.close()
    assert errors == []
