"""Challenges and follows in the browser: a challenge sent from one browser appears live
on the other's page, is accepted there, and both players land at one table; a decline
reaches the challenger's waiting page with its reason; the follow button swaps in place."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from games.models import Seat, Table
from social.models import Challenge, Follow
from tests.e2e.pages import log_in, new_page
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def watch_errors(page: Page, who: str, errors: list[str]) -> None:
    """Each error the console shows (htmx logs a fragment with no place to go there)."""

    def note(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"{who}: {message.text}")

    page.on("console", note)
    page.on("pageerror", lambda error: errors.append(f"{who}: {error}"))


def send_challenge(page: Page, base_url: str, username: str, **choices: str) -> None:
    page.goto(f"{base_url}/u/{username}/")
    page.get_by_test_id("challenge").click()
    form = page.get_by_test_id("challenge-form")
    for name, value in choices.items():
        form.locator(f"select[name={name}]").select_option(value)
    page.get_by_test_id("send-challenge").click()
    expect(page.get_by_test_id("challenge-waiting")).to_be_visible()


def test_a_challenge_from_one_browser_accepted_in_another_lands_both_at_one_table(
    site, browser: Browser
):
    make_user("ola")
    make_user("janek")
    errors: list[str] = []
    janek_ctx, janek = new_page(browser)
    watch_errors(janek, "janek", errors)
    log_in(janek, site.url, "janek")
    janek.goto(f"{site.url}/rules/")  # any page: the challenge comes to it
    expect(janek.locator("#me-socket[data-me-ws=open]")).to_have_count(1)

    ola_ctx, ola = new_page(browser)
    watch_errors(ola, "ola", errors)
    log_in(ola, site.url, "ola")
    send_challenge(ola, site.url, "janek", seats="2", profile="english", time_control="5+3")

    card = janek.get_by_test_id("incoming-challenge")
    expect(card).to_contain_text("ola challenges you")
    expect(card).to_contain_text("5+3")
    card.get_by_test_id("accept-challenge").click()

    table_url = re.compile(r"/tables/\d+/$")
    expect(janek).to_have_url(table_url)
    expect(ola).to_have_url(table_url)
    assert ola.url == janek.url
    table = Table.objects.get()
    assert table.status == Table.Status.PLAYING and table.profile == "english"
    assert (table.seats_count, table.base_seconds, table.increment_seconds) == (2, 300, 3)
    assert set(Seat.objects.values_list("user__username", flat=True)) == {"ola", "janek"}
    for page in (ola, janek):
        expect(page.locator("#my-hand [data-card]").first).to_be_visible()
        expect(page.locator("#conn-state.on")).to_have_count(1)
    assert Challenge.objects.get().status == Challenge.Status.ACCEPTED
    assert errors == []
    for context in (ola_ctx, janek_ctx):
        context.close()


def test_a_declined_challenge_shows_its_reason_on_the_waiting_page(site, browser: Browser):
    make_user("ola")
    make_user("janek")
    janek_ctx, janek = new_page(browser)
    log_in(janek, site.url, "janek")
    expect(janek.locator("#me-socket[data-me-ws=open]")).to_have_count(1)
    ola_ctx, ola = new_page(browser)
    log_in(ola, site.url, "ola")
    send_challenge(ola, site.url, "janek")

    card = janek.get_by_test_id("incoming-challenge")
    card.get_by_test_id("decline-reason").select_option("too_fast")
    card.get_by_test_id("decline-challenge").click()
    expect(janek.get_by_test_id("incoming-challenge")).to_have_count(0)
    status = ola.get_by_test_id("challenge-status")
    expect(status).to_have_attribute("data-status", "declined")
    expect(status).to_contain_text("too fast for me")
    for context in (ola_ctx, janek_ctx):
        context.close()


def test_the_follow_button_follows_in_place_and_the_friend_is_listed(site, browser: Browser):
    make_user("ola")
    make_user("janek")
    context, page = new_page(browser)
    log_in(page, site.url, "ola")
    page.goto(f"{site.url}/u/janek/")
    page.get_by_test_id("follow").click()
    expect(page.get_by_test_id("unfollow")).to_be_visible()
    assert Follow.objects.filter(follower__username="ola", followed__username="janek").exists()
    page.get_by_test_id("nav-friends").click()
    expect(page.get_by_test_id("friend")).to_have_attribute("data-username", "janek")
    context.close()
