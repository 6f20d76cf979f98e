"""Learn in the browser: the whole course completed with the keyboard only, in English
and Polish, at 1280 and 360 px, ending in a first match against a bot; a wrong move is
explained, said and changes nothing; a visitor's progress stays in his browser."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from games.engine import Move, PickUp
from games.models import Table
from learn.lessons import lessons
from learn.models import LessonProgress
from tests.e2e.test_fixes_e2e import log_in_any_language
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LOCALES = {"en": "en-GB", "pl": "pl-PL"}


def _focused(page: Page, attribute: str) -> str | None:
    return page.evaluate(f"document.activeElement.getAttribute({attribute!r})")


def _tab_to(page: Page, selector: str) -> None:
    """Presses Tab until the focused element matches ``selector``."""
    for _ in range(20):
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def _make(page: Page, move: Move) -> None:
    """Makes ``move`` with the keyboard, the focus being in the hand."""
    if isinstance(move, PickUp):
        first = page.locator('#my-hand [data-testid="pickup"]').first
        form_count = first.locator("xpath=..").locator('input[name="count"]')
        if form_count.get_attribute("value") == str(move.count):
            page.keyboard.press("p")
            return
        _tab_to(page, f'#my-hand form:has(input[name="count"][value="{move.count}"]) button')
    elif len(move.cards) > 1:
        _tab_to(page, '#my-hand [data-testid="multi-move"]')
    else:
        cards = page.locator("#my-hand .hand-cards .card-button")
        codes = [cards.nth(i).get_attribute("data-card") for i in range(cards.count())]
        at = codes.index(_focused(page, "data-card"))
        target = codes.index(move.cards[0])
        key = "ArrowRight" if target > at else "ArrowLeft"
        for _ in range(abs(target - at)):
            page.keyboard.press(key)
        assert _focused(page, "data-card") == move.cards[0]
    page.keyboard.press("Enter")


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize("language", list(LOCALES))
def test_the_whole_course_with_the_keyboard_only(
    site, browser: Browser, language: str, width: int
) -> None:
    user = make_user(f"learner_{language}_{width}")
    context = browser.new_context(
        locale=LOCALES[language], viewport={"width": width, "height": 800}
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in_any_language(page, site.url, user.username)
    page.goto(f"{site.url}/learn/{lessons()[0].slug}/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    for number, lesson in enumerate(lessons()):
        expect(page.get_by_role("heading", level=1)).to_have_text(
            lesson.title.in_language(language)
        )
        page.keyboard.press("Tab")
        assert _focused(page, "data-testid") == "skip-to-hand"
        page.keyboard.press("Enter")
        for step, rules in enumerate(lesson.steps):
            board = page.get_by_test_id("lesson")
            expect(board).to_have_attribute("data-step", str(step))
            expect(page.get_by_test_id("lesson-task")).to_contain_text(
                rules.task.in_language(language)
            )
            if number == 1 and step == 0:  # once: a wrong move, explained and said
                wrong = rules.wrong[0]
                _make(page, wrong.move)
                explained = page.get_by_test_id("lesson-wrong")
                expect(explained).to_have_text(wrong.why.in_language(language))
                expect(page.get_by_test_id("announcer")).to_have_text(
                    wrong.why.in_language(language)
                )
                expect(board).to_have_attribute("data-step", "0")
                assert _focused(page, "data-card") == wrong.move.cards[0]
            _make(page, rules.accept[0])
        expect(page.get_by_test_id("lesson-complete")).to_contain_text(
            lesson.done.in_language(language)
        )
        expect(page.get_by_test_id("announcer")).to_contain_text(lesson.done.in_language(language))
        if number < len(lessons()) - 1:
            assert _focused(page, "data-testid") == "next-lesson"
            page.keyboard.press("Enter")
    assert _focused(page, "data-testid") == "first-match"
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    expect(page.locator("#my-hand .card-button").first).to_be_visible()
    table = Table.objects.get(owner=user)
    assert table.seats.filter(bot_level="random").count() == 1
    assert LessonProgress.objects.filter(user=user).count() == len(lessons())
    page.goto(f"{site.url}/learn/")
    expect(page.locator('[data-testid="lesson-done"]:visible')).to_have_count(len(lessons()))
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


def test_a_refused_move_is_shown_with_the_lesson_started_again(site, page: Page) -> None:
    page.goto(f"{site.url}/learn/equal-or-higher/")
    page.locator('#my-hand form:has([data-card="QH"]) input[name="path"]').evaluate(
        "input => { input.value = 'AS'; }"  # a step the page never showed
    )
    page.locator('#my-hand [data-card="QH"]').click()
    expect(page.get_by_test_id("lesson-wrong")).to_contain_text("start the lesson again")
    expect(page.get_by_test_id("lesson")).to_have_attribute("data-step", "0")
    expect(page.locator("#my-hand .card-button")).to_have_count(4)


def test_a_move_made_before_the_script_is_ready_is_answered_all_the_same(site, page: Page) -> None:
    """Without htmx (a slow phone's first moment) a move posts as a plain form: the answer
    is a new page, which says it and gives the focus back as a swapped answer does."""
    page.route("**/htmx-*.js", lambda route: route.abort())
    lesson = next(found for found in lessons() if found.slug == "equal-or-higher")
    wrong = lesson.steps[0].wrong[0]
    page.goto(f"{site.url}/learn/{lesson.slug}/")
    expect(page.get_by_test_id("announcer")).to_have_text("")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    with page.expect_navigation():
        _make(page, wrong.move)
    expect(page.get_by_test_id("lesson-wrong")).to_have_text(wrong.why.in_language("en"))
    expect(page.get_by_test_id("announcer")).to_have_text(wrong.why.in_language("en"))
    assert _focused(page, "data-card") == wrong.move.cards[0]
    with page.expect_navigation():
        _make(page, lesson.steps[0].accept[0])
    expect(page.get_by_test_id("lesson")).to_have_attribute("data-step", "1")
    expect(page.get_by_test_id("lesson-wrong")).to_have_count(0)
    assert _focused(page, "data-card") is not None


def test_a_visitors_progress_is_kept_in_his_browser_only(site, browser: Browser) -> None:
    context = browser.new_context(locale="en-GB", viewport={"width": 360, "height": 740})
    page = context.new_page()
    first = lessons()[0]
    page.goto(f"{site.url}/learn/{first.slug}/")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    _make(page, first.steps[0].accept[0])
    expect(page.get_by_test_id("lesson-complete")).to_be_visible()
    page.goto(f"{site.url}/learn/")
    ticked = page.locator(f'[data-lesson="{first.slug}"] [data-testid="lesson-done"]')
    expect(ticked).to_be_visible()
    expect(page.locator('[data-testid="lesson-done"]:visible')).to_have_count(1)
    assert not LessonProgress.objects.exists()
    context.close()


@pytest.mark.parametrize("language", list(LOCALES))
def test_a_visitor_sees_how_far_he_is_on_the_course(site, browser: Browser, language) -> None:
    context = browser.new_context(locale=LOCALES[language], viewport={"width": 360, "height": 740})
    page = context.new_page()
    total = len(lessons())
    words = {"en": "Lessons done: {} of {}", "pl": "Ukończone lekcje: {} z {}"}[language]
    page.goto(f"{site.url}/learn/")
    expect(page.get_by_test_id("progress-text")).to_have_text(words.format(0, total))
    for number, each in enumerate(lessons()[:2], 1):
        page.goto(f"{site.url}/learn/{each.slug}/")
        expect(page.get_by_test_id("lesson-place")).to_contain_text(
            {"en": "Lesson {} of {}", "pl": "Lekcja {} z {}"}[language].format(number, total)
        )
        for number_of_step, step in enumerate(each.steps):
            expect(page.get_by_test_id("lesson")).to_have_attribute(
                "data-step", str(number_of_step)
            )
            _make_with_the_mouse(page, step.accept[0])
        expect(page.get_by_test_id("lesson-complete")).to_be_visible()
    page.goto(f"{site.url}/learn/")
    bar = page.get_by_test_id("progress-bar")
    expect(bar).to_be_visible()
    expect(bar).to_have_js_property("value", 2)
    expect(bar).to_have_attribute("max", str(total))
    expect(page.get_by_test_id("progress-text")).to_have_text(words.format(2, total))
    assert bar.evaluate("el => el.labels.length || !!el.getAttribute('aria-labelledby')")
    context.close()


def _make_with_the_mouse(page: Page, move: Move) -> None:
    """Clicks the button of ``move`` (the first of several cards' buttons is enough: a
    play is judged by its cards)."""
    if isinstance(move, PickUp):
        page.locator(f'#my-hand form:has(input[name="count"][value="{move.count}"]) button').click()
    elif len(move.cards) > 1:
        page.locator('#my-hand [data-testid="multi-move"]').first.click()
    else:
        page.locator(f'#my-hand [data-card="{move.cards[0]}"]').click()


PHONES = [(360, 640), (360, 740)]
# What a learner must see without scrolling: the task, the pile, every card of his hand
# and the first of the buttons under it (if it has any).
LESSON_MUST_SEE = {
    "task": '[data-testid="lesson-task"]',
    "pile": "#pile",
    "hand": "#my-hand .hand-cards .card-button",
}
FIRST_MOVE_BUTTON = "#my-hand .move-options > form:first-child button"


@pytest.mark.parametrize("language", list(LOCALES))
def test_a_lesson_on_a_phone_shows_the_task_pile_and_hand_on_the_first_screen(
    site, browser: Browser, language: str
) -> None:
    from tests.e2e.test_table_phone_e2e import OUTSIDE

    for width, height in PHONES:
        context = browser.new_context(
            locale=LOCALES[language], viewport={"width": width, "height": height}
        )
        page = context.new_page()
        for each in lessons():
            page.goto(f"{site.url}/learn/{each.slug}/")
            expect(page.locator("html")).to_have_attribute("lang", language)
            assert page.evaluate("window.scrollY") == 0
            must_see = dict(LESSON_MUST_SEE)
            if page.locator(FIRST_MOVE_BUTTON).count():
                must_see["first move button"] = FIRST_MOVE_BUTTON
            assert page.evaluate(OUTSIDE, must_see) == [], (each.slug, height)
        # The header's links wait behind the menu button, a tap away; the lesson's text
        # follows the hand.
        expect(page.locator("#site-nav")).to_be_hidden()
        page.locator("[data-menu-toggle]").click()
        expect(page.locator("#site-nav")).to_be_visible()
        expect(page.get_by_test_id("lesson-intro")).to_contain_text(
            lessons()[-1].paragraphs(language)[0]
        )
        context.close()
