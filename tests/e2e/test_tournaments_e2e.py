"""A player registers in the browser, the tournament starts, his page follows him to his
table by itself, and a spectator's tournament page updates live when someone is out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import log_in, new_page
from tests.factories import make_user
from tests.tournaments.helpers import make_staff, make_tournament
from tournaments.models import TournamentEntry

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def live(page: Page) -> None:
    """Wait until the page's websocket is open (events before that would be missed)."""
    expect(page.locator(".tournament-page[data-ws=open]")).to_have_count(1)


def test_a_player_registers_his_page_follows_him_and_the_standings_update_live(site, browser):
    staff = make_staff("staff_e2e")
    make_user("ola_e2e")
    tournament = make_tournament(
        by=staff,
        name="Browser cup",
        bots=3,
        seats_per_table=4,
        max_actions=30,
        base_seconds=5,
        increment_seconds=0,
        seconds_between_hands=1.0,
    )
    url = f"{site.url}/tournaments/{tournament.pk}/"

    ola_ctx, ola = new_page(browser)
    log_in(ola, site.url, "ola_e2e")
    ola.goto(url)
    expect(ola.get_by_text("How the tournament works")).to_be_visible()
    ola.get_by_test_id("register").click()
    expect(ola.get_by_text("You are registered. Good luck!")).to_be_visible()
    expect(ola.get_by_test_id("registrants")).to_contain_text("ola_e2e")

    watcher_ctx, watcher = new_page(browser)
    watcher.goto(url)
    expect(watcher.get_by_test_id("registrants").locator("li")).to_have_count(4)
    for page in (ola, watcher):
        live(page)
    watcher.evaluate("window.notReloaded = true")

    # Everyone carries P-A already: the first loser at the table is out. The staff starts
    # the tournament now from its page.
    tournament.entries.update(letters=2)
    staff_ctx, staff_page = new_page(browser)
    log_in(staff_page, site.url, staff.username)
    staff_page.goto(url)
    staff_page.get_by_test_id("start-now").click()
    expect(staff_page.get_by_text("The tournament has started.")).to_be_visible()

    # Ola's page takes her to her table by itself, where her cards are dealt.
    table_id = TournamentEntry.objects.get(user__username="ola_e2e").table.table_id
    expect(ola).to_have_url(re.compile(rf"/tables/{table_id}/$"))
    expect(ola.get_by_test_id("my-hand")).to_be_visible()

    # The spectator's page turned into standings and follows the play without a reload.
    expect(watcher.get_by_test_id("standing-in")).to_have_count(4)
    expect(watcher.get_by_test_id("tournament-table")).to_have_count(1)
    expect(watcher.get_by_test_id("standing-out")).to_have_count(1, timeout=60_000)
    expect(watcher.get_by_test_id("standing-in")).to_have_count(3)
    out = watcher.get_by_test_id("standing-out").first
    expect(out).to_contain_text("4.")
    assert watcher.evaluate("window.notReloaded") is True

    staff_page.goto(url)
    staff_page.get_by_test_id("cancel").click()
    expect(staff_page.get_by_test_id("status")).to_have_text("cancelled")
    for ctx in (ola_ctx, watcher_ctx, staff_ctx):
        ctx.close()


def test_the_forms_of_a_live_updated_page_still_post(site, browser):
    """Each form is used only after the page was updated live by another person's action."""
    staff = make_staff("staff_forms_e2e")
    make_user("ola_forms_e2e")
    tournament = make_tournament(by=staff, bots=2, name="Live forms cup")
    url = f"{site.url}/tournaments/{tournament.pk}/"
    staff_ctx, staff_page = new_page(browser)
    log_in(staff_page, site.url, staff.username)
    ola_ctx, ola = new_page(browser)
    log_in(ola, site.url, "ola_forms_e2e")
    for page in (staff_page, ola):
        page.goto(url)
        live(page)

    def registrants(page: Page, count: int) -> None:
        expect(page.get_by_test_id("registrants").locator("li")).to_have_count(count)

    staff_page.get_by_test_id("add-bot").click()  # the staff page's own, as loaded
    registrants(ola, 3)
    ola.get_by_test_id("register").click()
    expect(ola.get_by_text("You are registered. Good luck!")).to_be_visible()
    live(ola)
    registrants(staff_page, 4)
    staff_page.get_by_test_id("add-bot").click()  # after the live update
    expect(staff_page.get_by_text("A bot is registered.")).to_be_visible()
    live(staff_page)
    registrants(ola, 5)
    ola.get_by_test_id("unregister").click()
    expect(ola.get_by_text("You have withdrawn from the tournament.")).to_be_visible()
    assert not TournamentEntry.objects.filter(user__username="ola_forms_e2e").exists()

    registrants(staff_page, 4)
    staff_page.get_by_test_id("start-now").click()
    expect(staff_page.get_by_text("The tournament has started.")).to_be_visible()
    expect(staff_page.get_by_test_id("status")).to_have_text("running")
    for ctx in (ola_ctx, staff_ctx):
        ctx.close()


def test_the_tournament_form_says_its_minimum_and_shows_the_error_for_fewer(site, browser):
    from tournaments.models import Tournament

    context, page = new_page(browser)
    log_in(page, site.url, make_staff("director_min").username)
    page.goto(f"{site.url}/tournaments/new/")
    expect(page.locator("#id_min_players_helptext")).to_contain_text("At least 3.")
    page.fill("input[name=name]", "Too small cup")
    page.fill("input[name=starts_at]", "2099-06-01T12:00")
    page.fill("input[name=min_players]", "2")
    page.get_by_role("button", name="Create the tournament").click()
    # The page's own error, not a tooltip of the browser's that stops the form unsent.
    expect(page.get_by_text("A tournament needs at least 3 players.")).to_be_visible()
    assert not Tournament.objects.filter(name="Too small cup").exists()
    context.close()
