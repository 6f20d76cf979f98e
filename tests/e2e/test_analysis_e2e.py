"""A player asks, on a finished hand's replay page, where he lost it: the page shows the
progress of the worker's analysis, then the decisive turn."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.models import HandAnalysis
from tests.e2e.pages import log_in
from tests.factories import make_user
from tests.games.test_analysis import finished_hand

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_analysis_page_of_a_finished_hand_shows_the_decisive_turn(site, page: Page):
    hand = finished_hand(make_user("ola"))
    while hand.outcome["loser"] is None:  # a tie: nobody lost it
        hand = finished_hand(make_user())
    loser = hand.match.players.get(seat=hand.outcome["loser"]).user
    log_in(page, site.url, loser.username)
    page.goto(f"{site.url}/hands/{hand.pk}/")

    panel = page.get_by_test_id("analysis")
    expect(panel).to_contain_text("Where did I lose this hand?")
    page.get_by_test_id("analyse").click()
    # The worker computes it; the panel polls itself and shows how far it is.
    expect(panel).to_have_attribute("data-status", "running")
    expect(page.get_by_test_id("analysis-progress")).to_be_visible()
    expect(panel).to_have_attribute("data-status", "done", timeout=90_000)

    result = HandAnalysis.objects.get(hand=hand, user=loser).result
    # He lost, so his chance of losing rose above his even share at some turn.
    assert result["decisive"] is not None
    step = result["decisions"][result["decisive"]]["step"] + 1
    expect(page.get_by_test_id("decisive")).to_contain_text(f"rose most at step {step}:")
    row = page.get_by_test_id("decisive-row")
    expect(row).to_have_attribute("data-step", str(step))
    expect(row).to_contain_text("decisive")
    expect(page.get_by_test_id("analysis-table").locator("tbody tr")).to_have_count(
        len(result["decisions"])
    )
    # Kept: the page opened again shows it at once, and asking again starts nothing.
    page.reload()
    expect(page.get_by_test_id("decisive")).to_contain_text(f"rose most at step {step}:")
    assert HandAnalysis.objects.filter(user=loser).count() == 1
