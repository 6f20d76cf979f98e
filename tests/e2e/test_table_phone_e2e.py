"""The table on a phone and for the keyboard (#40): the first screen holds what a player
needs to play, and one Tab reaches the hand."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect

from games.models import Hand
from tests.e2e.screenshots import table_in_play
from tests.e2e.test_fixes_e2e import log_in_any_language

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LOCALES = {"en": "en-GB", "pl": "pl-PL"}
PHONES = [(360, 740), (360, 640)]
# What a player must see to play, each as a selector: every card of his hand, the pile's
# top card, that it is his turn (the words and the mark on his box), his own clock.
MUST_SEE = {
    "hand": "#my-hand .hand-cards .card-button",
    "pile top": "#pile .pile-card:last-child",
    "your turn": '[data-testid="your-turn"]',
    "to-move mark": '.player.me [data-testid="to-move"]',
    "own clock": ".player.me .clock",
}
OUTSIDE = """(selectors) => {
  const outside = [];
  for (const [what, selector] of Object.entries(selectors)) {
    const found = [...document.querySelectorAll(selector)];
    if (!found.length) outside.push(`${what}: missing`);
    for (const el of found) {
      const r = el.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
        outside.push(`${what}: ${Math.round(r.left)},${Math.round(r.top)} to ` +
                     `${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
  }
  return outside;
}"""


@pytest.mark.parametrize("language", LOCALES)
def test_a_phone_shows_the_hand_pile_turn_and_clock_without_scrolling(
    site, browser: Browser, language: str
):
    table_id, viewer = table_in_play(4)  # the viewer is the player to move
    for width, height in PHONES:
        context = browser.new_context(
            locale=LOCALES[language], viewport={"width": width, "height": height}
        )
        page = context.new_page()
        log_in_any_language(page, site.url, viewer)
        page.goto(f"{site.url}/tables/{table_id}/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#conn-state.on")).to_have_count(1)
        expect(page.locator(".player.me")).to_have_count(1)
        assert page.evaluate("window.scrollY") == 0
        assert page.evaluate(OUTSIDE, MUST_SEE) == [], (width, height, language)
        # The header's links wait behind the menu button, a tap away; only the count of
        # games waiting for the player's move may stay, when there is one.
        folded = page.locator('#site-nav > :not([data-testid="nav-my-games"])')
        assert folded.count() > 3
        for link in folded.all():
            expect(link).to_be_hidden()
        page.locator("[data-menu-toggle]").click()
        expect(page.locator("#site-nav")).to_be_visible()
        expect(folded.first).to_be_visible()
        expect(page.locator("[data-menu-toggle]")).to_have_attribute("aria-expanded", "true")
        context.close()


def test_one_tab_and_enter_take_the_keyboard_to_the_hand(site, browser: Browser):
    table_id, viewer = table_in_play(4)
    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in_any_language(page, site.url, viewer)
    page.goto(f"{site.url}/tables/{table_id}/")
    expect(page.locator("#conn-state.on")).to_have_count(1)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to your hand"
    page.keyboard.press("Enter")
    # The focus is on the hand's tab stop: the first card that may be played, or the first
    # card when none may (the deal is random: the player may only be able to pick up).
    stop = page.locator('#my-hand .card-button[tabindex="0"]')
    expect(stop).to_be_focused()
    if page.locator("#my-hand .card-button.legal").count():
        expect(stop).to_have_class(re.compile(r"\blegal\b"))
    context.close()


# Every text the live region takes, with the hand's version the page shows at that moment.
RECORD_ANNOUNCEMENTS = """() => {
  window.__said = [];
  const region = document.getElementById("announcer");
  new MutationObserver(() => {
    const status = document.getElementById("table-status");
    window.__said.push([status.dataset.hand + "/" + status.dataset.version, region.textContent]);
  }).observe(region, {childList: true, characterData: true, subtree: true});
}"""


def test_the_live_region_says_each_bots_action_once_naming_its_seat(site, browser: Browser):
    from games import services
    from tests.factories import make_table

    table = make_table(players=1, seats=4, base_seconds=600, name="Three bots")
    for position in (1, 2, 3):
        services.table_add_bot(table_id=table.pk, by=table.owner, position=position, level="greedy")
    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in_any_language(page, site.url, table.owner.username)
    page.goto(f"{site.url}/tables/{table.pk}/")
    expect(page.locator("#conn-state.on")).to_have_count(1)
    page.evaluate(RECORD_ANNOUNCEMENTS)
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("your-turn")).to_be_visible()  # the bots moved up to him
    if page.locator("#pile .pile-card").count() <= 1:  # he holds the base card: he opens
        page.locator("button.card-button.legal").first.click()
        expect(page.get_by_test_id("your-turn")).to_have_count(0)
        expect(page.get_by_test_id("your-turn")).to_be_visible()
    expect(page.get_by_test_id("announcer")).to_have_text(re.compile(r"\. Your turn$"))
    said = page.evaluate("window.__said")
    texts = [text for _, text in said]
    # Each bot's box names its seat, and no two read alike.
    labels = page.locator("#players .player").evaluate_all(
        "boxes => boxes.map(b => b.getAttribute('aria-labelledby').split(' ')"
        ".map(id => document.getElementById(id).textContent).join(' '))"
    )
    assert len(set(labels)) == 4, labels
    for n in (2, 3, 4):
        pattern = rf"Bot: greedy \(seat {n}\), \d+ cards? in hand, no letters"
        assert any(re.match(pattern, label) for label in labels), labels
    # One update per action (or deal), each saying who did what, cards in words, and who
    # moves next, never "bot" twice.
    assert len({state for state, _ in said}) == len(said), said
    plays = [t for t in texts if re.match(r"Bot: greedy \(seat \d\) played ", t)]
    assert plays, texts
    for text in texts:
        assert not set("♠♥♦♣") & set(text), text
        assert "bot to move" not in text and "bot, bot" not in text, text
        assert text.endswith(("to move", "Your turn")), text
    assert any(
        re.fullmatch(
            r"Bot: greedy \(seat \d\) played (two|three|four|five|six|seven|eight|nine|ten|jack"
            r"|queen|king|ace) of (hearts|spades|diamonds|clubs)(, [a-z ]+)*\. "
            r"(Bot: greedy \(seat \d\) to move|Your turn)",
            text,
        )
        for text in plays
    ), plays
    context.close()


# The contrast of each rank of a card that may not be played now with the card's face, as
# the page paints them: the colours from the computed styles, each laid over the page's
# paper with the opacity of the card and its ancestors. Also whether the card is marked
# otherwise than by colour (its edge dashed).
DISABLED_CARDS = """() => {
  const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const luminance = c => {
    const [r, g, b] = c.map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const paper = rgb(getComputedStyle(document.documentElement).backgroundColor);
  const opacity = el => {
    let a = 1;
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      a *= parseFloat(getComputedStyle(node).opacity);
    }
    return a;
  };
  const over = (c, a) => c.map((v, i) => a * v + (1 - a) * paper[i]);
  const disabled = document.querySelectorAll('#my-hand .card-button[aria-disabled="true"]');
  return [...disabled].map(button => {
    const rect = button.querySelector("svg.card rect");
    const rank = button.querySelector("svg.card text.rank");
    const face = over(rgb(getComputedStyle(rect).fill), opacity(rect));
    const ink = over(rgb(getComputedStyle(rank).fill), opacity(rank));
    const [hi, lo] = [luminance(face), luminance(ink)].sort((x, y) => y - x);
    return {
      card: button.dataset.card,
      contrast: (hi + 0.05) / (lo + 0.05),
      dashed: getComputedStyle(rect).strokeDasharray !== "none",
    };
  });
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_card_that_may_not_be_played_stays_readable_and_is_marked(
    site, browser: Browser, theme: str
):
    table_id, mover = table_in_play(4)
    # A player waiting for his turn (none of his cards may be played now) who holds a red
    # card: the deal is random, and a hand of black cards alone would show no red rank.
    hand = Hand.objects.filter(match__table_id=table_id).order_by("-number").first()
    state = hand.engine_state
    names = {p.seat: p.user.username for p in hand.match.players.select_related("user")}
    viewer = next(
        names[seat]
        for seat in sorted(names)
        if names[seat] != mover and {card[-1] for card in state.hand(seat)} & {"H", "D"}
    )
    context = browser.new_context(
        locale="en-GB", viewport={"width": 1280, "height": 800}, color_scheme=theme
    )
    page = context.new_page()
    log_in_any_language(page, site.url, viewer)
    page.goto(f"{site.url}/tables/{table_id}/")
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    expect(page.locator("#conn-state.on")).to_have_count(1)
    cards = page.evaluate(DISABLED_CARDS)
    assert cards, "the viewer holds no card he may not play"
    low = [c for c in cards if c["contrast"] < 4.5]
    assert {c["card"][-1] for c in cards} & {"H", "D"}, cards  # red ranks among them
    assert not low, low
    assert all(c["dashed"] for c in cards), cards
    context.close()


# For each player's box, the words of its name that the browser split over two lines.
SPLIT_WORDS = """boxes => boxes.flatMap(name => {
  const split = [];
  const texts = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
  for (let text = texts.nextNode(); text; text = texts.nextNode()) {
    for (const m of text.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) split.push(m[0]);
    }
  }
  return split;
})"""


@pytest.mark.parametrize("locale", ["pl-PL", "en-GB"])
def test_a_bots_name_breaks_between_words_on_a_phone(site, browser: Browser, locale: str):
    """Three bots of one level at a table of four, watched at 360 px: the side seats'
    names ('Bot: zachłanny (miejsce 2)') wrap between words, never inside one."""
    from games import services
    from tests.factories import make_table

    table = make_table(players=1, seats=4, base_seconds=600, name="Three bots")
    for position in (1, 2, 3):
        services.table_add_bot(table_id=table.pk, by=table.owner, position=position, level="greedy")
    services.match_start(table_id=table.pk, by=table.owner)
    context = browser.new_context(locale=locale, viewport={"width": 360, "height": 640})
    page = context.new_page()
    page.goto(f"{site.url}/tables/{table.pk}/")
    expect(page.locator("#conn-state.on")).to_have_count(1)
    names = page.locator("#players .player .player-name")
    expect(names).to_have_count(4)
    assert names.evaluate_all(SPLIT_WORDS) == []
    context.close()


def long_hand_table() -> tuple[int, str]:
    """A table of two in play where the player to move holds 18 cards or more: he has
    picked up whenever he could. Returns the table's id and his name."""
    from games.engine import PickUp, move_to_json
    from games.models import Hand
    from tests.factories import first_hand, make_table, seated_users

    table = make_table(players=2, base_seconds=3600, name="Long hand")
    keeper = seated_users(table)[1]
    hand = first_hand(table, now=None)
    by_seat = {p.seat: p.user for p in hand.match.players.all()}
    for _ in range(400):
        state = hand.engine_state
        to_move = by_seat[state.to_move]
        if to_move == keeper and len(state.hand(state.to_move)) >= 18:
            return table.pk, keeper.username
        moves = state.legal_moves()
        pick_ups = [m for m in moves if isinstance(m, PickUp)]
        move = pick_ups[0] if to_move == keeper and pick_ups else moves[0]
        services_execute(hand, move_to_json(move), to_move)
        hand = Hand.objects.get(pk=hand.pk)
    raise AssertionError("no long hand after 400 moves")


def services_execute(hand, move: dict, user) -> None:
    from games import services

    services.execute(services.move_action(move, hand_id=hand.pk, version=hand.version, user=user))


def test_on_a_phone_each_card_of_a_long_hand_takes_the_click_where_it_shows(site, browser: Browser):
    """A hand of 18 cards or more overlaps in one row: the middle of each card's button
    (where a click lands) shows that card, and a click there plays it."""
    table_id, keeper = long_hand_table()
    context = browser.new_context(locale="en-GB", viewport={"width": 360, "height": 740})
    page = context.new_page()
    log_in_any_language(page, site.url, keeper)
    page.goto(f"{site.url}/tables/{table_id}/")
    expect(page.locator("#conn-state.on")).to_have_count(1)
    hit = page.locator("#my-hand .card-button").evaluate_all(
        """buttons => buttons.map(b => {
          const r = b.getBoundingClientRect();
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return [b.dataset.card, top && top.closest('.card-button') === b, Math.round(r.width)];
        })"""
    )
    assert len(hit) >= 18, hit
    # Cards lowered (may not be played) and not (may) alike: each lies under the next.
    assert [card for card, mine, _ in hit if not mine] == [], hit
    # Each card shows at least a finger's edge, and the row fits the screen.
    assert min(width for _, _, width in hit[:-1]) >= 8, hit
    assert page.evaluate(OUTSIDE, {"hand": MUST_SEE["hand"]}) == []
    legal = page.locator("#my-hand button.card-button.legal")
    if legal.count():
        card = legal.last.get_attribute("data-card")
        legal.last.click()
        expect(page.locator(f'#my-hand [data-card="{card}"]')).to_have_count(0)
    context.close()
