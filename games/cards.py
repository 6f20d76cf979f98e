"""Cards in words, in the active language, as the table shows them: ``9♥``, ``Joker``.

Free of models, so that what is imported while the models load (the refusals of moves)
may name cards too."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.engine import card_label


def card_in_words(code: str) -> str:
    """A card as the table shows it, in the active language: ``9♥``, ``Joker``."""
    return _("Joker") if code.startswith("X") else card_label(code)


def cards_in_words(codes: list[str] | tuple[str, ...]) -> str:
    """Cards as the table shows them, in the active language: ``K♠ Q♦ Q♣``."""
    return " ".join(card_in_words(c) for c in codes)
