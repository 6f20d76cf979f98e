"""Every page a user reaches fits a phone 360 px wide, in English and in Polish: the page
never scrolls sideways and no label is cut off.

One browser context per language visits them all and the failure names every offender
of every page, so one run shows the whole picture.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from accounts.models import User
from api import services as api_services
from games import services
from games.engine import Rules
from games.models import Hand, HandAnalysis, Rating
from games.speeds import Speed
from puzzles.services import puzzles_load
from tests.e2e.test_fixes_e2e import log_in_any_language
from tests.factories import make_user, play_to_pan_on_time
from tests.games.test_analysis import finished_hand
from tests.tournaments.helpers import make_tournament, started

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 360, 740
LOCALES = {"en": "en-GB", "pl": "pl-PL"}
# Names as long as people choose them (30 characters at most): the layout must hold them.
VIEWER = "katarzyna_nowak"
OTHERS = ["tomasz.lewandowski", "zbigniew_w", "aleksander.wisniewski-kowalski", "ola"]
# A token's name as long as its form allows, and one long word that fits a phone's line.
TOKEN_NAMES = ["mój program do gry w pana, wersja druga, poprawiona i lepsza", "pan-bot-katarzyny"]
ALL_SCOPES = ["bot:play", "board:play", "challenge:read", "challenge:write"]
# Deals per decision of the analysis made for the replay: its figures do not matter
# here, only the table it fills, so a few deals keep the test quick.
ANALYSIS_PLAYOUTS = 4

# The offenders of a page, each as {why, selector, text}: the page wider than the viewport;
# the outermost element past the viewport's edge (or past the page's margins), unless it
# is inside an element that scrolls by itself; an element that scrolls by itself sideways
# (a table cut at the phone's edge); an element whose own text is wider than its box, cut
# off (overflow hidden, an ellipsis: allowed only with a title that gives it whole) or
# spilling over its neighbours.
OFFENDERS = """() => {
  const width = window.innerWidth;
  const found = [];
  const describe = el => {
    const parts = [];
    for (let node = el; node && node !== document.body && parts.length < 4;
         node = node.parentElement) {
      let part = node.tagName.toLowerCase();
      if (node.id) { part += "#" + node.id; parts.unshift(part); break; }
      const test = node.getAttribute("data-testid");
      if (test) part += `[data-testid=${test}]`;
      part += [...node.classList].map(c => "." + c).join("");
      parts.unshift(part);
    }
    return parts.join(" > ");
  };
  const text = el => (el.innerText || el.value || "").trim().replace(/\\s+/g, " ").slice(0, 60);
  const scrollsItself = el => {
    for (let node = el.parentElement; node && node !== document.body;
         node = node.parentElement) {
      if (/auto|scroll/.test(getComputedStyle(node).overflowX)) return true;
    }
    return false;
  };
  const ownText = el => [...el.childNodes].some(
    n => n.nodeType === Node.TEXT_NODE && n.textContent.trim()
  ) || ((el.tagName === "INPUT" || el.tagName === "SELECT") && text(el));
  // What the page holds stays within its margins too (a control past a panel's edge).
  const main = document.querySelector("main");
  const margin = main
    ? main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight)
    : width;
  const page = document.documentElement.scrollWidth;
  if (page > width) {
    found.push({why: `the page is ${page} px wide`, selector: "html", text: ""});
  }
  for (const el of document.body.querySelectorAll("*")) {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "contents") continue;
    const box = el.getBoundingClientRect();
    // Drawn nowhere (closed, hidden) or hidden for screen readers only (1 px, clipped).
    if (box.width <= 1 || box.height <= 1 || style.clip !== "auto") continue;
    // Only the outermost element past the edge: what it holds goes with it.
    const edge = main && main.contains(el) ? margin : width;
    const over = node => node.getBoundingClientRect().right > edge + 0.5;
    if (over(el) && !over(el.parentElement) && !scrollsItself(el)) {
      found.push({
        why: `its right edge is at ${Math.round(box.right)} px, past ${Math.round(edge)} px`,
        selector: describe(el), text: text(el),
      });
    }
    if (/auto|scroll/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1) {
      found.push({
        why: `it scrolls sideways (${el.scrollWidth} px in ${el.clientWidth} px)`,
        selector: describe(el), text: text(el),
      });
    }
    // Text wider than its own box: cut off (overflow hidden, an ellipsis) or spilling
    // over its neighbours.
    const cuts = /hidden|clip/.test(style.overflowX) || style.textOverflow === "ellipsis";
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && ownText(el)
        && !(cuts && el.title) && !/auto|scroll/.test(style.overflowX)) {
      const how = cuts ? "is cut" : "spills over";
      found.push({
        why: `its text ${how} (${el.scrollWidth} px in ${el.clientWidth} px)`,
        selector: describe(el), text: text(el),
      });
    }
  }
  return found;
}"""


def analysed_replay(viewer: User) -> str:
    """The replay of a finished hand of ``viewer``'s with his analysis done."""
    hand = finished_hand(viewer)
    seat = hand.match.players.get(user=viewer).seat
    analysis = HandAnalysis.objects.create(
        hand=hand, seat=seat, user=viewer, playouts=ANALYSIS_PLAYOUTS, started_at=timezone.now()
    )
    assert services.analysis_run(analysis_id=analysis.pk)
    return hand.get_absolute_url()


