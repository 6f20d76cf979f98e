"""Small things players noticed (#14), each proven in the browser: forms that show only
what applies, pages that fit a phone, legible letters, honest table headers and notices."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.pages import log_in, new_page
from tests.factories import make_user
from tests.tournaments.helpers import make_staff

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTHS = (360, 1280)


def open_live_table(page: Page, url: str) -> None:
    """Open a table page and wait until its websocket is connected."""
    page.goto(url)
    expect(page.locator("#conn-state.on")).to_have_count(1)


def assert_each_checkbox_sits_beside_its_label(page: Page) -> None:
    """Every visible checkbox of the page's main form has its own label on its right, on
    the same line (their vertical middles within a few pixels)."""
    boxes = page.locator("main form input[type=checkbox]")
    assert boxes.count() > 0
    for index in range(boxes.count()):
        box = boxes.nth(index)
        if not box.is_visible():
            continue
        label = page.locator(f"label[for='{box.get_attribute('id')}']")
        expect(label).to_have_count(1)
        b, lab = box.bounding_box(), label.bounding_box()
        assert lab["x"] >= b["x"] + b["width"], (box.get_attribute("id"), b, lab)
        middle = lambda r: r["y"] + r["height"] / 2  # noqa: E731
        assert abs(middle(lab) - middle(b)) <= 6, (box.get_attribute("id"), b, lab)


def assert_custom_time_shows_only_for_custom(page: Page) -> None:
    seconds = page.locator("input[name=base_seconds]")
    increment = page.locator("input[name=increment_seconds]")
    expect(seconds).to_be_hidden()
    expect(increment).to_be_hidden()
    page.select_option("select[name=time_control]", "custom")
    expect(seconds).to_be_visible()
    expect(increment).to_be_visible()
    page.select_option("select[name=time_control]", "5+3")
    expect(seconds).to_be_hidden()


@pytest.mark.parametrize("width", WIDTHS)
def test_1_the_table_form_shows_custom_seconds_only_for_custom_and_boxes_beside_labels(
    site, browser: Browser, width: int
):
    make_user(f"former{width}")
    context, page = new_page(browser)
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, site.url, f"former{width}")
    page.goto(f"{site.url}/tables/new/")
    assert_custom_time_shows_only_for_custom(page)
    page.locator("main summary").click()  # the rule options, two of them checkboxes
    assert_each_checkbox_sits_beside_its_label(page)
    # Chosen by hand, the seconds make the table's clock.
    page.select_option("select[name=time_control]", "custom")
    page.fill("input[name=base_seconds]", "90")
    page.fill("input[name=increment_seconds]", "4")
    page.get_by_role("button", name="Create the table").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"former{width}")
    from games.models import Table

    table = Table.objects.get(owner__username=f"former{width}")
    assert (table.base_seconds, table.increment_seconds) == (90, 4)
    context.close()


def test_1_without_script_the_custom_seconds_show(site, browser: Browser):
    make_user("noscript")
    context = browser.new_context(locale="en-GB", java_script_enabled=False)
    page = context.new_page()
    log_in(page, site.url, "noscript")
    page.goto(f"{site.url}/tables/new/")
    expect(page.locator("input[name=base_seconds]")).to_be_visible()
    expect(page.locator("input[name=increment_seconds]")).to_be_visible()
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_2_the_tournament_form_offers_the_table_presets(site, browser: Browser, width: int):
    from games.services import TIME_PRESETS
    from tournaments.models import Tournament

    staff = make_staff(f"director{width}")
    context, page = new_page(browser)
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, site.url, staff.username)
    page.goto(f"{site.url}/tournaments/new/")
    offered = page.locator("select[name=time_control] option").evaluate_all(
        "options => options.map(o => o.value)"
    )
    assert offered == [*TIME_PRESETS, "custom"]
    assert_custom_time_shows_only_for_custom(page)
    assert_each_checkbox_sits_beside_its_label(page)
    page.fill("input[name=name]", f"Preset cup {width}")
    page.fill("input[name=starts_at]", "2099-06-01T12:00")
    page.select_option("select[name=time_control]", "10+5")
    page.get_by_role("button", name="Create the tournament").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Preset cup {width}")
    tournament = Tournament.objects.get(name=f"Preset cup {width}")
    assert (tournament.base_seconds, tournament.increment_seconds) == TIME_PRESETS["10+5"]
    # Its edit page shows the preset chosen, the seconds by hand hidden.
    page.goto(f"{site.url}/tournaments/{tournament.pk}/edit/")
    expect(page.locator("select[name=time_control]")).to_have_value("10+5")
    expect(page.locator("input[name=base_seconds]")).to_be_hidden()
    context.close()


def finished_match(usernames: tuple[str, str]):
    """A match two users played to its end at a public table (the clock decided it)."""
    from games.engine import Rules
    from tests.factories import make_table, play_to_pan_on_time

    owner = make_user(usernames[0])
    table = make_table(owner, players=1, rules=Rules(), seats=2, name="Finished")
    from games import services

    services.table_sit(table_id=table.pk, user=make_user(usernames[1]))
    return play_to_pan_on_time(table)


@pytest.mark.parametrize("locale", ["en-GB", "pl-PL"])
def test_3_the_replay_page_fits_a_phone_of_360_px(site, browser: Browser, locale: str):
    match = finished_match((f"replayer_{locale}", f"replayed_{locale}"))
    hand = match.hands.order_by("number").first()
    context = browser.new_context(locale=locale, viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.goto(f"{site.url}/hands/{hand.pk}/")
    expect(page.get_by_test_id("seed")).to_have_text(hand.seed)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # The long strings are wrapped, not cut: the whole commitment is there to copy.
    expect(page.get_by_test_id("commitment")).to_have_text(hand.commitment)
    context.close()


# The WCAG contrast ratio of an element's text colour against the first opaque background
# behind it (the page's own when none is set).
CONTRAST = """el => {
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let bg = null;
  for (let node = el; node; node = node.parentElement) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length === 3 || c[3] === 1) { bg = c.slice(0, 3); break; }
  }
  bg = bg || rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
  const [a, b] = [lum(rgb(getComputedStyle(el).color).slice(0, 3)), lum(bg)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_4_the_letters_of_the_final_ranking_are_legible(site, browser: Browser, scheme: str):
    match = finished_match((f"ranked_{scheme}", f"ranker_{scheme}"))
    # Without script the page stays as served: no websocket swaps it while it is measured.
    context = browser.new_context(
        locale="en-GB",
        color_scheme=scheme,
        viewport={"width": 360, "height": 800},
        java_script_enabled=False,
    )
    page = context.new_page()
    page.goto(f"{site.url}/tables/{match.table_id}/")
    letters = page.get_by_test_id("ranking").locator(".letters").filter(has_text="PAN")
    expect(letters).to_have_count(1)
    assert letters.evaluate(CONTRAST) >= 4.5
    size = letters.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    body = page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)")
    assert size >= body
    context.close()


