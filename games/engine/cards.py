"""Cards: codes, internal ids and display labels (RULES §1).

The public API speaks card *codes*: rank then suit, suits ``S H D C``
(``9H``, ``10S``, ``QD``, ``AS``) and the jokers ``X1`` and ``X2``.

Inside the engine a card is a small int, its *id*::

    id = rank_index * 4 + suit_index       for ordinary cards
    rank_index: 0 for 2, 1 for 3, ..., 8 for 10, 9 J, 10 Q, 11 K, 12 A
    suit_index: 0 S, 1 H, 2 D, 3 C
    id 52 = X1, id 53 = X2                  for the jokers

so ``id >> 2`` is the rank and ``id & 3`` the suit, and a set of cards is an
int bitmask with bit ``id`` set for each card. The canonical order of a deck
is ascending id (``9S 9H 9D 9C 10S … AC X1 X2`` for the 24-card deck).
"""

from __future__ import annotations

__all__ = [
    "JOKER_CODES",
    "RANK_LABELS",
    "SUITS",
    "SUIT_SYMBOLS",
    "card_code",
    "card_label",
    "card_rank_label",
    "is_spade",
    "parse_card",
    "rank_label",
    "unknown_card_sentence",
]

RANK_LABELS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: str = "SHDC"
SUIT_SYMBOLS: dict[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
JOKER_CODES: tuple[str, str] = ("X1", "X2")

JOKER_IDS: tuple[int, int] = (52, 53)
JOKER_MASK: int = (1 << 52) | (1 << 53)
RANK_OF_ACE: int = 12
RANK_OF_NINE: int = 7

# Lookup tables built once: code <-> id. Kept private so the only way in is
# parse_card(), which gives the clear error message.
_CODES: list[str] = [r + s for r in RANK_LABELS for s in SUITS] + list(JOKER_CODES)
_IDS: dict[str, int] = {code: i for i, code in enumerate(_CODES)}


def parse_card(code: str) -> int:
    """Return the internal id of a card code; ``ValueError`` for anything else.

    Codes are case-sensitive and exact (``"10H"``, never ``"TH"`` or ``"9h"``).
    Whether the card belongs to a given table's deck is checked by the caller
    that knows the rules.
    """
    try:
        return _IDS[code]
    except (KeyError, TypeError):
        raise ValueError(unknown_card_sentence(code)) from None


def unknown_card_sentence(code: object) -> str:
    """What :func:`parse_card` says of something that is no card code."""
    return (
        f"unknown card code {code!r}: expected a rank (2-10, J, Q, K, A) followed by "
        "a suit (S, H, D, C), e.g. '9H' or '10S', or a joker 'X1'/'X2'"
    )


def card_code(card_id: int) -> str:
    """Return the code of an internal card id (inverse of :func:`parse_card`)."""
    return _CODES[card_id]


def card_label(code: str) -> str:
    """Return the label the site shows for a card: ``9♥``, ``10♠``, ``Joker``."""
    card_id = parse_card(code)
    if card_id >= 52:
        return "Joker"
    return RANK_LABELS[card_id >> 2] + SUIT_SYMBOLS[SUITS[card_id & 3]]


def card_rank_label(code: str) -> str | None:
    """Return the rank part of a card code (``"10"`` for ``10S``), None for a joker."""
    card_id = parse_card(code)
    return None if card_id >= 52 else RANK_LABELS[card_id >> 2]


def rank_label(rank_index: int) -> str:
    """Return the label of an internal rank index (0 → ``"2"``, 12 → ``"A"``)."""
    return RANK_LABELS[rank_index]


def is_spade(code: str) -> bool:
    """True for a spade; a joker is not a spade (RULES §1)."""
    card_id = parse_card(code)
    return card_id < 52 and card_id & 3 == 0


def ids_to_mask(ids: tuple[int, ...] | list[int]) -> int:
    mask = 0
    for card_id in ids:
        mask |= 1 << card_id
    return mask


def mask_to_ids(mask: int) -> list[int]:
    """Ids of the set bits of ``mask``, ascending (the canonical order)."""
    ids = []
    while mask:
        low = mask & -mask
        ids.append(low.bit_length() - 1)
        mask ^= low
    return ids


def mask_to_codes(mask: int) -> list[str]:
    return [_CODES[i] for i in mask_to_ids(mask)]