def table_of(
    players: list[User], *, bots: int = 0, empty: int = 0, name: str, start: bool = False
) -> str:
    """A table owned by the first of ``players``, then ``bots`` and ``empty`` seats."""
    owner, *guests = players
    seats = len(players) + bots + empty
    table = services.table_create(
        owner=owner, name=name, rules=Rules(), seats=seats, base_seconds=600
    )
    for guest in guests:
        services.table_sit(table_id=table.pk, user=guest)
    for position in range(len(players), len(players) + bots):
        services.table_add_bot(table_id=table.pk, by=owner, position=position, level="greedy")
    if start:
        services.match_start(table_id=table.pk, by=owner)
    return table.get_absolute_url()


def the_pages() -> dict[str, str]:
    """Every page a signed-in user reaches, by name, with rows that fill them: his
    tables of three (with a bot) and of four before and during play, a finished match,
    an analysed replay, a tournament in play and one to come."""
    viewer = make_user(VIEWER)
    others = [make_user(name) for name in OTHERS]
    # Each owned by the one listed first: a user may create only a few tables at a time.
    finished = services.table_create(
        owner=others[0],
        name=f"{others[0].username}'s table",
        rules=Rules(),
        seats=2,
        base_seconds=60,
    )
    services.table_sit(table_id=finished.pk, user=viewer)
    play_to_pan_on_time(finished)
    cup = started(
        make_tournament(
            users=[viewer, *others], bots=1, name="Wiosenny puchar Pana — turniej otwarty"
        )
    )
    make_tournament(name="Sunday evening championship of the whole club", starts_in=86_400)
    cup_table = cup.tables.get(entries__user=viewer).table
    for name in TOKEN_NAMES:
        api_services.token_create(owner=viewer, name=name, scopes=ALL_SCOPES)
    puzzles_load()  # the demo set, as make run's seed loads it
    # Established players, so that the ranking lists them all.
    for mu, person in enumerate([viewer, *others], start=24):
        Rating.objects.update_or_create(
            user=person, speed=Speed.BLITZ, defaults={"mu": float(mu), "sigma": 2.0, "matches": 40}
        )
    return {
        "lobby": "/",
        "three waiting": table_of([viewer, others[0]], bots=1, name="Wieczór u Kasi"),
        "three playing": table_of([viewer, others[1]], bots=1, name="Gramy do rana", start=True),
        "four waiting": table_of([viewer, *others[:2]], empty=1, name="Stół na czterech"),
        "four playing": table_of([others[0], viewer, *others[1:3]], name="Czwórka", start=True),
        "finished table": finished.get_absolute_url(),
        "replay with analysis": analysed_replay(viewer),
        "profile": viewer.get_absolute_url(),
        "other's profile": others[0].get_absolute_url(),
        "ranking": "/ratings/",
        "tournaments": "/tournaments/",
        "tournament": cup.get_absolute_url(),
        "tournament table": cup_table.get_absolute_url(),
        "new table": "/tables/new/",
        "settings": "/account/settings/",
        # The viewer's finished match ended while he was away: a notice under the bell.
        "notifications": "/notifications/",
        "notification settings": "/notifications/settings/",
        "tokens": "/account/tokens/",
        "report": f"/reports/new/?user={others[0].pk}",
        "rules": "/rules/",
        "fairness": "/fairness/",
        "tv": "/tv/",
        "puzzles": "/puzzles/",
        "puzzle history": "/puzzles/history/",
        "puzzle streak": "/puzzles/streak/",
        "api docs": "/api/docs",
        "my games": "/games/",
    }


ANONYMOUS_PAGES = {
    "sign-up": "/accounts/signup/",
    "log-in": "/accounts/login/",
    "password reset": "/accounts/password/reset/",
    "lobby (signed out)": "/",
    "rules (signed out)": "/rules/",
    "tv (signed out)": "/tv/",
    "puzzles (signed out)": "/puzzles/",
    "puzzle streak (signed out)": "/puzzles/streak/",
    "learn (signed out)": "/learn/",
    "lesson (signed out)": "/learn/four-of-a-kind/",
}


def offenders_of(page: Page, url: str, language: str) -> list[dict[str, str]]:
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("lang", language)
    # A live page is measured once its socket is up: what it swaps in is drawn.
    if page.locator("#conn-state").count():
        expect(page.locator("#conn-state.on")).to_have_count(1)
    if page.locator("[data-ws]").count():
        expect(page.locator("[data-ws]")).to_have_attribute("data-ws", "open")
    # What folds away (the table's rules, the table form's options) is measured open.
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    return page.evaluate(OFFENDERS)