def test_5_rated_shows_only_when_the_match_will_be_rated(site, browser: Browser):
    from games import services
    from games.engine import Rules

    owner, guest = make_user("rated_owner"), make_user("rated_guest")
    table = services.table_create(owner=owner, name="Honest", rules=Rules(), seats=3)
    services.table_add_bot(table_id=table.pk, by=owner, position=1, level="random")
    context, page = new_page(browser)
    log_in(page, site.url, owner.username)
    open_live_table(page, f"{site.url}/tables/{table.pk}/")
    expect(page.get_by_test_id("rated")).to_have_text("casual")  # only a bot to play
    # A second person sits down: the owner's page says, without a reload, it is rated.
    guest_context, guest_page = new_page(browser)
    log_in(guest_page, site.url, guest.username)
    guest_page.goto(f"{site.url}/tables/{table.pk}/")
    guest_page.get_by_test_id("sit").first.click()
    expect(page.get_by_test_id("rated")).to_have_text("rated")
    guest_page.get_by_test_id("leave").click()
    expect(page.get_by_test_id("rated")).to_have_text("casual")
    for ctx in (context, guest_context):
        ctx.close()


def test_5_a_tournament_table_says_tournament(site, browser: Browser):
    from tests.tournaments.helpers import hands_in_play, make_tournament, started

    people = [make_user(f"cup_rated{i}") for i in range(3)]
    tournament = started(make_tournament(users=people, bots_allowed=False))
    table_id = hands_in_play(tournament)[0].match.table_id
    context = browser.new_context(locale="pl-PL")
    page = context.new_page()
    page.goto(f"{site.url}/tables/{table_id}/")
    expect(page.get_by_test_id("rated")).to_have_text("turniejowy")
    context.close()


