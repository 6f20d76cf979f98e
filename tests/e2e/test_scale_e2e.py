"""Two daphne processes behind no proxy at all share one table through PostgreSQL and Redis."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from games import services
from games.engine import Rules
from tests.e2e.pages import log_in, new_page
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_players_on_two_server_processes_see_each_others_moves(
    site, second_server, browser: Browser
):
    ola = make_user("ola3")
    make_user("janek3")
    table = services.table_create(owner=ola, name="Two servers", rules=Rules(), seats=2)
    ola_ctx, ola_page = new_page(browser)
    log_in(ola_page, site.url, "ola3")
    ola_page.goto(f"{site.url}/tables/{table.pk}/")

    janek_ctx, janek_page = new_page(browser)
    log_in(janek_page, second_server, "janek3")
    janek_page.goto(f"{second_server}/tables/{table.pk}/")
    janek_page.get_by_test_id("sit").first.click()
    # Janek sat down on server 2; Ola's page, served by server 1, hears it.
    expect(ola_page.get_by_test_id("seat").filter(has_text="janek3")).to_have_count(1)
    ola_page.get_by_test_id("start").click()
    # Ola started on server 1; Janek's page on server 2 gets his own hand.
    expect(janek_page.get_by_test_id("my-hand")).to_be_visible()
    expect(janek_page.get_by_test_id("player")).to_have_count(2)
    for ctx in (ola_ctx, janek_ctx):
        ctx.close()
