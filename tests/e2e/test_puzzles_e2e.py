"""Puzzles from the keyboard alone: one solved and one failed, at 1280 and 360 px, in
English and in Polish, the puzzle rating moving with each answer."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from puzzles.services import puzzle_attempt
from tests.e2e.test_fixes_e2e import CONTRAST, log_in_any_language
from tests.factories import make_user
from tests.puzzles.factories import make_puzzle

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en-GB": {"solved": "Solved", "missed": "Not the best move", "rating": "Your puzzle rating"},
    "pl-PL": {
        "solved": "Rozwiązana",
        "missed": "To nie najlepszy ruch",
        "rating": "Twój ranking w łamigłówkach",
    },
}


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize("locale", list(WORDS))
def test_solve_one_puzzle_and_fail_another_by_keyboard(
    site, browser: Browser, locale: str, width: int
):
    words = WORDS[locale]
    first = make_puzzle(content_hash="first")
    second = make_puzzle()
    user = make_user(f"solver{width}{locale[:2]}")
    context = browser.new_context(locale=locale, viewport={"width": width, "height": 800})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        log_in_any_language(page, site.url, user.username)
        page.goto(f"{site.url}/puzzles/")
        expect(page.get_by_test_id("puzzle")).to_have_attribute("data-puzzle", str(first.pk))
        expect(page.get_by_test_id("puzzle-rating")).to_contain_text("1500")
        # The hand's card has the focus: Enter plays it (the solution here).
        expect(page.locator("#my-hand .card-button[data-card=KH]")).to_be_focused()
        page.keyboard.press("Enter")
        result = page.get_by_test_id("puzzle-result")
        expect(result).to_have_attribute("data-correct", "true")
        expect(result.get_by_role("heading")).to_have_text(words["solved"])
        expect(page.get_by_test_id("rating-change")).to_contain_text(words["rating"])
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

        # The next puzzle has the focus; Enter opens it, P picks up (the wrong move here).
        expect(page.get_by_test_id("next-puzzle")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("puzzle")).to_have_attribute("data-puzzle", str(second.pk))
        expect(page.get_by_test_id("puzzle-result")).to_have_count(0)
        page.keyboard.press("p")
        result = page.get_by_test_id("puzzle-result")
        expect(result).to_have_attribute("data-correct", "false")
        expect(result.get_by_role("heading")).to_have_text(words["missed"])
        expect(page.get_by_test_id("solution")).to_contain_text("K♥")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

        page.goto(f"{site.url}/puzzles/history/")
        expect(page.get_by_test_id("history-row")).to_have_count(2)
    finally:
        context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_pile_count_reads_on_the_page(site, browser: Browser, theme: str):
    """The pile's count, drawn on the page's paper (not on a table's felt), has the
    contrast of text in both themes."""
    puzzle = make_puzzle()
    context = browser.new_context(locale="en-GB", color_scheme=theme)
    page = context.new_page()
    try:
        page.goto(f"{site.url}/puzzles/{puzzle.pk}/")
        count = page.locator(".puzzle .pile p")
        expect(count).to_have_text("3 cards on the pile")
        assert count.evaluate(CONTRAST) >= 4.5
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 360])
def test_the_chances_caption_is_not_squeezed(site, browser: Browser, width: int):
    """After the answer, the caption of the table of chances takes at most two lines
    above it, not the width of its narrow columns."""
    puzzle = make_puzzle()
    context = browser.new_context(locale="pl-PL", viewport={"width": width, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{site.url}/puzzles/{puzzle.pk}/")
        page.keyboard.press("p")
        caption = page.locator(".puzzle-chances caption")
        expect(caption).to_be_visible()
        lines = caption.evaluate(
            """el => { const s = getComputedStyle(el);
                return (el.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom))
                    / parseFloat(s.lineHeight); }"""
        )
        assert lines <= 2.05
    finally:
        context.close()


def test_the_history_fits_a_phone(site, browser: Browser):
    """A player's history with answers in it reads at 360 px without scrolling sideways:
    each answer a block of lines, each named."""
    user = make_user("historian")
    for puzzle, move in (
        (make_puzzle(content_hash="a"), {"type": "play", "cards": ["KH"]}),
        (make_puzzle(content_hash="b"), {"type": "pickup", "count": 2}),
    ):
        puzzle_attempt(puzzle_id=puzzle.pk, user=user, move=move)
    context = browser.new_context(locale="pl-PL", viewport={"width": 360, "height": 640})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        log_in_any_language(page, site.url, user.username)
        page.goto(f"{site.url}/puzzles/history/")
        expect(page.get_by_test_id("history-row")).to_have_count(2)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        result = page.get_by_test_id("history-row").first.locator("td").nth(3)
        assert result.evaluate("td => getComputedStyle(td, '::before').content") == '"Wynik: "'

    finally:
        context.close()


def test_a_streak_from_the_keyboard_on_a_phone_in_polish(site, browser: Browser):
    """A visitor starts a streak, solves a puzzle by Enter, misses the next by P, and is
    shown the solution and his best; a theme picked on /puzzles/ gives its puzzle."""
    make_puzzle(content_hash="easy", mu=20.0)
    themed = make_puzzle(mu=30.0, themes=["play_low"])
    context = browser.new_context(locale="pl-PL", viewport={"width": 360, "height": 740})
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        page.goto(f"{site.url}/puzzles/")
        page.get_by_label("Motyw łamigłówek").select_option("play_low")
        page.get_by_role("button", name="Pokaż łamigłówki").click()
        expect(page.get_by_test_id("puzzle")).to_have_attribute("data-puzzle", str(themed.pk))
        expect(page.get_by_test_id("theme-description")).to_contain_text("najniższa karta")

        page.get_by_test_id("streak-link").click()
        expect(page.get_by_test_id("streak-start")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("streak-count")).to_have_text("Seria: 0")
        expect(page.locator("#my-hand .card-button[data-card=KH]")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("streak-count")).to_have_text("Seria: 1")
        expect(page.get_by_test_id("streak-note")).to_contain_text("Dobrze!")
        page.keyboard.press("p")
        expect(page.get_by_test_id("streak-end")).to_have_text(
            "Koniec serii: 1 łamigłówka rozwiązana z rzędu."
        )
        expect(page.get_by_test_id("solution")).to_contain_text("K♥")
        expect(page.get_by_test_id("streak-best")).to_have_text("Twój rekord: 1")
        expect(page.get_by_test_id("streak-start")).to_be_focused()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        context.close()
