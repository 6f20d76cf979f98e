"""Quick pairing in the browser: two players pressing "Play now" with the same settings
land at one table, its match started."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from games.models import Hand, Seat, Table
from pairing.models import Seek
from tests.e2e.pages import log_in, new_page
from tests.factories import make_table, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def press_play_now(page: Page, *, time_control: str, size: str) -> None:
    # The panel's script is deferred: pressed before it ran, the form posts as a plain
    # GET to the lobby (as for a reader with scripts off).
    page.wait_for_load_state("load")
    panel = page.get_by_test_id("play-now")
    panel.locator("select[name=time_control]").select_option(time_control)
    panel.locator("select[name=size]").select_option(size)
    page.get_by_test_id("play-now-button").click()
    expect(page.get_by_test_id("play-now-status")).to_be_visible()


def test_two_players_pressing_play_now_with_the_same_settings_land_at_one_table(
    site, browser: Browser
):
    make_user("ola")
    make_user("janek")
    ola_ctx, ola = new_page(browser)
    log_in(ola, site.url, "ola")
    press_play_now(ola, time_control="5+3", size="2")
    expect(ola.get_by_test_id("play-now-count")).to_have_text("1 player waits for this table.")

    janek_ctx, janek = new_page(browser)
    log_in(janek, site.url, "janek")
    press_play_now(janek, time_control="5+3", size="2")

    table_url = re.compile(r"/tables/\d+/$")
    expect(ola).to_have_url(table_url)
    expect(janek).to_have_url(table_url)
    assert ola.url == janek.url
    table = Table.objects.get()
    assert table.status == Table.Status.PLAYING
    assert (table.base_seconds, table.increment_seconds) == (300, 3)
    assert set(Seat.objects.values_list("user__username", flat=True)) == {"ola", "janek"}
    expect(janek.locator("#my-hand [data-card]").first).to_be_visible()
    for context in (ola_ctx, janek_ctx):
        context.close()


def test_cancel_ends_the_seek_and_a_refusal_is_shown_by_the_panel(site, browser: Browser):
    ola = make_user("ola")
    context, page = new_page(browser)
    log_in(page, site.url, "ola")
    press_play_now(page, time_control="1+0", size="any")
    expect(page.get_by_test_id("play-now-count")).to_have_text("1 player waits for this table.")
    page.get_by_test_id("play-now-cancel").click()
    expect(page.get_by_test_id("play-now-button")).to_be_visible()
    expect(page.get_by_test_id("play-now-status")).to_be_hidden()
    assert not Seek.objects.exists()

    table = make_table(owner=ola, players=1)  # seated at an open table of his own
    page.get_by_test_id("play-now-button").click()
    expect(page.get_by_test_id("play-now-message")).to_have_text(
        "You have a seat at another table; leave it first. Go to your table"
    )
    expect(page.get_by_test_id("play-now-button")).to_be_visible()
    page.get_by_test_id("play-now-table").click()  # the refusal links to that table
    expect(page).to_have_url(f"{site.url}{table.get_absolute_url()}")
    context.close()


def test_a_seeker_fills_the_table_with_bots_after_his_wait_and_is_dealt_his_cards(
    site, browser: Browser
):
    """The browser tests' server offers a wait of a second (PAIRING_WAITS, tests/e2e/
    conftest.py): the bots are offered once it is over, with no minute slept on."""
    make_user("ola")
    context, page = new_page(browser)
    log_in(page, site.url, "ola")
    panel = page.get_by_test_id("play-now")
    panel.locator("select[name=wait]").select_option("1")
    press_play_now(page, time_control="5+3", size="3")
    fill = page.get_by_test_id("play-now-bots")
    expect(fill).to_be_visible()  # offered once the wait is over
    panel.locator("select[name=level]").select_option("greedy")
    fill.click()

    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    expect(page.get_by_test_id("player")).to_have_count(3)
    table = Table.objects.get()
    assert table.status == Table.Status.PLAYING
    assert page.url.endswith(table.get_absolute_url())
    seats = list(table.seats.order_by("position").values_list("user__username", "bot_level"))
    assert seats == [("ola", ""), (None, "greedy"), (None, "greedy")]
    hand = Hand.objects.get(match__table=table)
    ola_seat = hand.match.players.get(user__username="ola").seat
    dealt = hand.engine_state.hand(ola_seat)
    expect(page.locator("#my-hand [data-card]")).to_have_count(len(dealt))
    assert dealt
    assert not Seek.objects.exists()
    context.close()
