"""The legal-move tables of a table's options: built once, read at every move.

A hand is an int bitmask of card ids (``games.engine.cards``): four bits per
rank. The plays a hand can make on a given top depend only on the bits of
the ranks at or above it, so the tables list, for every twelve bits of the
mask (three ranks), the interned plays those bits allow, and
:meth:`MoveTables.moves` reads the legal moves of a position with a few
look-ups instead of a walk over the cards. What the hot path needs of the
options (the base card, the pick-up counts, the cut-off) is read here once.

The large tables depend on a few options only (the deck, which threes, the
spades), so they are built once per combination of those and shared by
every ``Rules`` that has it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from games.engine.cards import parse_card
from games.engine.moves import Move, PickUp, Play
from games.engine.rules import Rules

__all__ = ["MoveTables", "tables_for"]

CHUNK_RANKS = 3
CHUNK_BITS = 4 * CHUNK_RANKS
CHUNK_MASK = (1 << CHUNK_BITS) - 1

Plays = tuple[Play, ...]


def _set_orders(ids: tuple[int, ...], spades_back: bool, keep_bottom: int | None = None) -> list:
    """The orders in which a set of cards is offered in ``legal_moves``.

    Without spades_back only the top card's suit could matter and it does
    not, so one canonical order (ascending suit). With spades_back, one order
    per possible top card (the others ascending beneath it).
    """
    ids = tuple(sorted(ids))
    if keep_bottom is not None:
        rest = tuple(i for i in ids if i != keep_bottom)
        if not spades_back:
            return [(keep_bottom, *rest)]
        return [(keep_bottom, *(i for i in rest if i != top), top) for top in rest]
    if not spades_back:
        return [ids]
    return [(*(i for i in ids if i != top), top) for top in ids]


def _play(ids: tuple[int, ...]) -> Play:
    return Play._of_ids(ids)


def _cards_of(rank: int, nib: int) -> tuple[int, ...]:
    return tuple(rank * 4 + s for s in range(4) if nib >> s & 1)


@functools.cache
def _threes(lowest: int, spades_back: bool) -> tuple[tuple[Plays, ...], ...]:
    """``threes[rank][nib]``: the plays of three cards for a nibble with exactly three bits."""
    threes = [[()] * 16 for _ in range(13)]
    for rank in range(lowest, 13):
        for nib in range(16):
            if nib.bit_count() == 3:
                orders = _set_orders(_cards_of(rank, nib), spades_back)
                threes[rank][nib] = tuple(_play(o) for o in orders)
    return tuple(tuple(row) for row in threes)


@functools.cache
def _chunks(lowest: int, any_threes: bool, spades_back: bool) -> tuple[tuple[Plays, ...], ...]:
    """``chunks[c][bits]``: the plays of ranks ``lowest + 3c`` to ``lowest + 3c + 2`` that a
    hand holding ``bits`` of them may make on any top below them: singles, fours, and
    with ``any_threes`` threes; each rank's in suit order, ranks ascending."""
    threes = _threes(lowest, spades_back)

    def rank_plays(rank: int, nib: int) -> Plays:
        plays = [_play((i,)) for i in _cards_of(rank, nib)]
        if any_threes and nib.bit_count() >= 3:
            for sub in range(16):
                if sub.bit_count() == 3 and sub & nib == sub:
                    plays += threes[rank][sub]
        if nib == 15:
            plays += [_play(o) for o in _set_orders(_cards_of(rank, 15), spades_back)]
        return tuple(plays)

    by_rank = {r: [rank_plays(r, nib) for nib in range(16)] for r in range(lowest, 13)}
    chunks = []
    for first in range(lowest, 13, CHUNK_RANKS):
        table = []
        for bits in range(1 << CHUNK_BITS):
            plays: Plays = ()
            for k, rank in enumerate(range(first, first + CHUNK_RANKS)):
                nib = bits >> (4 * k) & 15
                if rank < 13:
                    plays += by_rank[rank][nib]
                elif nib:  # bits above the ace: never read
                    plays = ()
                    break
            table.append(plays)
        chunks.append(tuple(table))
    return tuple(chunks)


@functools.cache
def _tails(
    lowest: int, any_threes: bool, spades_back: bool, pickups: Plays
) -> tuple[tuple[Move, ...], ...]:
    """The last of :func:`_chunks` with ``pickups`` after each entry."""
    return tuple(plays + pickups for plays in _chunks(lowest, any_threes, spades_back)[-1])


