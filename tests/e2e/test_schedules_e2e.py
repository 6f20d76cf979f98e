"""A scheduled tournament, driven by a clock the test passes in (never by waiting for it):
the schedule's sweep creates the tournament, a player registers in the browser, the
reminder sweep a minute before the start puts a notice on his open page, and at the start
bots fill his table and his page takes him there."""

from __future__ import annotations

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.e2e.pages import log_in, new_page
from tests.factories import make_user
from tests.tournaments.helpers import make_staff
from tournaments import services
from tournaments.models import Tournament, TournamentEntry, TournamentSchedule

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WARSAW = ZoneInfo("Europe/Warsaw")  # the schedule's zone (its default)


def test_a_scheduled_tournament_is_created_reminds_its_player_and_starts_on_time(
    site, browser, site_channel_layer
):
    real_now = timezone.now()
    # Today's (or tomorrow's) occurrence, a few minutes ahead of the real clock, so that
    # registration is open in the browser and nothing but this test starts it.
    starts_at = (
        (real_now + timedelta(minutes=6)).astimezone(WARSAW).replace(second=0, microsecond=0)
    )
    services.schedule_save(
        schedule=TournamentSchedule(
            name="Nightly cup",
            time_of_day=starts_at.time(),
            time_control="1+0",
            max_actions=30,
            seconds_between_hands=1.0,
            fill_with_bots=True,
            bot_level="random",
        ),
        by=make_staff("scheduler_e2e"),
    )
    make_user("ola_sched")

    # The beat's sweep, run with a clock two hours before the start, creates it.
    created = services.schedule_create_due(now=starts_at - timedelta(hours=2))
    assert [t.starts_at for t in created] == [starts_at]
    tournament = created[0]
    assert tournament.status == Tournament.Status.SCHEDULED
    assert services.schedule_create_due(now=starts_at - timedelta(hours=1)) == []

    ctx, ola = new_page(browser)
    log_in(ola, site.url, "ola_sched")
    ola.goto(f"{site.url}/tournaments/")
    ola.get_by_role("link", name=tournament.name).click()
    ola.get_by_test_id("register").click()
    expect(ola.get_by_text("You are registered. Good luck!")).to_be_visible()
    expect(ola.locator(".tournament-page[data-ws=open]")).to_have_count(1)
    expect(ola.get_by_test_id("notice-reminder")).to_have_count(0)

    # A minute before the start the reminder sweep tells her, on the page she has open.
    assert services.tournament_remind_due(now=starts_at - timedelta(seconds=90)) == 0
    assert services.tournament_remind_due(now=starts_at - timedelta(seconds=60)) == 1
    reminder = ola.get_by_test_id("notice-reminder")
    expect(reminder).to_contain_text(f"The tournament {tournament.name} starts in a minute")
    # ...and on any page she opens until the start.
    other_ctx, other = new_page(browser)
    log_in(other, site.url, "ola_sched")
    other.goto(f"{site.url}/rules/")
    expect(other.get_by_test_id("notice-reminder")).to_be_visible()
    other_ctx.close()

    # At the start (the same clock, now at the start time) bots fill her table of four
    # and her page takes her to it, where her cards are dealt.
    services.tournament_start(tournament_id=tournament.pk, now=starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.entries.filter(user__isnull=True).count() == 3
    table_id = TournamentEntry.objects.get(user__username="ola_sched").table.table_id
    expect(ola).to_have_url(re.compile(rf"/tables/{table_id}/$"))
    expect(ola.get_by_test_id("my-hand")).to_be_visible()
    ctx.close()


def test_the_staff_create_a_recurring_tournament_on_the_tournaments_page(site, browser):
    """The staff's own form (not the admin): a mistake is shown and saves nothing; the
    schedule saved is listed with when it repeats and its next three starts."""
    make_staff("scheduler_page")
    ctx, page = new_page(browser)
    log_in(page, site.url, "scheduler_page")
    page.goto(f"{site.url}/tournaments/")
    page.get_by_test_id("create-schedule").click()
    page.get_by_label("Name").fill("Page cup")
    page.get_by_label("Local start time").fill("21:15")
    page.get_by_label("Time zone").fill("Mars/Olympus")
    page.get_by_test_id("save-schedule").click()
    expect(page.get_by_test_id("form-errors")).to_contain_text("Unknown time zone.")
    assert not TournamentSchedule.objects.filter(name="Page cup").exists()

    page.get_by_label("Time zone").fill("Europe/Warsaw")
    for day in ("Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday"):
        page.get_by_label(day, exact=True).uncheck()  # every day is ticked at first
    page.get_by_test_id("save-schedule").click()
    expect(page).to_have_url(f"{site.url}/tournaments/")
    row = page.get_by_test_id("schedule-row").filter(has_text="Page cup")
    expect(row.get_by_test_id("schedule-repeats")).to_have_text(
        "Every week on Monday and Friday at 9:15 p.m."
    )
    expect(row.get_by_test_id("schedule-next")).to_have_count(3)
    ctx.close()
