"""The replay of a long hand: the page draws the step shown from the steps' data, and what
it shows at a step is the position the hand's JSON rebuilds."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from django.utils.text import capfirst
from playwright.sync_api import Page, expect

from games.engine import Rules, replay
from games.selectors import CardView, card_sort_key
from games.templatetags.pan import card_name
from tests.games.test_analysis import finished_hand

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MOVE_FIELDS = {"play": ("cards",), "pickup": ("count",)}  # of an action's entry in the JSON


def test_stepping_through_a_long_hand_shows_the_position_of_its_json(site, page: Page):
    hand = finished_hand(players=4, rules=Rules(deck=52, jokers=2, max_actions=150))
    page.goto(f"{site.url}/hands/{hand.pk}/")
    data = page.request.get(f"{site.url}/hands/{hand.pk}.json").json()
    steps = len(data["actions"]) + 1
    position = page.locator(".replay-position")
    # The counter counts as the steps are numbered: the deal is step 0.
    expect(position).to_have_text(f"0 / {steps - 1}")
    expect(page.locator("[data-part=text]")).to_have_text(re.compile(r"^0\. "))
    shows_position(page, data, 0)
    assert page.evaluate("document.querySelectorAll('*').length") < 500

    for _ in range(3):
        page.locator(".replay-controls [data-step='1']").click()
    page.keyboard.press("ArrowRight")
    shows_position(page, data, 4)
    for _ in range(steps):  # on to the end, and no further
        page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"{steps - 1} / {steps - 1}")
    expect(page.locator("[data-part=text]")).to_have_text(re.compile(rf"^{steps - 1}\. "))
    shows_position(page, data, steps - 1)
    page.locator(".replay-controls [data-step='-1']").click()
    shows_position(page, data, steps - 2)


def shows_position(page: Page, data: dict, step: int) -> None:
    """The one frame shown is ``step``'s: every player's cards, named as a screen reader
    hears them, and the pile's top cards are those of the hand rebuilt from its JSON."""
    moves = [
        {"type": a["type"], **{key: a[key] for key in MOVE_FIELDS.get(a["type"], ())}}
        for a in data["actions"][:step]
        if not a.get("auto")
    ]
    state = replay(Rules.from_json(data["rules"]), len(data["players"]), data["dealer"],
                   data["seed"], moves)  # fmt: skip
    frame = page.locator(".replay-frame")
    expect(frame).to_have_count(1)
    expect(frame).to_have_attribute("data-frame", str(step))
    expect(frame.locator("[data-part=text]")).to_contain_text(f"{step}. ")
    hands = frame.locator("[data-part=hand]")
    expect(hands).to_have_count(len(data["players"]))
    for seat in range(len(data["players"])):
        cards = sorted(state.hand(seat), key=card_sort_key)
        expect(hands.nth(seat).locator("svg.card")).to_have_count(len(cards))
        assert hands.nth(seat).locator("svg.card").evaluate_all(
            "cards => cards.map(c => c.getAttribute('aria-label'))"
        ) == names(cards)
    pile = frame.locator("[data-part=pile] svg.card")
    assert pile.evaluate_all("cards => cards.map(c => c.getAttribute('aria-label'))") == names(
        list(state.pile[-8:])
    )
    expect(frame.locator("[data-part=pile-text]")).to_contain_text(f"{len(state.pile)} card")


def names(codes: list[str]) -> list[str]:
    with translation.override("en"):
        return [capfirst(card_name(CardView.of(code))) for code in codes]
