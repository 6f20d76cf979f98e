"""The README's screenshots of the table (#14), of a lesson and of TV (#38), taken on
demand, never by ``make test`` (this file's name does not start with ``test_``, so only
naming it collects it):

    .venv/bin/python -m pytest -p no:cacheprovider -q tests/e2e/screenshots.py

Tables of 2, 3 and 4 players in the middle of a hand, seen by a seated player, at 360
(a phone's first screen, 640 px high) and 1280 px wide, in the light and the dark theme:
12 PNGs of the browser's viewport in docs/screenshots/
(table-<players>p-<width>-<theme>.png), recompressed losslessly by Debian's ``optipng``
when it is installed (``apt-get install optipng``). Beside them, at the same widths and
themes, a lesson of /learn/ just after a wrong move (lesson-<width>-<theme>.png) and
/tv/ showing a live table of four (tv-<width>-<theme>.png).
"""

from __future__ import annotations

import random
import shutil
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from bench.processes import ROOT
from games import services
from games.engine import Play, Rules, move_to_json
from tests.e2e.pages import log_in
from tests.factories import make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

OUT = ROOT / "docs" / "screenshots"
NAMES = ["ola", "janek", "kasia", "tomek"]
VIEWPORTS = {360: (360, 640), 1280: (1280, 800)}
# Lossless (the same pixels in fewer bytes). Levels above -o2 try many more filter
# strategies, at several times the time, for no smaller file on these flat pictures.
OPTIPNG = ["-quiet", "-o2", "-strip", "all"]


def optimise(png: Path) -> None:
    """Recompress ``png`` in place with optipng, if the machine has it (a docs step: the
    tests need no optimiser)."""
    optipng = shutil.which("optipng")
    if optipng is not None:
        subprocess.run([optipng, *OPTIPNG, str(png)], check=True)


def table_in_play(players: int) -> tuple[int, str]:
    """A table of ``players`` people in its second hand (the first lost on time, so that
    a letter shows), some moves in, mostly plays, so that the pile holds cards. Returns
    the table's id and the name of the player to move, who looks at it."""
    users = [make_user(f"{name}_{players}") for name in NAMES[:players]]
    table = services.table_create(
        owner=users[0],
        name=f"Evening table of {players}",
        rules=Rules(),
        seats=players,
        base_seconds=600,
        increment_seconds=5,
    )
    for user in users[1:]:
        services.table_sit(table_id=table.pk, user=user)
    match = services.match_start(table_id=table.pk, by=users[0])
    first = match.hands.get()
    services.execute(services.Timeout(hand_id=first.pk), now=first.deadline + timedelta(seconds=1))
    services.match_next_hand(match_id=match.pk, after_number=1)  # or the worker did
    hand = match.hands.get(number=2)
    by_seat = {p.seat: p.user for p in match.players.all()}
    chance = random.Random(players)
    for step in range(4 + 2 * players):
        state = hand.engine_state
        moves = state.legal_moves()
        plays = sorted((m for m in moves if isinstance(m, Play)), key=lambda m: len(m.cards))
        move = plays[0] if plays and (step < 3 or chance.random() < 0.8) else moves[-1]
        services.execute(
            services.move_action(
                move_to_json(move),
                hand_id=hand.pk,
                version=hand.version,
                user=by_seat[state.to_move],
            )
        )
        hand.refresh_from_db()
    return table.pk, by_seat[hand.engine_state.to_move].username


