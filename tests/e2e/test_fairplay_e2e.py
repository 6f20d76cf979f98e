"""Fair play in the browser: a moderator marks an account for cheating from its page in
the admin, with a reason; the player it beat logs in and finds the rating given back on
his profile, in his language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from games.models import RatingChange
from tests.e2e.pages import log_in, new_page
from tests.factories import make_moderator, make_user
from tests.fairplay.test_marks import beaten

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REFUNDED = {
    "en": "+{points} refunded: games against an account marked for cheating",
    "pl": "+{points} zwrócone: partie z kontem oznaczonym za oszukiwanie",
}


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_moderator_marks_a_cheater_and_his_victim_sees_the_refund(
    site, browser: Browser, language: str
):
    make_moderator("warden")
    cheat = make_user("sharp")
    victim = make_user("ola", language=language)
    match = beaten(winner=cheat, loser=victim)
    change = RatingChange.objects.get(match=match, user=victim)
    points = round(24 * (change.mu_before - change.mu_after))
    assert points > 0

    warden_ctx, warden = new_page(browser)
    log_in(warden, site.url, "warden")
    warden.goto(f"{site.url}/admin/accounts/user/{cheat.pk}/change/")
    expect(warden.get_by_test_id("fairplay-marks")).to_contain_text("Not marked.")
    warden.get_by_test_id("user-action-fairplay_mark_users").click()
    expect(warden.locator("textarea[name=text]")).to_have_attribute("required", "")
    warden.fill("textarea[name=text]", "moves of an engine, game after game")
    warden.get_by_role("button", name="Confirm").click()
    expect(warden.get_by_text("1 account marked for cheating")).to_be_visible()
    warden.goto(f"{site.url}/admin/accounts/user/{cheat.pk}/change/")
    expect(warden.get_by_test_id("fairplay-marks")).to_contain_text(
        "moves of an engine, game after game"
    )
    expect(warden.get_by_test_id("user-action-fairplay_mark_users")).to_have_count(0)
    warden_ctx.close()

    victim_ctx, page = new_page(browser)
    log_in(page, site.url, "ola")
    page.goto(f"{site.url}/u/ola/")
    expect(page.get_by_test_id("rating-refunds")).to_contain_text(
        REFUNDED[language].format(points=points)
    )
    page.goto(f"{site.url}/u/sharp/")
    expect(page.get_by_test_id("fairplay-marked")).to_be_visible()
    victim_ctx.close()
