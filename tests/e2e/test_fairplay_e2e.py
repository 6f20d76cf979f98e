"""Fair play in the browser: a moderator marks an account for cheating, from its page in
the admin or from its case in the fair-play queue after looking at the evidence on the
replay, with a reason; the player it beat logs in and finds the rating given back on his
profile, in his language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from fairplay.models import FairPlayCase, FairPlayMoment
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


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_moderator_weighs_a_case_on_the_replay_marks_the_player_and_the_victim_is_refunded(
    site, browser: Browser, language: str
):
    make_moderator("warden")
    cheat = make_user("relay")
    victim = make_user("ola", language=language)
    match = beaten(winner=cheat, loser=victim)
    points = round(24 * _lost(match, victim))
    hand = match.hands.order_by("number").first()
    case = FairPlayCase.objects.create(
        user=cheat,
        chance=2e-9,
        signals={
            "tails": {
                "timing": {"value": 2.1, "above": 1.0, "chance": 1e-9, "count": 48},
                "assistance": {"value": 1.2, "above": 0.6, "chance": 0.3, "count": 48},
            }
        },
    )
    FairPlayMoment.objects.create(
        hand=hand, step=0, user=cheat, kind="assistance", weight=0.35,
        details={
            "seat": 0, "other_seat": None, "made": 0, "best": 0, "bot": 0,
            "moves": [{"move": {"type": "pickup", "count": 1}, "losses": [0.2, 0.8]},
                      {"move": {"type": "play", "cards": ["9H"]}, "losses": [0.55, 0.45]}],
        },
    )  # fmt: skip

    warden_ctx, warden = new_page(browser)
    log_in(warden, site.url, "warden")
    warden.goto(f"{site.url}/moderation/fair-play/")
    warden.get_by_role("link", name="relay").click()
    expect(warden.get_by_test_id("fairplay-signal").first).to_contain_text("Regular thinking times")
    expect(warden.get_by_test_id("fairplay-moment")).to_contain_text("pick up 1 card")
    # The evidence on the replay: the hand opens at the move weighed, then back to decide.
    warden.get_by_test_id("replay-link").click()
    expect(warden.locator("[data-frame='1']")).to_be_visible()
    expect(warden.get_by_test_id("replay")).to_contain_text("1.")
    warden.go_back()
    warden.get_by_label("Mark for cheating").check()
    warden.fill("textarea[name=reason]", "a program's moves, every few seconds")
    warden.get_by_role("button", name="Decide").click()
    expect(warden.get_by_text("The case is decided.")).to_be_visible()
    case.refresh_from_db()
    assert case.status == FairPlayCase.Status.MARKED and case.decided_by.username == "warden"
    warden_ctx.close()

    victim_ctx, page = new_page(browser)
    log_in(page, site.url, "ola")
    page.goto(f"{site.url}/u/ola/")
    expect(page.get_by_test_id("rating-refunds")).to_contain_text(
        REFUNDED[language].format(points=points)
    )
    victim_ctx.close()


def _lost(match, user) -> float:
    change = RatingChange.objects.get(match=match, user=user)
    return change.mu_before - change.mu_after
