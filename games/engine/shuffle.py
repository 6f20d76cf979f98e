"""The verifiable shuffle and the seed commitment.

The engine never draws randomness itself: the site makes a seed (e.g.
``secrets.token_hex(32)``, 64 hex characters) and the engine turns it into a
shuffle that is the same on every machine and Python version.

Shuffle algorithm (``shuffled_deck``)
-------------------------------------
1. Start from the deck in canonical order: ranks ascending, suits
   ``S H D C`` within a rank, then ``X1 X2`` (``Rules.deck_codes()``), e.g.
   ``9S 9H 9D 9C 10S 10H … AD AC``.
2. Random words: for ``counter = 0, 1, 2, …`` take
   ``SHA-256(f"{seed}:{counter}".encode("utf-8"))`` (counter in decimal) and
   split each 32-byte digest into eight unsigned 32-bit big-endian words,
   used in order.
3. Fisher–Yates from the end: for ``i = len(deck) - 1`` down to ``1``, let
   ``n = i + 1`` and ``limit = (2**32 // n) * n``; take words until one,
   ``w``, is below ``limit`` (rejection sampling, so no index is favoured);
   ``j = w % n``; swap ``deck[i]`` and ``deck[j]``.

The deal (RULES §2, done by ``deal``) then reads this shuffled list from
the front; see ``games.engine.hand`` for who gets which position.

A 15-line script reproduces it::

    import hashlib
    def shuffle(seed, deck):
        deck, words, counter = list(deck), [], 0
        for i in range(len(deck) - 1, 0, -1):
            n = i + 1
            limit = (2**32 // n) * n
            while True:
                if not words:
                    d = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
                    words = [int.from_bytes(d[k:k + 4], "big") for k in range(0, 32, 4)]
                    counter += 1
                w = words.pop(0)
                if w < limit:
                    break
            j = w % n
            deck[i], deck[j] = deck[j], deck[i]
        return deck

Commitment (``seed_commitment``)
--------------------------------
Before a hand the site may publish ``seed_commitment(seed, salt)`` =
hex ``SHA-256(f"{salt}:{seed}".encode("utf-8"))`` and reveal ``seed`` and
``salt`` after it; anyone can then recompute the commitment and the shuffle.
The salt may not contain ``:`` so the message splits one way only (at its
first colon): otherwise ``salt="a:b", seed="c"`` and ``salt="a", seed="b:c"``
would share a commitment and the site could choose afterwards between two
shuffles.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator

__all__ = ["seed_commitment", "shuffled_deck", "verify_commitment"]

_MAX_SEED_LENGTH = 1000


def check_seed(seed: str) -> None:
    """``ValueError`` unless ``seed`` is a usable seed (a non-empty string)."""
    if not isinstance(seed, str) or not seed:
        raise ValueError(f"a seed must be a non-empty string, not {seed!r}")
    if len(seed) > _MAX_SEED_LENGTH:
        raise ValueError(f"a seed may have at most {_MAX_SEED_LENGTH} characters")


def _words(seed: str) -> Iterator[int]:
    counter = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k : k + 4], "big")
        counter += 1


def shuffled_deck(seed: str, deck: list[int] | list[str]) -> list:
    """Return a new list: ``deck`` shuffled by the seed (algorithm in the module docstring)."""
    check_seed(seed)
    cards = list(deck)
    words = _words(seed)
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        limit = (2**32 // n) * n
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % n
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def seed_commitment(seed: str, salt: str) -> str:
    """Hex SHA-256 of ``f"{salt}:{seed}"`` in UTF-8; ``salt`` must not contain ``:``."""
    check_seed(seed)
    if not isinstance(salt, str) or ":" in salt:
        raise ValueError(f"a salt must be a string without ':', not {salt!r}")
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def verify_commitment(commitment: str, seed: str, salt: str) -> bool:
    """True if ``commitment`` is ``seed_commitment(seed, salt)`` (constant-time compare)."""
    try:
        expected = seed_commitment(seed, salt)
    except ValueError:
        return False
    if not isinstance(commitment, str):
        return False
    return hmac.compare_digest(expected, commitment.lower())