class MoveTables:
    """Everything about a ``Rules`` that the hot path needs, computed once (see
    :func:`tables_for`): the options it reads, and the plays per twelve bits of a hand."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.lowest = lowest = rules.lowest_rank
        self.base = parse_card(rules.base_card)
        self.base_rank = self.base >> 2
        self.spades_back = sb = rules.spades_back
        self.voluntary = rules.voluntary_pickup
        self.three_cards = rules.three_cards
        self.pickup = rules.pickup
        self.max_actions = rules.max_actions
        self.most_cards = rules.max_actions_result == "most_cards"
        self.aces_only = rules.tie_rule == "aces_only"
        self.shift = lowest * 4
        self.ge = [sum(0xF << (4 * k) for k in range(max(r, lowest), 13)) for r in range(13)]
        any_threes = self.three_cards == "any"
        self.threes = _threes(lowest, sb)
        self.chunks = _chunks(lowest, any_threes, sb)

        jokers = [_play((52,)), _play((53,))]
        self.joker_plays = ((), (jokers[0],), (jokers[1],), tuple(jokers))

        self.nines_nib = 0xF & ~(1 << (self.base & 3))
        self.opening_single = (_play((self.base,)),)
        self.opening_with_four = self.opening_single + tuple(
            _play(o) for o in _set_orders(_cards_of(self.base_rank, 15), sb, keep_bottom=self.base)
        )

        # pickups[k]: the pick-ups allowed with k cards above the base card (RULES §4.4).
        self.pickups: list[tuple[PickUp, ...]] = [()]
        for k in range(1, rules.deck_size + 1):
            if k <= 3:
                counts = [k]
            elif self.pickup == "three":
                counts = [3]
            elif self.pickup == "three_or_more":
                counts = list(range(3, k + 1))
            else:
                counts = [3, k]
            self.pickups.append(tuple(PickUp._of(c) for c in counts))
        self.pickup_counts = [frozenset(c.count for c in ups) for ups in self.pickups]

        # tails[k]: the last chunk with the pick-ups of k cards above the base card after
        # each entry, when those always come right after the chunks' plays (voluntary
        # pick-ups, no joker plays and no threes of the top's rank between) and take few
        # forms (pickup=three: k = 1, 2, 3 or more); else None.
        self.tails: list[tuple[tuple[Move, ...], ...]] | None = None
        if (
            self.voluntary
            and not rules.jokers
            and self.three_cards != "match"
            and len(set(self.pickups)) <= 4
        ):
            self.tails = [()] + [_tails(lowest, any_threes, sb, ups) for ups in self.pickups[1:]]

        self.moves = self._make_moves()

    def plays(self, h: int, pile: tuple[int, ...], top_rank: int) -> tuple[Play, ...]:
        """Every legal play for hand ``h`` on ``pile`` (no pick-ups)."""
        return self.moves(h, pile, top_rank, False)  # type: ignore[return-value]

    def _make_moves(self) -> Callable[..., tuple[Move, ...]]:
        """Build ``moves(h, pile, top_rank, with_pickups=True)``: the legal moves of hand ``h``.

        A closure over this table's constants, because it runs once per
        position and attribute look-ups there are measurable.
        """
        ge = self.ge
        shift = self.shift
        chunks = self.chunks
        base_rank_shift = self.base_rank * 4
        opening_single = self.opening_single
        opening_with_four = self.opening_with_four
        nines = self.three_cards == "nines"
        match = self.three_cards == "match"
        threes = self.threes
        nines_nib = self.nines_nib
        nines_plays = threes[self.base_rank][nines_nib]
        joker_plays = self.joker_plays
        pickups = self.pickups
        tails = self.tails
        voluntary = self.voluntary
        head = chunks[:-1]
        last = chunks[-1]
        last_shift = CHUNK_BITS * len(head)
        first = head[0] if len(head) == 1 else None

        def moves(
            h: int, pile: tuple[int, ...], top_rank: int, with_pickups: bool = True
        ) -> tuple[Move, ...]:
            if not pile:
                if (h >> base_rank_shift) & 15 == 15:
                    return opening_with_four
                return opening_single
            m = (h & ge[top_rank]) >> shift
            if first is not None:
                found = first[m & CHUNK_MASK]
            else:
                found = ()
                for k, table in enumerate(head):
                    found += table[(m >> (CHUNK_BITS * k)) & CHUNK_MASK]
            above_base = len(pile) - 1
            if tails is not None and above_base and with_pickups:
                return found + tails[above_base][m >> last_shift]
            found += last[m >> last_shift]
            if nines:
                if not above_base and (h >> base_rank_shift) & 15 == nines_nib:
                    found += nines_plays
            elif match:
                found += threes[top_rank][(h >> (top_rank * 4)) & 15]
            if h >> 52:
                found += joker_plays[h >> 52]
            if above_base and with_pickups and (voluntary or not found):
                found += pickups[above_base]
            return found

        return moves


@functools.lru_cache(maxsize=64)
def tables_for(rules: Rules) -> MoveTables:
    """The tables of ``rules``, shared by every state of those rules.

    Bounded: ``max_actions`` alone makes thousands of distinct ``Rules`` possible
    (their large tables are shared). A state keeps its tables, so an evicted entry
    only costs a rebuild for a new state.
    """
    return MoveTables(rules)