@pytest.mark.parametrize("language", list(LOCALES))
def test_no_page_scrolls_sideways_or_cuts_a_label_at_360_px(site, browser: Browser, language: str):
    pages = the_pages()
    context = browser.new_context(
        locale=LOCALES[language], viewport={"width": WIDTH, "height": HEIGHT}
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    faults: dict[str, list[dict[str, str]]] = {}
    for name, path in ANONYMOUS_PAGES.items():
        faults[name] = offenders_of(page, site.url + path, language)
    log_in_any_language(page, site.url, VIEWER)
    for name, path in pages.items():
        faults[name] = offenders_of(page, site.url + path, language)
    context.close()

    report = [
        f"{name}: {f['selector']} {f['text']!r}: {f['why']}"
        for name, found in faults.items()
        for f in found
    ]
    assert not report, f"{len(report)} offenders at {WIDTH} px ({language}):\n" + "\n".join(report)


def test_the_tokens_page_shows_a_token_whole_and_its_revoke_button_at_360_px_in_polish(
    site, browser: Browser
):
    viewer = make_user(VIEWER)
    for name in TOKEN_NAMES:
        api_services.token_create(owner=viewer, name=name, scopes=ALL_SCOPES)
    context = browser.new_context(locale=LOCALES["pl"], viewport={"width": WIDTH, "height": HEIGHT})
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in_any_language(page, site.url, VIEWER)

    assert offenders_of(page, f"{site.url}/account/tokens/", "pl") == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= WIDTH
    buttons = page.get_by_role("button", name="Unieważnij")
    expect(buttons).to_have_count(len(TOKEN_NAMES))
    for button in buttons.all():
        box = button.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, box
        assert button.evaluate("b => b.scrollWidth <= b.clientWidth"), "its label is cut"
    # A name that fits a line is drawn on one line, not broken inside its word.
    lines = (
        page.get_by_test_id("token")
        .filter(has_text=TOKEN_NAMES[1])
        .evaluate(
            """row => {
          const text = [...row.cells[0].childNodes].find(n => n.nodeType === Node.TEXT_NODE);
          const range = document.createRange();
          range.selectNodeContents(text);
          return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        }"""
        )
    )
    assert lines == 1
    context.close()


@pytest.mark.parametrize("language", list(LOCALES))
def test_a_table_page_folded_behind_its_menu_still_shows_the_bell_and_the_games_waiting(
    site, browser: Browser, language: str, site_channel_layer
):
    """(``site_channel_layer``: the moves made here clear what the site has cached of the
    viewer's counts, under an id an earlier test's user may have had.)"""
    from tests.e2e.test_correspondence_e2e import move_until
    from tests.factories import make_table

    viewer = make_user(f"oczekujacy_{language}")
    start = timezone.now() - timedelta(hours=1)
    for name in ("Pierwsza", "Druga"):
        owner = make_user()
        table = make_table(owner, players=1, move_days=3, name=name)
        services.table_sit(table_id=table.pk, user=viewer)
        services.match_start(table_id=table.pk, by=owner, now=start)
        move_until(Hand.objects.get(match__table=table), viewer.username, start)
    context = browser.new_context(
        locale=LOCALES[language], viewport={"width": WIDTH, "height": HEIGHT}
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in_any_language(page, site.url, viewer.username)
    page.goto(site.url + table.get_absolute_url())
    menu = page.locator("[data-menu-toggle]")
    expect(menu).to_be_visible()
    expect(page.locator("#site-nav a").first).to_be_hidden()  # the links are folded
    count, bell = page.get_by_test_id("my-games-count"), page.get_by_test_id("bell-count")
    expect(count).to_have_attribute("data-count", "2")
    expect(count).to_be_visible()
    expect(bell).to_have_text("2")  # a notice of each turn
    expect(bell).to_be_visible()
    boxes = [menu.bounding_box(), count.bounding_box(), bell.bounding_box()]
    assert all(b and b["y"] < 48 and b["x"] >= 0 and b["x"] + b["width"] <= WIDTH for b in boxes)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    # The bell's panel opens within the screen, and its "Mark all read" can be read.
    page.locator("#notification-bell > summary").click()
    mark = page.get_by_test_id("bell-mark-all")
    legible = mark.evaluate(
        "b => getComputedStyle(b).color === getComputedStyle(b.closest('.bell-panel')).color"
    )
    assert legible
    panel = page.locator("#bell-panel").bounding_box()
    assert panel and panel["x"] >= 0 and panel["x"] + panel["width"] <= WIDTH
    mark.click()
    expect(bell).to_have_count(0)
    context.close()


@pytest.mark.parametrize("locale", ["pl-PL", "en-GB"])
def test_the_lobby_keeps_p_a_n_on_one_line(site, browser: Browser, locale: str):
    """The welcome's last word, the letters P-A-N, never breaks at a hyphen on a phone
    (Polish left a lone 'N.' on the last line)."""
    context = browser.new_context(locale=locale, viewport={"width": 360, "height": 640})
    page = context.new_page()
    page.goto(f"{site.url}/")
    lines = page.locator(".hero p").first.evaluate(
        """p => {
          const text = p.firstChild, at = text.textContent.search(/P.A.N/);
          const range = document.createRange();
          range.setStart(text, at);
          range.setEnd(text, at + 5);
          return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        }"""
    )
    assert lines == 1
    context.close()
