"""A card that may not be played, pressed (#53): the page says why it may not go on the
pile now, in the player's language, where he sees it and in a live region; at a table
nothing changes (the turn stays his, the table and his hand do not move), in a lesson
the text written for that card is shown, else the engine's reason."""

from __future__ import annotations

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import Browser, Locator, expect

from games.engine import IllegalMove, Play
from games.refusals import illegal_move_text
from learn.lessons import lesson
from tests.e2e.test_first_click_e2e import PLACE, table_at
from tests.e2e.test_fixes_e2e import log_in_any_language

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LOCALES = {"en": "en-GB", "pl": "pl-PL"}


def press(button: Locator) -> None:
    """A click of the real mouse at the button's centre (Playwright's own click waits
    for a button marked aria-disabled to be enabled)."""
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    button.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def refusal(state, cards: list[str], language: str) -> str:
    """The engine's refusal of playing ``cards`` in ``state``, in words."""
    with pytest.raises(IllegalMove) as refused:
        state.apply(Play(cards))
    with translation.override(language):
        return illegal_move_text(refused.value)


@pytest.mark.parametrize("language", LOCALES)
def test_a_card_too_low_pressed_at_a_table_says_why_and_changes_nothing(
    site, browser: Browser, language: str
) -> None:
    table_id, hand, mover, other = table_at(f"grey_{language}", ["10S", "QH", "KD"], ["9H", "JD"])
    pages = []
    for name in (mover, other):
        context = browser.new_context(
            locale=LOCALES[language], viewport={"width": 360, "height": 740}
        )
        context.set_default_timeout(15_000)
        page = context.new_page()
        log_in_any_language(page, site.url, name)
        page.goto(f"{site.url}/tables/{table_id}/")
        expect(page.locator("#conn-state.on")).to_have_count(1)
        pages.append(page)
    page, waiting = pages
    status = page.locator("#table-status")
    ten = page.locator('#my-hand [data-card="10S"]')
    expect(ten).to_have_attribute("aria-disabled", "true")
    queen = page.locator('#my-hand [data-card="QH"]')
    before = queen.evaluate(PLACE)

    press(ten)
    notice = page.get_by_test_id("notice")
    expect(notice).to_have_text(refusal(hand.engine_state, ["10S"], language))
    expect(notice).to_be_visible()
    expect(page.locator("#notice")).to_have_attribute("aria-live", "assertive")
    # Nothing changed and nothing moved: the turn is still his, the queen where it was.
    expect(status).to_have_attribute("data-version", str(hand.version))
    expect(page.get_by_test_id("your-turn")).to_be_visible()
    assert queen.evaluate(PLACE) == before
    hand.refresh_from_db()
    assert hand.engine_state.history_length == 0

    # The player waiting for his turn is told that it is not his.
    press(waiting.locator("#my-hand .card-button").first)
    with translation.override(language):
        expect(waiting.get_by_test_id("notice")).to_have_text(gettext("It is not your turn."))

    # His turn was not lost: the queen goes down, and the refusal goes with the change.
    queen.click()
    expect(status).not_to_have_attribute("data-version", str(hand.version))
    expect(page.get_by_test_id("notice")).to_have_count(0)
    for each in pages:
        each.context.close()


# Each lesson's card that may not be played: the text written for it, or the engine's.
LESSON_CARDS = [("opening", "KS"), ("equal-or-higher", "JC"), ("equal-or-higher", "9D")]


@pytest.mark.parametrize("language", LOCALES)
def test_a_card_that_may_not_be_played_in_a_lesson_is_explained(
    site, browser: Browser, language: str
) -> None:
    context = browser.new_context(locale=LOCALES[language], viewport={"width": 360, "height": 740})
    context.set_default_timeout(15_000)
    page = context.new_page()
    for slug, card in LESSON_CARDS:
        found = lesson(slug)
        written = found.steps[0].explained(Play([card]))
        expected = (
            written.in_language(language)
            if written is not None
            else refusal(found.start(), [card], language)
        )
        page.goto(f"{site.url}/learn/{slug}/")
        button = page.locator(f'#my-hand [data-card="{card}"]')
        expect(button).to_have_attribute("aria-disabled", "true")
        press(button)
        expect(page.get_by_test_id("lesson-wrong")).to_have_text(expected)
        expect(page.get_by_test_id("announcer")).to_have_text(expected)
        expect(page.get_by_test_id("lesson")).to_have_attribute("data-step", "0")
    # Once the lesson is done, its cards ask nothing more.
    page.goto(f"{site.url}/learn/opening/")
    page.locator('#my-hand [data-card="9H"]').click()
    expect(page.get_by_test_id("lesson-complete")).to_be_visible()
    expect(page.locator("#my-hand form")).to_have_count(0)
    context.close()
