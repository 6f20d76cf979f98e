"""/rules/ teaches every section and option with drawn examples, in both languages, and
every place that shows a table's options links each of them to its section there."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext as _

from games.engine import Rules
from games.selectors import CardView, card_sort_key
from games.teaching import Example, rule_sections
from games.templatetags.pan import card_name
from social import services as social_services
from tests.factories import client_for, make_table, make_user
from tests.tournaments.helpers import make_tournament

pytestmark = pytest.mark.django_db


def _page(language: str) -> str:
    client = client_for()
    client.cookies["django_language"] = language
    return client.get("/rules/").content.decode()


def _sections(html: str) -> dict[str, str]:
    """Each section's HTML by its anchor."""
    parts = re.split(r'<section id="([a-z0-9-]+)"', html)[1:]
    return {
        anchor: body.split("</section>")[0]
        for anchor, body in zip(parts[::2], parts[1::2], strict=True)
    }


@pytest.mark.parametrize("language", ["en", "pl"])
def test_every_section_has_its_anchor_heading_link_text_and_drawn_examples(language) -> None:
    html = _page(language)
    drawn = _sections(html)
    assert list(drawn) == [s.anchor for s in rule_sections()]
    with translation.override(language):
        for section in rule_sections():
            body = drawn[section.anchor]
            title = section.title.in_language(language)
            assert f'<a href="#{section.anchor}" class="heading-link">{escape(title)}</a>' in body
            for paragraph in section.paragraphs(language):
                assert escape(paragraph) in body
            assert body.count('data-testid="rule-example"') == len(section.examples)
            for example in section.examples:
                assert escape(example.caption.in_language(language)) in body
                others = [code for hand in example.others for code in hand]
                final = example.after.final_play if example.after else None
                # (the beton is drawn face down: test_a_beton_is_drawn_face_down_as_its_text_says)
                for code in {*example.pile, *example.hand, *others, *(final or ())}:
                    name = card_name(CardView.of(code))
                    assert f'aria-label="{name[0].upper()}{name[1:]}"' in body, code


def _drawn_examples(html: str) -> list[tuple[Example, str]]:
    """Every example with its drawn figure, in page order."""
    drawn = _sections(html)
    return [
        (example, figure)
        for section in rule_sections()
        for example, figure in zip(
            section.examples,
            drawn[section.anchor].split('data-testid="rule-example"')[1:],
            strict=True,
        )
    ]


def _row(figure: str, label: str) -> str | None:
    """The cards drawn in the figure's row of ``label`` (None: no such row)."""
    found = re.search(
        rf'<span class="example-label">{re.escape(escape(label))}</span>'
        r'<span class="example-cards">(.*?)</span></div>',
        figure,
        re.DOTALL,
    )
    return found.group(1) if found else None


@pytest.mark.parametrize("language", ["en", "pl"])
def test_a_beton_is_drawn_face_down_as_its_text_says(language) -> None:
    betons = [(e, f) for e, f in _drawn_examples(_page(language)) if e.beton]
    assert betons
    with translation.override(language):
        label, back = _("His beton (face down)"), _("A card face down")
        for example, figure in betons:
            row = _row(figure, label)
            assert row is not None
            assert row.count(f'role="img" aria-label="{back}"') == len(example.beton)
            assert row.count("<svg") == len(example.beton)
            # No face: neither a rank nor a card's name.
            assert "<text" not in row
            for code in example.beton:
                assert card_name(CardView.of(code)).lower() not in row.lower()


def test_every_examples_hand_is_drawn_sorted_as_the_table_sorts_a_hand() -> None:
    checked = 0
    for example, figure in _drawn_examples(_page("en")):
        after = example.after.hand if example.after else None
        for label, hand in (("Player 1, to move", example.hand), ("His hand after", after)):
            if hand is None:
                continue
            row = _row(figure, label)
            assert row is not None, label
            names = {code: card_name(CardView.of(code)) for code in hand}
            by_name = {name[0].upper() + name[1:]: code for code, name in names.items()}
            drawn = [by_name[name] for name in re.findall(r'aria-label="([^"]+)"', row)]
            assert sorted(drawn) == sorted(hand)
            assert drawn == sorted(hand, key=card_sort_key), (label, example.caption.en)
            checked += 1
    assert checked > len(rule_sections())


def test_the_polish_page_is_all_polish() -> None:
    html = _page("pl")
    assert "Jak grać w Pana" in html or "How to play Pan" not in html
    for section in rule_sections():
        assert section.title.en not in html or section.title.en == section.title.pl
        for example in section.examples:
            assert escape(example.caption.en) not in html
    for english in ("Pile after", "Player 1, to move", "Contents", "He plays"):
        assert english not in html


RULES_LINK = re.compile(r'href="/rules/#([^"]*)"')


def _rules_links(html: str) -> list[str]:
    return RULES_LINK.findall(html)


def _check_links(html: str) -> list[str]:
    anchors = {s.anchor for s in rule_sections()}
    links = _rules_links(html)
    assert links, "no option links to /rules/"
    assert set(links) <= anchors
    assert set(links) <= set(re.findall(r'<section id="([a-z0-9-]+)"', _page("en")))
    return links


def test_a_tables_page_lists_its_options_in_words_each_linked() -> None:
    table = make_table(rules=Rules(spades_back=True, beton=2, jokers=2), name="Piki")
    html = client_for().get(table.get_absolute_url()).content.decode()
    links = _check_links(html)
    assert '<a href="/rules/#spades-back">A spade on top sends the turn back' in html
    assert '<a href="/rules/#beton">Beton: 2 face-down cards per player.</a>' in html
    assert {"deck", "jokers", "three-cards", "pickup", "voluntary-pickup"} <= set(links)
    assert {"tie-rule", "max-actions"} <= set(links)


def test_the_create_form_links_every_option_to_its_section() -> None:
    html = client_for(make_user("ola")).get(reverse("games:table_create")).content.decode()
    links = _check_links(html)
    assert len(links) == len(Rules.__dataclass_fields__)
    assert (
        '<a href="/rules/#spades-back" class="rules-link">what is this?'
        '<span class="visually-hidden"> (Spades send the turn back)</span></a>'
    ) in html


def test_the_polish_create_form_says_in_polish_what_each_link_opens() -> None:
    client = client_for(make_user("ola"))
    client.cookies["django_language"] = "pl"
    html = client.get(reverse("games:table_create")).content.decode()
    assert (
        '<a href="/rules/#spades-back" class="rules-link">co to znaczy?'
        '<span class="visually-hidden"> (Piki cofane)</span></a>'
    ) in html


def test_a_tournaments_rules_are_linked() -> None:
    tournament = make_tournament()
    html = client_for().get(tournament.get_absolute_url()).content.decode()
    assert {"three-cards", "pickup", "max-actions"} <= set(_check_links(html))


def test_a_challenge_lists_its_profiles_options_linked() -> None:
    ola, janek = make_user("ola"), make_user("janek")
    challenge = social_services.challenge_create(
        challenger=ola, challenged=janek, profile="piki_cofane"
    )
    html = client_for(janek).get(challenge.get_absolute_url()).content.decode()
    assert "spades-back" in _check_links(html)
    form = client_for(ola).get(reverse("social:challenge_new", args=["janek"])).content.decode()
    assert 'href="/rules/" class="rules-link">' in form