def test_6_a_tournament_table_says_who_is_out_and_that_it_goes_on(site, browser: Browser):
    from tests.tournaments.helpers import entry_to_move, hands_in_play, make_tournament, started

    people = [make_user(f"cup_goes_on{i}") for i in range(3)]
    tournament = make_tournament(
        users=people,
        bots_allowed=False,
        base_seconds=5,
        increment_seconds=0,
        seconds_between_hands=60.0,
    )
    tournament = started(tournament, letters=2)
    hand = hands_in_play(tournament)[0]
    loser = entry_to_move(hand)  # everyone carries P-A: his clock runs out, he is out
    context, page = new_page(browser)
    open_live_table(page, f"{site.url}/tables/{hand.match.table_id}/")
    expect(page.get_by_test_id("match-over")).to_have_text(
        f"{loser.display_name} is out of the tournament.", timeout=20_000
    )
    expect(page.get_by_test_id("match-over-note")).to_contain_text("The tournament goes on")
    expect(page.get_by_text("The match is over")).to_have_count(0)
    context.close()


def test_7_a_tournament_started_now_shows_when_it_started(site, browser: Browser):
    from datetime import datetime, timedelta

    from django.utils import timezone

    from tests.tournaments.helpers import make_tournament

    staff = make_staff("starter")
    tournament = make_tournament(by=staff, name="Early cup", bots=3, starts_in=3 * 3600)
    context, page = new_page(browser)
    log_in(page, site.url, staff.username)
    page.goto(f"{site.url}/tournaments/{tournament.pk}/")
    shown = page.get_by_test_id("start-time")
    scheduled = datetime.fromisoformat(shown.get_attribute("datetime"))
    assert abs(scheduled - tournament.starts_at) < timedelta(minutes=1)
    page.get_by_test_id("start-now").click()
    expect(page.get_by_test_id("status")).to_have_text("running")
    expect(page.get_by_text("Started at")).to_be_visible()
    started_at = datetime.fromisoformat(shown.get_attribute("datetime"))
    assert abs(started_at - timezone.now()) < timedelta(minutes=1)
    context.close()


def test_9_the_reason_typed_for_hiding_a_message_reaches_the_audit_log(site, browser: Browser):
    from games import services
    from moderation.models import AuditLog
    from tests.factories import make_moderator, make_table

    make_moderator("hider")
    table = make_table(make_user("chatty_host"), players=1, name="Reasons")
    message = services.chat_post(table_id=table.pk, user=table.owner, text="buy cheap chips")
    context, page = new_page(browser)
    log_in(page, site.url, "hider")
    open_live_table(page, f"{site.url}{table.get_absolute_url()}")
    page.get_by_test_id("mod-reason").fill("spam link")
    page.locator(f'li[data-message="{message.pk}"]').get_by_test_id("hide-chat").click()
    expect(page.get_by_test_id("chat")).not_to_contain_text("buy cheap chips")
    entry = AuditLog.objects.get(action="chat_hide")
    assert entry.reason == "spam link"
    context.close()


def test_10_the_chosen_bot_level_survives_the_seats_update(site, browser: Browser):
    from games import services
    from games.engine import Rules
    from games.models import Seat

    owner = make_user("bot_chooser")
    table = services.table_create(owner=owner, name="Bots", rules=Rules(), seats=4)
    context, page = new_page(browser)
    log_in(page, site.url, owner.username)
    open_live_table(page, f"{site.url}/tables/{table.pk}/")
    levels = page.locator(".add-bot select[name=level]")
    expect(levels).to_have_count(3)
    levels.first.select_option("random")
    page.get_by_test_id("add-bot").first.click()
    expect(levels).to_have_count(2)  # the seats were re-rendered by the websocket
    assert Seat.objects.get(table=table, position=1).bot_level == "random"
    expect(levels.first).to_have_value("random")
    # Chosen, then the seats change again (a player sits down): the choice stays.
    levels.last.select_option("ismcts")
    guest_context, guest = new_page(browser)
    log_in(guest, site.url, make_user("bot_watcher").username)
    guest.goto(f"{site.url}/tables/{table.pk}/")
    guest.get_by_test_id("sit").first.click()
    expect(levels).to_have_count(1)
    expect(levels.first).to_have_value("ismcts")
    page.get_by_test_id("add-bot").click()
    expect(levels).to_have_count(0)
    assert Seat.objects.get(table=table, position=3).bot_level == "ismcts"
    for ctx in (context, guest_context):
        ctx.close()


