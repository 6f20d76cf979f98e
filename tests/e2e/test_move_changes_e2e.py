"""A move sends what changed (#51), in Chromium: four players' pages play thirty moves and
more, each move reaching every page as small changes htmx swaps in, and then each page
shows what the same player's page loaded afresh shows, byte for byte, in every part a
move changes (the running clock's time and the lags aside; the hand's tab stop where the
script puts it after a move, the first card that may be played)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from games import services
from tests.e2e.pages import pages_at_table, play_one_move, shown_state
from tests.factories import make_table, seated_users

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MOVES = 30

# The parts a move changes, as the page holds them: the running clock's time, the
# players' lags (measured: a page loaded later reads later ones) and their presence (a
# page opened or closed for the comparison changes it) left out, and the hand's
# tab stop where table-keys.js gives it after a move (a click moves it).
SHOWN = """() => ["status-line", "players", "pile", "action-log", "my-hand"].map(id => {
  const part = document.getElementById(id).cloneNode(true);
  part.querySelectorAll(".player > .to-move ~ .clock").forEach(clock => {
    clock.removeAttribute("data-ms");
    clock.textContent = "";
  });
  part.querySelectorAll(".lag").forEach(lag => {
    lag.removeAttribute("hidden");
    lag.textContent = "";
  });
  part.querySelectorAll(".presence").forEach(mark => {
    mark.className = "presence";
    mark.removeAttribute("title");
  });
  const cards = [...part.querySelectorAll(".card-button")];
  const stop = cards.filter(c => c.classList.contains("legal"))[0] || cards[0];
  cards.forEach(c => c.setAttribute("tabindex", c === stop ? "0" : "-1"));
  return part.outerHTML;
})"""


def shown(page: Page) -> list[str]:
    return page.evaluate(SHOWN)


def test_thirty_moves_of_changes_show_what_a_fresh_page_shows(site, browser: Browser):
    table = make_table(players=4, base_seconds=3600, name="Changes")
    services.match_start(table_id=table.pk, by=table.owner)
    names = [user.username for user in seated_users(table)]
    contexts, pages = pages_at_table(browser, site.url, table.pk, names)
    for page in pages:
        expect(page.locator("#conn-state.on")).to_have_count(1)
    moves = 0
    while moves < MOVES and play_one_move(pages):
        moves += 1
    assert moves == MOVES
    shown_state(pages)  # every page at the last move
    pages[0].wait_for_timeout(1200)  # the cards' flights end
    for context, page in zip(contexts, pages, strict=True):
        fresh = context.new_page()
        fresh.goto(page.url)
        expect(fresh.locator("#conn-state.on")).to_have_count(1)
        fresh.wait_for_timeout(500)  # the socket's first render, the whole table
        for part, drawn, again in zip(
            ("status", "players", "pile", "log", "hand"), shown(page), shown(fresh), strict=True
        ):
            assert drawn == again, part
        fresh.close()
    for context in contexts:
        context.close()
