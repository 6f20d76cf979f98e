"""Boundaries a player crosses without reloading the page: the next hand, a rematch, and
a tournament table played to its end. Each page marks itself at the start; a reload
would drop the mark."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from games import services
from games.engine import Rules
from tests.e2e.pages import new_page, pages_at_table, play_one_move, shown_state
from tests.factories import make_user
from tests.tournaments.helpers import make_staff, make_tournament, started
from tournaments.models import Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SHORT_HANDS = Rules(max_actions=10, max_actions_result="most_cards")


def mark_not_reloaded(page: Page) -> None:
    page.evaluate("window.notReloaded = true")


def assert_not_reloaded(page: Page) -> None:
    assert page.evaluate("window.notReloaded") is True


def hand_id(page: Page) -> str:
    return page.locator("#table-status").get_attribute("data-hand")


def test_players_and_a_spectator_see_the_next_hand_and_a_rematch_without_a_reload(
    site, browser: Browser
):
    ola, janek = make_user("ola_b"), make_user("janek_b")
    table = services.table_create(
        owner=ola, name="Boundaries", rules=SHORT_HANDS, seats=2, base_seconds=600
    )
    services.table_sit(table_id=table.pk, user=janek)
    contexts, players = pages_at_table(browser, site.url, table.pk, [ola.username, janek.username])
    spectator_ctx, spectator = new_page(browser)
    spectator.goto(f"{site.url}/tables/{table.pk}/")
    everyone = [*players, spectator]
    for page in everyone:
        expect(page.locator("#conn-state.on")).to_have_count(1)
        mark_not_reloaded(page)

    players[0].get_by_test_id("start").click()
    hands_seen: set[str] = set()
    for _ in range(400):  # hands of at most ten actions until somebody has P-A-N
        if spectator.get_by_test_id("ranking").count():
            break
        hands_seen.add(shown_state(everyone)[0])
        if not play_one_move(players):
            spectator.wait_for_timeout(100)
    else:
        raise AssertionError("the match did not end")
    # Every hand reached every page as it was dealt: three or more, never a reload.
    assert len(hands_seen - {"0"}) >= 3, hands_seen
    for page in everyone:
        expect(page.get_by_test_id("ranking")).to_be_visible()

    last = hand_id(spectator)
    players[0].get_by_test_id("rematch").click()
    for page in everyone:
        expect(page.locator("#table-status")).not_to_have_attribute("data-hand", last)
        expect(page.get_by_test_id("ranking")).to_have_count(0)
    for page in players:
        expect(page.get_by_test_id("my-hand")).to_be_visible()
    # The rematch is playable from the page as it stands.
    version = spectator.locator("#table-status").get_attribute("data-version")
    assert play_one_move(players)
    expect(spectator.locator("#table-status")).not_to_have_attribute("data-version", version)
    for page in everyone:
        assert_not_reloaded(page)
    for ctx in (*contexts, spectator_ctx):
        ctx.close()


def test_a_spectator_follows_a_tournament_table_to_its_end_without_a_reload(site, browser: Browser):
    staff = make_staff("staff_boundary")
    tournament = make_tournament(
        by=staff,
        name="Bot cup",
        bots=3,
        seats_per_table=4,
        max_actions=12,
        base_seconds=30,
        increment_seconds=0,
        seconds_between_hands=1.0,
    )
    tournament = started(tournament, letters=2)
    table_id = tournament.tables.get().table_id
    ctx, spectator = new_page(browser)
    spectator.goto(f"{site.url}/tables/{table_id}/")
    expect(spectator.locator("#conn-state.on")).to_have_count(1)
    mark_not_reloaded(spectator)
    first = hand_id(spectator)
    # Each of three bots carries P-A: two lost hands end the tournament.
    expect(spectator.locator("#table-status")).not_to_have_attribute(
        "data-hand", first, timeout=60_000
    )
    expect(spectator.get_by_test_id("ranking")).to_be_visible(timeout=120_000)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert_not_reloaded(spectator)
    ctx.close()
