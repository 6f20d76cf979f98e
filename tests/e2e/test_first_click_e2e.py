"""The first click counts (#53): on a freshly loaded page one press of the real mouse on
a move button makes the move, at a real table and in a lesson, for each kind of move (a
single card, a play of several cards, a pick-up); and nothing moves when a button takes
the focus (a press focuses it before the release, and a release beside it is no click)."""

from __future__ import annotations

import pytest
from django.db.models import F
from playwright.sync_api import Browser, Locator, expect

from games import services
from games.engine import HandState, Rules
from games.models import Hand
from tests.e2e.pages import count_frames, first_frame_drawn, log_in
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTHS = [(1280, 800), (360, 740)]

# Each kind of move at a table: the mover's hand and the pile (the opponent holds the
# rest of what the position needs), and the button that makes it.
TABLE_MOVES = {
    "single card": (["10S", "QH", "KD"], ["9H", "JD"], '#my-hand [data-card="QH"]'),
    "several cards": (
        ["9S", "JS", "JH", "JD", "JC"],
        ["9H", "10D"],
        '#my-hand [data-testid="multi-move"]',
    ),
    "pick up": (["9S", "10H"], ["9H", "JD", "QS", "KC"], '#my-hand [data-testid="pickup"]'),
}
# The same in lessons: the lesson and the button of its first step's move.
LESSON_MOVES = {
    "single card": ("opening", '#my-hand [data-card="9H"]'),
    "several cards": ("four-of-a-kind", '#my-hand [data-testid="multi-move"]'),
    "pick up": ("picking-up", '#my-hand [data-testid="pickup"]'),
}

# Where an element is on the page (not in the viewport: focusing may scroll).
PLACE = """el => {
  const r = el.getBoundingClientRect();
  return [r.left + scrollX, r.top + scrollY, r.width, r.height];
}"""


def assert_still_when_focused(button: Locator) -> None:
    """The button keeps its place and size when it takes the focus: from a script (as the
    keyboard moves it) and from a press of the mouse (before its release)."""
    page = button.page
    before = button.evaluate(PLACE)
    button.evaluate("el => el.focus({preventScroll: true})")
    assert button.evaluate(PLACE) == before
    button.evaluate("el => el.blur()")
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    before = button.evaluate(PLACE)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    assert button.evaluate("el => document.activeElement === el")
    assert button.evaluate(PLACE) == before
    # Released away from the button: no click, the page as it was loaded.
    page.mouse.move(0, 0)
    page.mouse.up()


def table_at(name: str, mine: list[str], pile: list[str]) -> tuple[int, Hand, str, str]:
    """A table of two whose match has started, its player to move (his seat and clock as
    dealt) put at ``pile`` holding ``mine``, the opponent the rest of the deck; set before
    any page shows the table. Returns the table's id, the hand, the mover's name and his
    opponent's."""
    users = [make_user(f"{name}_{n}") for n in (1, 2)]
    table = services.table_create(
        owner=users[0], name="First click", rules=Rules(), seats=2, base_seconds=600
    )
    services.table_sit(table_id=table.pk, user=users[1])
    match = services.match_start(table_id=table.pk, by=users[0])
    hand = match.hands.get()
    state = hand.engine_state
    theirs = [c for c in Rules().deck_codes() if c not in mine and c not in pile]
    hands = [mine, theirs] if state.to_move == 0 else [theirs, mine]
    new = HandState.from_position(
        rules=Rules(), hands=hands, pile=pile, to_move=state.to_move, dealer=state.dealer
    )
    Hand.objects.filter(pk=hand.pk).update(state=new.to_json(), version=F("version") + 1)
    hand.refresh_from_db()
    names = {p.seat: p.user.username for p in match.players.select_related("user")}
    return table.pk, hand, names[state.to_move], names[1 - state.to_move]


@pytest.mark.parametrize(("width", "height"), WIDTHS)
def test_one_click_makes_each_kind_of_move_at_a_table(
    site, browser: Browser, width: int, height: int
) -> None:
    for n, (kind, (mine, pile, selector)) in enumerate(TABLE_MOVES.items()):
        table_id, hand, mover, _ = table_at(f"click{width}_{n}", mine, pile)
        context = browser.new_context(locale="en-GB", viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)
        page = context.new_page()
        count_frames(page)
        log_in(page, site.url, mover)
        for attempt in ("focus", "click"):
            page.goto(f"{site.url}/tables/{table_id}/")
            expect(page.locator("#conn-state.on")).to_have_count(1)
            status = page.locator("#table-status")
            expect(status).to_have_attribute("data-version", str(hand.version))
            button = page.locator(selector).first
            if attempt == "focus":
                # Measured once the socket's first frame (the whole table) has drawn the
                # hand again; the click below does not wait for it.
                first_frame_drawn(page)
                assert_still_when_focused(button)
                continue
            button.click()
            expect(status).not_to_have_attribute("data-version", str(hand.version))
        hand.refresh_from_db()
        assert hand.engine_state.history_length == 1, kind  # the one move, and only it
        context.close()


@pytest.mark.parametrize(("width", "height"), WIDTHS)
def test_one_click_makes_each_kind_of_move_in_a_lesson(
    site, browser: Browser, width: int, height: int
) -> None:
    context = browser.new_context(locale="en-GB", viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    page = context.new_page()
    for slug, selector in LESSON_MOVES.values():
        for attempt in ("focus", "click"):
            page.goto(f"{site.url}/learn/{slug}/")
            board = page.get_by_test_id("lesson")
            expect(board).to_have_attribute("data-step", "0")
            button = page.locator(selector).first
            if attempt == "focus":
                assert_still_when_focused(button)
                continue
            button.click()
            expect(page.get_by_test_id("lesson-wrong")).to_have_count(0)
            expect(page.get_by_test_id("lesson-complete")).to_be_visible()
    context.close()


# Lessons whose first step offers a pick-up of 1, 2, 3 cards, and one of 3 to 5 cards.
PICKUPS = {
    "en": {
        "going-out-and-tie": ["Pick up 1 card"],
        "equal-or-higher": ["Pick up 2 cards"],
        "picking-up": ["Pick up 3 cards"],
        "pickup": ["Pick up 3 cards", "Pick up 4 cards", "Pick up 5 cards"],
    },
    "pl": {
        "going-out-and-tie": ["Weź 1 kartę"],
        "equal-or-higher": ["Weź 2 karty"],
        "picking-up": ["Weź 3 karty"],
        "pickup": ["Weź 3 karty", "Weź 4 karty", "Weź 5 kart"],
    },
}


@pytest.mark.parametrize("language", PICKUPS)
def test_a_pick_up_says_how_many_cards_and_keeps_its_width(site, browser: Browser, language):
    locale = {"en": "en-GB", "pl": "pl-PL"}[language]
    context = browser.new_context(locale=locale, viewport={"width": 360, "height": 740})
    page = context.new_page()
    widths = set()
    for slug, labels in PICKUPS[language].items():
        page.goto(f"{site.url}/learn/{slug}/")
        buttons = page.locator('#my-hand [data-testid="pickup"]')
        expect(buttons).to_have_text(labels)
        for label in labels:  # what a screen reader says of it
            button = page.get_by_role("button", name=label, exact=True)
            expect(button).to_have_count(1)
            widths.add(button.evaluate("el => el.getBoundingClientRect().width"))
    assert len(widths) == 1, widths
    context.close()