@pytest.mark.parametrize("players", [2, 3, 4])
def test_screenshots(site, browser: Browser, players: int):
    OUT.mkdir(parents=True, exist_ok=True)
    table_id, viewer = table_in_play(players)
    for width, (w, h) in VIEWPORTS.items():
        for theme in ("light", "dark"):
            context = browser.new_context(
                locale="en-GB", viewport={"width": w, "height": h}, color_scheme=theme
            )
            page = context.new_page()
            log_in(page, site.url, viewer)
            page.goto(f"{site.url}/tables/{table_id}/")
            expect(page.locator("#conn-state.on")).to_have_count(1)
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
            # The table and the hand fill the view: the page starts at the table's name
            # on a wide screen; a phone's first screen holds them as it is.
            if width > 600:
                page.evaluate(
                    "window.scrollTo(0, document.querySelector('.table-head h1')"
                    ".getBoundingClientRect().top + window.scrollY - 8)"
                )
            page.mouse.move(0, 0)
            shot = OUT / f"table-{players}p-{width}-{theme}.png"
            page.screenshot(path=shot)
            context.close()
            optimise(shot)


def _each_view(browser: Browser) -> Iterator[tuple[Page, str]]:
    """A fresh page at each width and theme, with the name its screenshot ends in."""
    for width, (w, h) in VIEWPORTS.items():
        for theme in ("light", "dark"):
            context = browser.new_context(
                locale="en-GB", viewport={"width": w, "height": h}, color_scheme=theme
            )
            page = context.new_page()
            yield page, f"{width}-{theme}"
            context.close()


def _shoot(page: Page, name: str, *, scroll_to: str) -> None:
    """The viewport as docs/screenshots/<name>.png, a wide screen scrolled to ``scroll_to``."""
    if page.viewport_size["width"] > 600:
        page.locator(scroll_to).evaluate(
            "el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8)"
        )
    page.mouse.move(0, 0)
    shot = OUT / f"{name}.png"
    page.screenshot(path=shot)
    optimise(shot)


def test_screenshots_of_a_lesson(site, browser: Browser):
    OUT.mkdir(parents=True, exist_ok=True)
    for page, name in _each_view(browser):
        page.goto(f"{site.url}/learn/equal-or-higher/")
        page.locator('#my-hand [data-card="AS"]').click()  # explained: keep the ace
        expect(page.get_by_test_id("lesson-wrong")).to_be_visible()
        _shoot(page, f"lesson-{name}", scroll_to=".learn-lesson h1")


def test_screenshots_of_tv(site, browser: Browser):
    OUT.mkdir(parents=True, exist_ok=True)
    table_id, _viewer = table_in_play(4)
    for page, name in _each_view(browser):
        page.goto(f"{site.url}/tv/")
        expect(page.get_by_test_id("tv-table-link")).to_have_attribute(
            "href", f"/tables/{table_id}/"
        )
        expect(page.locator("#pile [data-card]").first).to_be_visible()
        _shoot(page, f"tv-{name}", scroll_to="main h1")


def test_puzzle_screenshots(site, browser: Browser):
    """A puzzle of the demo set (the data file's first) as a signed-in player finds it,
    before his answer, at 360 and 1280 px in both themes: puzzle-<width>-<theme>.png,
    the whole page (on a phone the question, the pile and the hand take two screens)."""
    import json

    from puzzles.models import Puzzle
    from puzzles.services import DATA_FILE, puzzles_load

    OUT.mkdir(parents=True, exist_ok=True)
    puzzles_load()
    first = json.loads(DATA_FILE.read_text())[0]["content_hash"]
    puzzle = Puzzle.objects.get(content_hash=first)
    solver = make_user("ola_solves")
    for width, (w, h) in VIEWPORTS.items():
        for theme in ("light", "dark"):
            context = browser.new_context(
                locale="en-GB", viewport={"width": w, "height": h}, color_scheme=theme
            )
            page = context.new_page()
            log_in(page, site.url, solver.username)
            page.goto(f"{site.url}/puzzles/{puzzle.pk}/")
            expect(page.get_by_test_id("my-hand")).to_be_visible()
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
            # The position as it stands: no card lifted by the keyboard's focus.
            page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
            page.mouse.move(0, 0)
            shot = OUT / f"puzzle-{width}-{theme}.png"
            page.screenshot(path=shot, full_page=True)
            context.close()
            optimise(shot)