# A form that sends a harmless command (a pong) on the page's websocket, as htmx sends
# every form of the page, submitted past the limit of commands a socket may send.
FLOOD = """count => {
  const form = document.createElement("form");
  form.setAttribute("ws-send", "");
  form.innerHTML = '<input type="hidden" name="action" value="pong">'
    + '<input type="hidden" name="t" value="1.0">';
  document.querySelector("[ws-connect^='/ws/tables/']").appendChild(form);
  htmx.process(form);
  for (let i = 0; i < count; i++) { form.requestSubmit(); }
}"""


@pytest.mark.parametrize(
    ("locale", "expected"),
    [("en-GB", "Too many commands; slow down."), ("pl-PL", "Za dużo poleceń; zwolnij.")],
)
def test_11_too_many_commands_is_said_in_the_readers_language(
    site, browser: Browser, locale: str, expected: str
):
    from live import COMMAND_BURST
    from tests.factories import make_table

    reader = make_user(f"flooder_{locale}")  # no language saved: the browser's
    table = make_table(reader, players=1, name="Flood")
    context = browser.new_context(locale=locale, viewport={"width": 360, "height": 800})
    page = context.new_page()
    log_in_any_language(page, site.url, reader.username)
    open_live_table(page, f"{site.url}{table.get_absolute_url()}")
    page.evaluate(FLOOD, COMMAND_BURST + 1)
    expect(page.get_by_test_id("notice")).to_have_text(expected)
    context.close()


def log_in_any_language(page: Page, base_url: str, username: str) -> None:
    """Log in through the login form, whatever language it is in."""
    from tests.factories import PASSWORD

    page.goto(f"{base_url}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_test_id("nav-profile")).to_have_text(username)


@pytest.mark.parametrize(
    ("locale", "badge", "why"),
    [
        ("en-GB", "bot · banned", "A bot plays for {name}, who is banned."),
        ("pl-PL", "bot · zbanowany", "Za gracza {name} gra bot: gracz jest zbanowany."),
    ],
)
def test_12_a_banned_players_seat_says_why_a_bot_plays_it(
    site, browser: Browser, locale: str, badge: str, why: str
):
    from games import services
    from moderation import services as moderation
    from tests.factories import make_moderator, make_table

    table = make_table(make_user(f"host_{locale}"), players=2, name="Banned seat")
    services.match_start(table_id=table.pk, by=table.owner)
    cheat = table.seats.get(position=1).user
    moderation.user_ban(by=make_moderator(f"judge_{locale}"), user_id=cheat.pk, reason="cheating")
    # Without script the page stays as served: no websocket swaps it while it is measured.
    context = browser.new_context(
        locale=locale, viewport={"width": 360, "height": 800}, java_script_enabled=False
    )
    page = context.new_page()
    page.goto(f"{site.url}{table.get_absolute_url()}")
    player = page.get_by_test_id("player").filter(has_text=cheat.username)
    stand_in = player.get_by_test_id("bot-for")
    expect(stand_in).to_have_text(badge)
    expect(stand_in).to_have_attribute("title", why.format(name=cheat.username))
    # The word fits the player's box on a phone: it is not cut off.
    assert stand_in.evaluate("el => el.getBoundingClientRect().right") <= player.evaluate(
        "el => el.getBoundingClientRect().right"
    )
    context.close()


@pytest.mark.parametrize(
    ("locale", "word"), [("en-GB", "(provisional)"), ("pl-PL", "(tymczasowy)")]
)
def test_13_a_new_profile_shows_the_starting_rating_as_provisional(
    site, browser: Browser, locale: str, word: str
):
    from games.ratings import DISPLAY_BASE
    from games.speeds import Speed

    newcomer = make_user(f"newcomer_{locale}")
    context = browser.new_context(locale=locale, viewport={"width": 360, "height": 800})
    page = context.new_page()
    page.goto(f"{site.url}/u/{newcomer.username}/")
    stats = page.get_by_test_id("profile-stats")
    # A rating for each speed, each the starting one and provisional.
    for speed in Speed:
        expect(stats.locator(f"[data-stat=rating-{speed.value}]")).to_have_text(f"{DISPLAY_BASE}?")
    expect(stats.get_by_test_id("provisional")).to_have_count(len(Speed))
    expect(stats.get_by_test_id("provisional").first).to_have_text(word)
    context.close()
