"""A correspondence match in the browser over several days of injected time (the moves of
the days gone by are made through the services with ``now=``): My games lists the games
waiting for the player's move first, by deadline; the header's count follows each turn
live; the table marks what happened since his last visit; in Polish, at 360 px."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from games import services
from games.models import Hand
from tests.e2e.pages import log_in, new_page
from tests.factories import PASSWORD, act_first_legal, make_table, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DAY = timedelta(days=1)


def move_until(hand: Hand, username: str, now) -> Hand:
    """Moves at ``now`` on ``hand`` until ``username`` is to move; returns the hand."""
    while True:
        hand.refresh_from_db()
        player = hand.match.players.select_related("user").get(seat=hand.engine_state.to_move)
        if player.user.username == username:
            return hand
        act_first_legal(hand, now)


def test_a_correspondence_match_over_days_in_my_games_the_header_and_the_log(
    site, browser: Browser, site_channel_layer
):
    ola, janek = make_user("ola_corr"), make_user("janek_corr")
    # Three days per move; the first hands were dealt almost three days ago.
    t0 = timezone.now() - timedelta(days=2, hours=22)
    hands = {}
    for name in ("Sooner", "Later", "Hers"):
        table = make_table(ola, players=1, move_days=3, name=name)
        services.table_sit(table_id=table.pk, user=janek)
        services.match_start(table_id=table.pk, by=ola, now=t0)
        hands[name] = Hand.objects.get(match__table=table)
    # Each waits for a move that was made at the day it says (ola's first, then his).
    for name, day, last in (("Sooner", 0, "janek"), ("Later", 2, "janek"), ("Hers", 2, "ola")):
        first = "ola" if last == "janek" else "janek"
        hand = move_until(hands[name], f"{first}_corr", t0 + day * DAY)
        hands[name] = move_until(hand, f"{last}_corr", t0 + day * DAY + timedelta(hours=1))

    context = browser.new_context(locale="pl-PL", viewport={"width": 360, "height": 740})
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"{site.url}/accounts/login/")
    page.fill("input[name=login]", "janek_corr")
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    expect(page.get_by_test_id("nav-profile")).to_have_text("janek_corr")
    page.goto(f"{site.url}/games/")
    expect(page.locator("h1")).to_have_text("Moje partie")
    rows = page.get_by_test_id("my-game")
    expect(rows).to_have_count(3)
    order = [hands[name].match.table_id for name in ("Sooner", "Later", "Hers")]
    assert [int(rows.nth(i).get_attribute("data-table")) for i in range(3)] == order
    expect(rows.first).to_contain_text("Twój ruch")
    expect(rows.first).to_contain_text("3 dni na ruch")
    expect(rows.nth(2)).to_contain_text("ruch: ola_corr")
    count = page.get_by_test_id("my-games-count")
    expect(count).to_have_attribute("data-count", "2")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    # Day three: ola moves at her table; janek's header hears of it without a reload.
    page.evaluate("window.notReloaded = true")
    move_until(hands["Hers"], "janek_corr", timezone.now() - timedelta(hours=1))
    expect(count).to_have_attribute("data-count", "3")
    assert page.evaluate("window.notReloaded") is True

    # The table shows what happened since his last visit (he has not opened it yet).
    page.goto(f"{site.url}/tables/{hands['Sooner'].match.table_id}/")
    expect(page.get_by_test_id("unseen-action").first).to_contain_text("nowe od twojej")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # His move (by the keyboard: at 360 px the fanned cards cover each other) passes the
    # turn on: one game fewer waits for him.
    expect(page.get_by_test_id("your-turn")).to_be_visible()
    version = page.locator("#table-status").get_attribute("data-version")
    legal = page.locator("button.card-button.legal")
    (legal.first if legal.count() else page.get_by_test_id("pickup").first).press("Enter")
    expect(page.locator("#table-status")).not_to_have_attribute("data-version", version)
    expect(page.get_by_test_id("my-games-count")).to_have_attribute("data-count", "2")
    page.reload()
    expect(page.get_by_test_id("unseen-action")).to_have_count(0)
    context.close()

    # Ola's My games, in English: the game janek just answered waits for her first.
    ola_context, ola_page = new_page(browser)
    log_in(ola_page, site.url, "ola_corr")
    ola_page.goto(f"{site.url}/games/")
    first = ola_page.get_by_test_id("my-game").first
    expect(first).to_have_attribute("data-table", str(hands["Sooner"].match.table_id))
    expect(first).to_contain_text("Your move")
    ola_context.close()
