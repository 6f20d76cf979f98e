"""The rules page on a phone: it reads at 360 px without scrolling sideways, passes axe
in both themes and languages, and an option's link on a table's page opens its section."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, expect

from games.engine import Rules
from tests.factories import make_table

LOCALES = {"en": "en-GB", "pl": "pl-PL"}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("language", list(LOCALES))
def test_the_rules_page_reads_on_a_phone_and_passes_axe(
    site, browser: Browser, language: str, scheme: str
) -> None:
    context = browser.new_context(
        locale=LOCALES[language], color_scheme=scheme, viewport={"width": 360, "height": 740}
    )
    page = context.new_page()
    page.goto(f"{site.url}/rules/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("#spades-back svg.card").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    violations = Axe().run(page).response["violations"]
    assert [(v["id"], [n["target"] for n in v["nodes"]]) for v in violations] == []
    context.close()


def test_an_option_on_a_tables_page_opens_its_section(site, page) -> None:
    table = make_table(rules=Rules(spades_back=True))
    page.goto(f"{site.url}/tables/{table.pk}/")
    page.get_by_role("link", name="A spade on top sends the turn back (piki cofane).").click()
    expect(page).to_have_url(f"{site.url}/rules/#spades-back")
    heading = page.get_by_role("heading", name="Spades send the turn back")
    expect(heading).to_be_in_viewport()


@pytest.mark.parametrize("width", [1280, 360])
@pytest.mark.parametrize("language", list(LOCALES))
def test_an_examples_cards_line_up_under_each_other(
    site, browser: Browser, language: str, width: int
) -> None:
    """In each example the rows of cards (the pile, each player's hand, the play, the
    pile after) start at one left edge, whatever the length of their labels."""
    context = browser.new_context(
        locale=LOCALES[language], viewport={"width": width, "height": 800}
    )
    page = context.new_page()
    page.goto(f"{site.url}/rules/")
    edges = page.locator("figure.rule-example").evaluate_all(
        """figures => figures.map(f => [...new Set([...f.querySelectorAll('.example-cards')]
            .map(row => Math.round(row.getBoundingClientRect().left)))])"""
    )
    assert edges and all(len(lefts) == 1 for lefts in edges), edges
    context.close()
