"""A three-minute arena in the browser: two people (one in English at 1280 px, one in
Polish on a 360 px phone) and two bots. The phone shows its player's rank, points and
table on the first screen; he goes Berserk at his table and everyone sees it on his seat;
both watch the leaderboard move live without a reload, and the podium at the end."""

from __future__ import annotations

import contextlib
import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, BrowserContext, Page, expect

from games import services as games
from games.engine import move_to_json
from games.models import Hand
from tests.e2e.pages import play_one_move
from tests.factories import PASSWORD, make_user
from tests.tournaments.helpers import make_staff, make_tournament
from tournaments import services
from tournaments.models import ArenaGame, Format, Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def person_page(
    browser: Browser, base_url: str, username: str, *, locale: str, width: int, height: int
) -> tuple[BrowserContext, Page]:
    context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.press("input[name=password]", "Enter")
    expect(page.get_by_test_id("nav-profile")).to_have_text(username)
    return context, page


def live(page: Page) -> None:
    expect(page.locator(".tournament-page[data-ws=open]")).to_have_count(1)


def finish_for_the_people(game: ArenaGame, people: dict[int, object]) -> None:
    """The rest of the game: the people's moves made for them (the bots move on the
    worker), until the hand is over."""
    give_up = time.monotonic() + 90
    while time.monotonic() < give_up:
        hand = Hand.objects.get(match_id=game.match_id)
        if hand.is_over:
            return
        state = hand.engine_state
        mover = game.players.filter(seat=state.to_move).select_related("entry__user").first()
        user = mover.entry.user if mover is not None else None
        if user is not None and user.pk in people:
            with contextlib.suppress(games.Refused):  # a bot or the clock came first
                games.execute(
                    games.move_action(
                        move_to_json(state.legal_moves()[0]),
                        hand_id=hand.pk,
                        version=hand.version,
                        user=user,
                    )
                )
        time.sleep(0.2)
    raise AssertionError("the game did not end")


def test_two_people_and_bots_play_an_arena_one_goes_berserk_the_board_moves_live(
    site, browser, site_channel_layer
):
    staff = make_staff("arena_staff_e2e")
    ola = make_user("ola_arena_e2e")
    jan = make_user("jan_arena_e2e", language="pl")
    arena = make_tournament(
        by=staff,
        name="Browser arena",
        format=Format.ARENA,
        minutes=20,
        bots=2,
        users=[ola, jan],
        seats_per_table=4,
        seats_min=3,
        base_seconds=60,
        increment_seconds=0,
        max_actions=40,  # then the player holding the most cards loses: a short game
        seconds_between_hands=2.0,
    )
    services.tournament_start(tournament_id=arena.pk, by=staff)
    # A three-minute arena: its countdown ends three minutes after its start.
    Tournament.objects.filter(pk=arena.pk).update(ends_at=timezone.now() + timedelta(minutes=3))
    url = f"{site.url}/tournaments/{arena.pk}/"
    (game,) = ArenaGame.objects.filter(tournament=arena)

    ola_ctx, ola_page = person_page(
        browser, site.url, ola.username, locale="en-GB", width=1280, height=800
    )
    jan_ctx, jan_page = person_page(
        browser, site.url, jan.username, locale="pl-PL", width=360, height=740
    )
    for page in (ola_page, jan_page):
        page.goto(url)
        live(page)
    expect(ola_page.get_by_text("How the arena works")).to_be_visible()
    expect(jan_page.get_by_text("Jak działa arena")).to_be_visible()
    # On the phone his rank, his points and the button to his table are on the first screen.
    for testid in ("my-rank", "my-points", "my-table"):
        box = jan_page.get_by_test_id(testid).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 740, testid

    table_url = re.compile(rf"/tables/{game.link.table_id}/$")
    for page in (ola_page, jan_page):
        page.get_by_test_id("my-table").click()
        expect(page).to_have_url(table_url)
        expect(page.get_by_test_id("my-hand")).to_be_visible()

    # Jan goes Berserk before his first action, with the mouse; both see it on his seat.
    offer = jan_page.get_by_test_id("berserk")
    expect(offer).to_be_visible()
    box = offer.bounding_box()
    jan_page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(jan_page.get_by_test_id("berserk-offer")).to_have_count(0)
    for page in (ola_page, jan_page):
        expect(page.locator('#players [data-testid="berserk"]')).to_have_count(1)

    # They play a few moves at the table themselves.
    moved = 0
    for _ in range(40):
        if Hand.objects.get(match_id=game.match_id).is_over or moved >= 4:
            break
        moved += play_one_move([ola_page, jan_page])
        ola_page.wait_for_timeout(200)

    # Back on the arena's page; the countdown ends now, and the game is finished.
    for page in (ola_page, jan_page):
        page.goto(url)
        live(page)
        page.evaluate("window.notReloaded = true")
    Tournament.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
    finish_for_the_people(game, {ola.pk: ola, jan.pk: jan})

    # The leaderboard moves and the podium comes, without a reload, in both languages.
    for page in (ola_page, jan_page):
        expect(page.get_by_test_id("podium")).to_be_visible(timeout=60_000)
        expect(page.get_by_test_id("podium-place")).to_have_count(3)
        points = page.get_by_test_id("board-points").all_inner_texts()
        assert any(p.strip() not in ("0", "") for p in points), points
        assert page.evaluate("window.notReloaded") is True
    expect(jan_page.get_by_text("Podium")).to_be_visible()
    expect(jan_page.get_by_role("heading", name="Miejsca końcowe")).to_be_visible()
    for ctx in (ola_ctx, jan_ctx):
        ctx.close()
