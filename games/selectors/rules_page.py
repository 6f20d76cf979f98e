"""The rules page's sections and examples (``games.teaching``) in one language, their
cards as ``CardView`` for the site's card partial."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from games.engine import PickUp, Play, Rules
from games.selectors.labels import CardView, RuleLine, card_sort_key, card_view, rules_summary
from games.teaching import Example, rule_sections

__all__ = ["ExampleView", "RuleSectionView", "rules_page"]


@dataclass(frozen=True)
class ExampleView:
    caption: str
    # The options that differ from the standard game, in words, linked to their sections.
    options: list[RuleLine]
    pile: list[CardView]
    hand: list[CardView]
    beton: list[CardView]
    # The other seats' hands, clockwise from the player to move (shown: it is an example).
    others: list[list[CardView]]
    play: list[CardView]  # the example's play, if it has one
    pickup: int  # the example's pick-up size, if it has one (else 0)
    pile_after: list[CardView] | None
    hand_after: list[CardView] | None
    to_move_after: int | None  # the player (counted from 1) whose turn comes next
    final_play: list[CardView]  # the last player's play that made a tie
    tie: bool
    loser: int | None  # the player (counted from 1) who lost the hand


@dataclass(frozen=True)
class RuleSectionView:
    anchor: str
    title: str
    paragraphs: list[str]
    examples: list[ExampleView]


def rules_page(language: str) -> list[RuleSectionView]:
    """Every rule section in ``language`` (the active one), in page order."""
    return _rules_page(language)


@functools.lru_cache(maxsize=4)
def _rules_page(language: str) -> list[RuleSectionView]:
    return [
        RuleSectionView(
            anchor=section.anchor,
            title=section.title.in_language(language),
            paragraphs=section.paragraphs(language),
            examples=[_example_view(example, language) for example in section.examples],
        )
        for section in rule_sections()
    ]


def _example_view(example: Example, language: str) -> ExampleView:
    after = example.after
    return ExampleView(
        caption=example.caption.in_language(language),
        options=_changed_options(example.rules),
        pile=_cards(example.pile, language),
        hand=_hand(example.hand, language),
        beton=_cards(example.beton, language),
        others=[_hand(hand, language) for hand in example.others],
        play=_cards(example.move.cards, language) if isinstance(example.move, Play) else [],
        pickup=example.move.count if isinstance(example.move, PickUp) else 0,
        pile_after=_cards(after.pile, language) if after and after.pile is not None else None,
        hand_after=_hand(after.hand, language) if after and after.hand is not None else None,
        to_move_after=after.to_move + 1 if after and after.to_move is not None else None,
        final_play=_cards(after.final_play, language) if after and after.final_play else [],
        tie=bool(after and after.result == "tie"),
        loser=after.loser + 1 if after and after.loser is not None else None,
    )


def _changed_options(rules: Rules) -> list[RuleLine]:
    standard = set(rules_summary(Rules()))
    return [line for line in rules_summary(rules) if line not in standard]


def _cards(codes: tuple[str, ...], language: str) -> list[CardView]:
    return [card_view(code, language) for code in codes]


def _hand(codes: tuple[str, ...], language: str) -> list[CardView]:
    """A hand in the order the table shows one, whatever order the data lists it in."""
    return _cards(tuple(sorted(codes, key=card_sort_key)), language)
