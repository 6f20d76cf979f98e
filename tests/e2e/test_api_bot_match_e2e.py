"""A person plays a whole match in the browser against a bot account that the reference
client (``python -m pan_bot``) plays through the Bot API. The owner seats the account by
its name from a seats panel the table's socket has just redrawn: the form of a live
fragment still posts."""

from __future__ import annotations

import sys
import time

import pytest
from playwright.sync_api import Browser, Page, expect

from api import services as api_services
from api.models import Scope
from bench.processes import running, wait_for_log
from games.models import Action, Match, Table
from tests.e2e.pages import log_in, new_page
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MATCH_DEADLINE = 240.0  # seconds for the whole match, hands of at most ten actions

# Every notice the page ever shows (the #notice box is swapped whole, so watch the body).
WATCH_NOTICES = """
window.__notices = [];
new MutationObserver(() => {
    for (const el of document.querySelectorAll('[data-testid="notice"]')) {
        const text = el.textContent.trim();
        if (text && !window.__notices.includes(text)) window.__notices.push(text);
    }
}).observe(document.body, {childList: true, subtree: true, characterData: true});
"""


def create_short_table(page: Page, base_url: str, name: str) -> int:
    """The create-table form: two seats, hands ending after ten actions (most cards lose)."""
    page.goto(f"{base_url}/")
    page.get_by_test_id("create-table").click()
    page.fill("input[name=name]", name)
    page.select_option("select[name=profile]", "custom")
    page.select_option("select[name=seats]", "2")
    page.locator("main summary").click()
    page.fill("input[name=max_actions]", "10")
    page.select_option("select[name=max_actions_result]", "most_cards")
    page.get_by_role("button", name="Create the table").click()
    expect(page.get_by_role("heading", name=name)).to_be_visible()
    return int(page.locator("[data-table]").first.get_attribute("data-table"))


def play_my_turn(page: Page) -> None:
    """Play the first card that may be played, else pick up; wait until the page shows
    the table after the move."""
    status = page.locator("#table-status")
    before = [status.get_attribute("data-hand"), status.get_attribute("data-version")]
    legal = page.locator("#my-hand button.card-button.legal")
    pickup = page.get_by_test_id("pickup")
    if legal.count():
        legal.first.click()
    elif pickup.count():
        pickup.first.click()
    else:
        page.get_by_test_id("multi-move").first.click()
    page.wait_for_function(
        """([hand, version]) => {
            const s = document.getElementById("table-status");
            return s.dataset.hand !== hand || s.dataset.version !== version;
        }""",
        arg=before,
    )


def play_to_the_end(page: Page, deadline: float) -> int:
    """Move on each turn of the page's player until the match's ranking shows; returns
    the number of moves made. Fails once ``deadline`` (time.monotonic) has passed."""
    moves = 0
    while True:
        left_ms = (deadline - time.monotonic()) * 1000
        if left_ms <= 0:
            raise AssertionError(f"the match did not end in {MATCH_DEADLINE:.0f} s")
        page.wait_for_function(
            """() => document.querySelector('[data-testid="ranking"]')
                  || document.querySelector('[data-testid="your-turn"]')""",
            timeout=left_ms,
        )
        if page.get_by_test_id("ranking").count():
            return moves
        play_my_turn(page)
        moves += 1


def test_a_person_plays_a_match_against_a_bot_account_played_through_the_api(
    site, browser: Browser
):
    human = make_user("human_api_match")
    robot = make_user("robot_api_match", is_bot_account=True)
    token = api_services.token_create(owner=robot, name="e2e", scopes=[Scope.BOT_PLAY]).token

    log = site.var_dir / "pan_bot.log"
    client = [sys.executable, "-m", "pan_bot", "--url", site.url, "--token", token]
    client += ["--strategy", "greedy"]
    context, page = new_page(browser)
    with running(client, env=site.env, log=log) as bot:
        try:
            wait_for_log(log, "playing as robot_api_match", proc=bot)

            log_in(page, site.url, human.username)
            table_id = create_short_table(page, site.url, "Against the API")
            expect(page.locator("#conn-state.on")).to_have_count(1)
            page.evaluate(WATCH_NOTICES)

            # A live update first: a bot of the site sits in seat 2 and is removed again,
            # each change redrawing the seats panel through the table's socket.
            seat = page.locator('#seats [data-testid="seat"][data-position="1"]')
            page.evaluate(
                """document.querySelector('#seats [data-position="1"] form.add-bot-account')
                       .dataset.fromThePage = "1";"""
            )
            seat.get_by_test_id("add-bot").click()
            expect(seat.get_by_test_id("bot-account-name")).to_have_count(0)
            seat.get_by_role("button", name="remove").click()
            expect(seat.get_by_test_id("bot-account-name")).to_be_visible()
            # The form is now the one the socket delivered, not the page's own.
            expect(seat.locator("form.add-bot-account")).not_to_have_attribute(
                "data-from-the-page", "1"
            )

            seat.get_by_test_id("bot-account-name").fill("robot_api_match")
            seat.get_by_test_id("add-bot-account").click()
            expect(seat).to_contain_text("robot_api_match")
            expect(seat.get_by_test_id("bot-account")).to_have_text("bot")

            page.get_by_test_id("start").click()
            expect(page.get_by_test_id("my-hand")).to_be_visible()
            moves = play_to_the_end(page, time.monotonic() + MATCH_DEADLINE)

            expect(page.get_by_test_id("ranking")).to_contain_text("robot_api_match")
            assert moves > 0
            assert page.evaluate("window.__notices") == []
            expect(page.get_by_test_id("notice")).to_have_count(0)

            match = Match.objects.get(table_id=table_id)
            assert match.status == Match.Status.FINISHED
            assert Table.objects.get(pk=table_id).status != Table.Status.PLAYING
            players = {p.user_id: p for p in match.players.all()}
            assert set(players) == {human.pk, robot.pk}
            # The bot account moved by itself, through the API, in more than one hand.
            robot_actions = Action.objects.filter(hand__match=match, seat=players[robot.pk].seat)
            assert robot_actions.values("hand").distinct().count() >= 2
        except BaseException:
            print(f"--- pan_bot output ---\n{log.read_text(errors='replace')}")
            raise
        finally:
            context.close()
