"""Cards in words, in the active language: as the table shows them (``9♥``, ``Joker``)
and as a screen reader should say them (``nine of hearts``).

Free of models, so that what is imported while the models load (the refusals of moves)
may name cards too."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

from games.engine import card_label


def card_in_words(code: str) -> str:
    """A card as the table shows it, in the active language: ``9♥``, ``Joker``."""
    return _("Joker") if code.startswith("X") else card_label(code)


def cards_in_words(codes: list[str] | tuple[str, ...]) -> str:
    """Cards as the table shows them, in the active language: ``K♠ Q♦ Q♣``."""
    return " ".join(card_in_words(c) for c in codes)


RANK_NAMES = {
    "2": pgettext_lazy("card", "two"),
    "3": pgettext_lazy("card", "three"),
    "4": pgettext_lazy("card", "four"),
    "5": pgettext_lazy("card", "five"),
    "6": pgettext_lazy("card", "six"),
    "7": pgettext_lazy("card", "seven"),
    "8": pgettext_lazy("card", "eight"),
    "9": pgettext_lazy("card", "nine"),
    "10": pgettext_lazy("card", "ten"),
    "J": pgettext_lazy("card", "jack"),
    "Q": pgettext_lazy("card", "queen"),
    "K": pgettext_lazy("card", "king"),
    "A": pgettext_lazy("card", "ace"),
}
SUIT_NAMES = {
    "S": pgettext_lazy("card", "spades"),
    "H": pgettext_lazy("card", "hearts"),
    "D": pgettext_lazy("card", "diamonds"),
    "C": pgettext_lazy("card", "clubs"),
}


def card_spoken(code: str) -> str:
    """A card as a screen reader should say it: 'queen of hearts' (the site shows 'Q♥',
    which reads as 'Q black heart suit')."""
    if code.startswith("X"):
        return pgettext("card", "joker")
    return _("%(rank)s of %(suit)s") % {"rank": RANK_NAMES[code[:-1]], "suit": SUIT_NAMES[code[-1]]}


def cards_spoken(codes: list[str] | tuple[str, ...]) -> str:
    """Cards as a screen reader should say them: 'king of spades, queen of diamonds'."""
    return ", ".join(card_spoken(c) for c in codes)
