"""A player asks, on a finished hand's replay page, where he lost it: the page shows the
progress of the analysis worker (on its queue of its own), then the decisive turn; a
click on a decision's row shows that step of the replay."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.models import HandAnalysis
from tests.e2e.pages import log_in
from tests.factories import make_user
from tests.games.test_analysis import decisive_step, finished_hand

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
    # The analysis worker computes it; the panel polls itself and shows how far it is.
    expect(panel).to_have_attribute("data-status", re.compile("queued|running"))
    expect(page.get_by_test_id("analysis-progress")).to_be_visible()
    expect(panel).to_have_attribute("data-status", "done", timeout=90_000)

    result = HandAnalysis.objects.get(hand=hand, user=loser).result
    rows = page.get_by_test_id("analysis-table").locator("tbody tr")
    expect(rows).to_have_count(len(result["decisions"]))
    step = decisive_step(result)
    if step is not None:
        expect(page.get_by_test_id("decisive")).to_contain_text(f"rose most at step {step}:")
        row = page.get_by_test_id("decisive-row")
        expect(row).to_have_attribute("data-replay-step", str(step))
        expect(row).to_contain_text("decisive")
    else:  # his chance never rose by a whole point from one of his turns to the next
        expect(page.get_by_test_id("decisive")).to_contain_text("never rose")
    # A click on a row shows that step of the replay, however often, wherever it was
    # (the panel came by htmx, after the page's scripts ran).
    frames = len(hand.actions.all()) + 1
    clicked = result["decisions"][-1]["step"] + 1
    for _ in range(2):
        rows.last.click()
        shows_step(page, clicked, frames)
    page.locator(".replay-controls [data-step='-1']").click()
    shows_step(page, clicked - 1, frames)
    # Kept: the page opened again shows it at once, and asking again starts nothing.
    page.reload()
    if step is not None:
        expect(page.get_by_test_id("decisive")).to_contain_text(f"rose most at step {step}:")
    first = result["decisions"][0]["step"] + 1
    for _ in range(2):
        rows.first.click()
        shows_step(page, first, frames)
    assert HandAnalysis.objects.filter(user=loser).count() == 1


def shows_step(page: Page, step: int, frames: int) -> None:
    """The replay shows the position after ``step`` (its frame ``step``) and only it."""
    expect(page.locator(".replay-position")).to_have_text(f"{step} / {frames - 1}")
    shown = page.locator(".replay-frame:visible")
    expect(shown).to_have_count(1)
    expect(shown).to_have_attribute("data-frame", str(step))
