"""Two players play a whole hand through the page; a spectator and the lobby watch."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from games import services
from games.engine import Rules
from tests.e2e.pages import log_in, new_page, pages_at_table, play_one_move, shown_state
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def hand_codes(page: Page) -> set[str]:
    return set(
        page.locator("#my-hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    )


def version(page: Page) -> int:
    return int(page.locator("#table-status").get_attribute("data-version"))


def test_two_players_play_a_hand_a_spectator_sees_no_cards_the_lobby_fills(site, browser: Browser):
    make_user("ola")
    make_user("janek")
    lobby_ctx, lobby = new_page(browser)
    lobby.goto(f"{site.url}/")
    expect(lobby.get_by_text("No open tables yet.")).to_be_visible()

    ola_ctx, ola = new_page(browser)
    log_in(ola, site.url, "ola")
    ola.get_by_test_id("create-table").click()
    ola.fill("input[name=name]", "Quick hand")
    ola.select_option("select[name=profile]", "custom")
    ola.select_option("select[name=seats]", "2")
    ola.locator("main summary").click()
    ola.fill("input[name=max_actions]", "10")
    ola.select_option("select[name=max_actions_result]", "most_cards")
    ola.get_by_role("button", name="Create the table").click()
    expect(ola.get_by_role("heading", name="Quick hand")).to_be_visible()
    table_url = ola.url
    expect(
        ola.get_by_text("After 10 actions the hand ends: the player holding most cards loses.")
    ).to_be_visible()

    # The lobby saw the table appear without a reload, with one seat of two taken.
    row = lobby.get_by_test_id("lobby-table").filter(has_text="Quick hand")
    expect(row.locator(".seat-dot.taken")).to_have_count(1)

    spectator_ctx, spectator = new_page(browser)
    spectator.goto(table_url)

    janek_ctx, janek = new_page(browser)
    log_in(janek, site.url, "janek")
    janek.goto(table_url)
    janek.get_by_test_id("sit").first.click()
    expect(row.locator(".seat-dot.taken")).to_have_count(2)

    rules = janek.locator("details.rules-summary")
    expect(rules).to_have_attribute("open", "")
    ola.get_by_test_id("start").click()
    expect(ola.get_by_test_id("my-hand")).to_be_visible()
    expect(janek.get_by_test_id("my-hand")).to_be_visible()
    # The rules fold away once the cards are dealt, so the hand fits on a phone.
    expect(rules).not_to_have_attribute("open", "")

    pages = {"ola": ola, "janek": janek}
    for _ in range(40):
        if ola.get_by_test_id("outcome").count():
            break
        mover = next((p for p in pages.values() if p.get_by_test_id("your-turn").count()), None)
        if mover is None:
            ola.wait_for_timeout(100)
            continue
        # The tab's title tells the player to move, and only him.
        (waiting,) = (p for p in pages.values() if p is not mover)
        expect(mover).to_have_title(re.compile(r"^▶ Your turn · "))
        expect(waiting).not_to_have_title(re.compile("^▶"))
        before = version(mover)
        legal = mover.locator("button.card-button.legal")
        if legal.count():
            legal.first.click()
        else:
            mover.get_by_test_id("pickup").first.click()
        expect(mover.locator("#table-status")).not_to_have_attribute("data-version", str(before))
        # The spectator shows no card that is in anybody's hand.
        secret = hand_codes(ola) | hand_codes(janek)
        shown = set(re.findall(r'data-card="([^"]+)"', spectator.content()))
        assert not (shown & secret), shown & secret

    for page in (ola, janek, spectator):
        expect(page.get_by_test_id("outcome")).to_be_visible()
    expect(spectator.locator("#my-hand [data-card]")).to_have_count(0)
    loser_letters = [t for t in spectator.get_by_test_id("letters").all_inner_texts() if t == "P"]
    assert len(loser_letters) == 1
    # The finished hand can be replayed, with its shuffle verifiable.
    ola.get_by_test_id("replay-link").click()
    expect(ola.get_by_text("SHA-256(salt:seed) equals the commitment")).to_be_visible()
    for ctx in (lobby_ctx, ola_ctx, spectator_ctx, janek_ctx):
        ctx.close()


def test_the_running_clock_ticks_and_a_timeout_shows_the_letter_on_both_pages(site, browser):
    ola, janek = make_user("ola2"), make_user("janek2")
    table = services.table_create(
        owner=ola, name="Clock", rules=Rules(), seats=2, base_seconds=6, increment_seconds=0
    )
    services.table_sit(table_id=table.pk, user=janek)
    contexts, pages = pages_at_table(browser, site.url, table.pk, [ola.username, janek.username])
    pages[0].get_by_test_id("start").click()
    running = pages[1].locator("#players .player > .to-move ~ .clock")
    expect(running).to_have_count(1)
    first = running.inner_text()
    pages[1].wait_for_timeout(1500)
    assert running.inner_text() != first  # it ticks in the browser
    for page in pages:
        expect(page.get_by_test_id("outcome")).to_contain_text("ran out of time", timeout=15_000)
        expect(page.get_by_test_id("letters").filter(has_text="P")).to_have_count(1)
    for ctx in contexts:
        ctx.close()


# The players' boxes as a page shows them, but for what moves by itself or differs by
# viewer: the clocks (they tick), the lags (read again now and then) and the viewer's mark.
BOXES = """() => Array.from(document.querySelectorAll("#players .player")).map((box) => {
    const copy = box.cloneNode(true);
    copy.querySelectorAll(".clock, .lag").forEach((el) => el.remove());
    copy.classList.remove("me");
    copy.removeAttribute("hx-swap-oob");
    return copy.outerHTML;
})"""


def clock_seconds(text: str) -> float:
    minutes, seconds = text.strip().split(":")
    return int(minutes) * 60 + int(seconds)


def test_a_move_redraws_only_the_boxes_it_changed_and_the_page_matches_a_reload(
    site, browser: Browser
):
    names = ["ola_box", "janek_box", "ewa_box"]
    ola, janek, ewa = (make_user(name) for name in names)
    table = services.table_create(owner=ola, name="Boxes", rules=Rules(), seats=3, base_seconds=600)
    for user in (janek, ewa):
        services.table_sit(table_id=table.pk, user=user)
    contexts, players = pages_at_table(browser, site.url, table.pk, names)
    spectator_ctx, spectator = new_page(browser)
    spectator.goto(f"{site.url}/tables/{table.pk}/")
    for page in (*players, spectator):
        expect(page.locator("#conn-state.on")).to_have_count(1)
    spectator.evaluate(
        """() => {
            window.sections = 0;
            window.boxesAlone = 0;
            document.addEventListener("htmx:wsAfterMessage", (event) => {
                const message = event.detail.message || "";
                if (message.includes('id="players"')) { window.sections += 1; }
                else if (/id="p\\d+-(label|count|clock)"/.test(message)) { window.boxesAlone += 1; }
            });
        }"""
    )
    players[0].get_by_test_id("start").click()
    expect(spectator.locator("#players .player > .to-move ~ .clock")).to_have_count(1)
    for _ in range(4):
        assert play_one_move(players)
    # A while later, one more move: the clock that starts shows its own time, counted
    # from when its box arrived (not from the message before, seconds ago).
    spectator.wait_for_timeout(3000)
    assert play_one_move(players)
    # Every page has the move (the mover's first: another player's may still be a
    # version behind when the mover's shows it).
    _hand, shown = shown_state([*players, spectator])
    running = spectator.locator("#players .player > .to-move ~ .clock")
    spectator.wait_for_timeout(500)
    remaining = int(running.get_attribute("data-ms")) / 1000
    # Shown in whole seconds, counted down since it arrived (a busy machine's half
    # second can be more).
    assert remaining - 3 <= clock_seconds(running.inner_text()) <= remaining
    # The moves after the first sent only the parts of the boxes they changed...
    assert spectator.evaluate("window.boxesAlone") >= 4
    # ...and the page shows every player as a reload does.
    fresh_ctx, fresh = new_page(browser)
    fresh.goto(f"{site.url}/tables/{table.pk}/")
    expect(fresh.locator("#table-status")).to_have_attribute("data-version", shown)
    assert spectator.evaluate(BOXES) == fresh.evaluate(BOXES)
    assert len(fresh.evaluate(BOXES)) == 3
    for ctx in (*contexts, spectator_ctx, fresh_ctx):
        ctx.close()


def watch_console(page: Page, who: str, errors: list[str]) -> None:
    """Note each error the page's console shows or its scripts raise, and every htmx
    event it reports (htmx logs a fragment with no target, htmx:oobErrorNoTarget, there)."""

    def note(message: ConsoleMessage) -> None:
        if message.type == "error" or "htmx:" in message.text:
            errors.append(f"{who}: {message.type} {message.text}")

    page.on("console", note)
    page.on("pageerror", lambda error: errors.append(f"{who}: {error}"))


def test_comings_and_goings_at_a_table_leave_no_error_on_its_pages(site, browser: Browser):
    """Players and spectators connect and leave before and during the match; a move, a
    chat message and the pings arrive: every fragment finds its place on every page."""
    ola, janek, kasia = make_user("ola4"), make_user("janek4"), make_user("kasia4")
    table = services.table_create(
        owner=ola, name="Comings", rules=Rules(), seats=2, base_seconds=600, increment_seconds=5
    )
    url = f"{site.url}{table.get_absolute_url()}"
    errors: list[str] = []
    contexts = []

    def open_table(who: str, *, username: str | None) -> Page:
        context, page = new_page(browser)
        contexts.append(context)
        watch_console(page, who, errors)
        if username is not None:
            log_in(page, site.url, username)
        page.goto(url)
        expect(page.locator("#conn-state.on")).to_have_count(1)
        return page

    ola_page = open_table("ola", username=ola.username)
    janek_page = open_table("janek", username=janek.username)  # a spectator, then seated
    kasia_page = open_table("kasia (spectator)", username=kasia.username)
    open_table("visitor", username=None)
    janek_page.get_by_test_id("sit").first.click()
    expect(ola_page.get_by_test_id("start")).to_be_enabled()
    ola_page.get_by_test_id("start").click()
    players = {"ola": ola_page, "janek": janek_page}
    for page in (*players.values(), kasia_page):
        expect(page.get_by_test_id("player")).to_have_count(2)

    kasia_page.context.close()  # the spectator leaves during the match and comes back
    kasia_page = open_table("kasia again", username=kasia.username)
    expect(kasia_page.get_by_test_id("player")).to_have_count(2)

    for page in players.values():
        expect(page.get_by_test_id("my-hand")).to_be_visible()  # the cards were dealt
    assert play_one_move(list(players.values()))
    for page in (*players.values(), kasia_page):
        expect(page.locator("#table-status")).to_have_attribute("data-version", "2")
    kasia_page.get_by_test_id("chat-input").fill("good luck")
    kasia_page.get_by_test_id("chat-input").press("Enter")
    expect(ola_page.get_by_test_id("chat")).to_contain_text("good luck")

    janek_mark = ola_page.locator(f"#presence-u{janek.pk}")
    expect(janek_mark).to_have_class("presence on")
    janek_page.context.close()  # a player leaves, and his mark says so
    expect(janek_mark).to_have_class("presence")
    janek_page = open_table("janek again", username=janek.username)
    expect(janek_mark).to_have_class("presence on")

    assert errors == []
    for context in contexts:
        if context.pages:
            context.close()
