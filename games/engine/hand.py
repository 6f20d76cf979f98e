"""One hand of Pan: dealing, legal moves, applying moves, views, JSON, replay.

``HandState`` is immutable: ``apply`` returns a new state or raises
``IllegalMove``; ``outcome`` is None until the hand ends.

Dealing (``deal``; RULES §2)
----------------------------
The deck is shuffled by ``games.engine.shuffle.shuffled_deck(seed, deck)``
(SHA-256 in counter mode + Fisher–Yates, documented there). Then, with ``n``
players, ``B`` the beton size and positions counted from 0 in the shuffled
list:

- position ``k`` goes to seat ``(dealer + 1 + k) % n``: dealing starts left
  of the dealer, one card at a time, clockwise;
- positions ``0 … B*n - 1`` are the betons, the rest the hands (so the
  betons are dealt first, and an uneven deck gives its extra cards to the
  first players dealt to);
- the base card never lies in a beton: if it falls at beton position ``p``,
  it swaps places with position ``B*n + (p % n)``, the first hand card of
  the same player, so the same player holds it (in hand) and that hand card
  goes into his beton instead.

The holder of the base card moves first (RULES §3).

Performance: cards are ints (see ``games.engine.cards``), a hand or beton is
an int bitmask, the pile a tuple of ids, moves are interned objects with
precomputed masks, legal moves come from tables built once per ``Rules``,
and states are built without ``__init__``. The history is a linked list of
tuples so that recording an action costs O(1).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NoReturn

from games.engine.cards import (
    JOKER_MASK,
    RANK_OF_ACE,
    card_code,
    mask_to_codes,
    parse_card,
    rank_label,
)
from games.engine.moves import (
    JOKER_RANK,
    TIMEOUT,
    Illegal,
    IllegalMove,
    Move,
    PickUp,
    Play,
    Timeout,
    move_from_json,
    move_to_json,
)
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from games.engine.shuffle import shuffled_deck

__all__ = ["REASONS", "HandState", "HistoryEntry", "Outcome", "Reason", "deal", "replay"]

STATE_FORMAT = 1


class Reason(StrEnum):
    """Why a hand ended; its value is what the JSON of an outcome holds."""

    LAST_PLAYER = "last_player"
    """One player is left holding cards and loses (RULES §6)."""
    FINAL_PLAY_TIE = "final_play_tie"
    """The last player emptied his hand with the automatic final play: a tie (RULES §6)."""
    TIMEOUT = "timeout"
    """The player to move ran out of time and loses (RULES §8)."""
    MAX_ACTIONS = "max_actions"
    """The hand reached its action limit: a tie, or the most cards lose (RULES §6)."""
    ABORTED = "aborted"
    """Stopped from outside the rules (a moderator, a tournament): nobody loses."""


REASONS: tuple[Reason, ...] = tuple(Reason)

_AUTO = True  # history marker of the automatic final play
_BIT = [1 << i for i in range(54)]
_ACE_MASK = 0xF << (RANK_OF_ACE * 4)


# ---------------------------------------------------------------------------
# Outcome and history records


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a hand ended (RULES §6, §8).

    ``loser`` is the seat that gets a letter, or None for a tie; ``reason``
    is a :class:`Reason` (given as its value, it is made one). ``final_play`` /
    ``final_seat`` record the automatic final play that made a tie (None
    otherwise).
    """

    loser: int | None
    tie: bool
    reason: Reason
    final_play: Play | None = None
    final_seat: int | None = None

    def __post_init__(self) -> None:
        if self.reason.__class__ is not Reason:
            object.__setattr__(self, "reason", Reason(self.reason))

    def to_json(self) -> dict[str, Any]:
        """``{"loser", "tie", "reason", "final_play": {"seat", "cards"} | None}``."""
        return {
            "loser": self.loser,
            "tie": self.tie,
            "reason": self.reason.value,
            "final_play": None
            if self.final_play is None
            else {"seat": self.final_seat, "cards": list(self.final_play.cards)},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        """Inverse of :meth:`to_json`; ``ValueError`` if malformed."""
        if not isinstance(data, dict) or set(data) != {"loser", "tie", "reason", "final_play"}:
            raise ValueError(f"malformed outcome: {data!r}")
        if data["reason"] not in REASONS:
            raise ValueError(f"unknown outcome reason {data['reason']!r}")
        final = data["final_play"]
        if final is None:
            return cls(data["loser"], bool(data["tie"]), data["reason"])
        return cls(
            data["loser"],
            bool(data["tie"]),
            data["reason"],
            _interned_play(tuple(final["cards"])),
            final["seat"],
        )


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One public action: ``seat`` did ``move``.

    ``cards``: for a play, the cards laid (last on top); for a pick-up, the
    cards taken, bottom to top as they lay; empty for a timeout. ``auto`` is
    True for the automatic final play of a tie (RULES §6).
    """

    seat: int
    move: Move
    cards: tuple[str, ...]
    auto: bool = False

    def to_json(self) -> dict[str, Any]:
        """The move's JSON plus ``seat``; pick-ups add ``cards``, the final play ``auto``."""
        data: dict[str, Any] = {"seat": self.seat, **move_to_json(self.move)}
        if isinstance(self.move, PickUp):
            data["cards"] = list(self.cards)
        if self.auto:
            data["auto"] = True
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HistoryEntry:
        """Inverse of :meth:`to_json`; ``ValueError`` if malformed."""
        if not isinstance(data, dict):
            raise ValueError(f"a history entry must be a JSON object, not {data!r}")
        rest = dict(data)
        seat = rest.pop("seat", None)
        auto = rest.pop("auto", False)
        cards = rest.pop("cards", None) if rest.get("type") == "pickup" else None
        if type(seat) is not int:
            raise ValueError(f"a history entry needs an int 'seat': {data!r}")
        move = move_from_json(rest)
        if isinstance(move, Play):
            cards = move.cards
        elif isinstance(move, PickUp):
            if not isinstance(cards, list) or len(cards) != move.count:
                raise ValueError(f"a pick-up entry lists the {move.count} cards taken: {data!r}")
            for code in cards:
                parse_card(code)
            cards = tuple(cards)
        else:
            cards = ()
        return cls(seat, move, cards, bool(auto))


def _interned_play(codes: tuple[str, ...]) -> Play:
    return Play._of_ids(Play(codes)._ids)


def _hist_to_entries(hist: tuple | None, limit: int | None = None) -> list[HistoryEntry]:
    """The entries of a history chain, oldest first; with ``limit``, only the latest ones."""
    cells = []
    while hist is not None and (limit is None or len(cells) < limit):
        cells.append(hist)
        hist = hist[0]
    entries = []
    for _, seat, move, extra in reversed(cells):
        if move.__class__ is PickUp:
            entries.append(HistoryEntry(seat, move, tuple(card_code(i) for i in extra)))
        elif move.__class__ is Play:
            entries.append(HistoryEntry(seat, move, move.cards, extra is _AUTO))
        else:
            entries.append(HistoryEntry(seat, move, ()))
    return entries


class _HistoryJson:
    """The JSON of history chains lately written, by chain (``to_json``, ``public_view``).

    A hand's state is written whole at every move, and its history is most of it: late
    in a hand, building every entry's JSON anew would be most of a move's cost. A chain
    only grows (a move puts a new cell before the one it had), so the JSON of the chain a
    move extends is found here and only the new entries are built. Keyed by the cell's
    identity (a tuple's hash would walk the whole chain), each entry keeping its cell.
    """

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._lists: dict[int, tuple[tuple, list[dict[str, Any]]]] = {}

    def entries(self, hist: tuple | None) -> list[dict[str, Any]]:
        """A new list of the chain's entries as JSON, oldest first (the dicts are shared:
        never edit them)."""
        newer: list[tuple] = []
        cell, base = hist, None
        while cell is not None:
            known = self._lists.get(id(cell))
            if known is not None and known[0] is cell:
                base = known[1]
                break
            newer.append(cell)
            cell = cell[0]
        built = list(base) if base is not None else []
        for entry in _hist_to_entries(hist, limit=len(newer)) if newer else ():
            built.append(entry.to_json())
        if hist is not None and newer:
            if len(self._lists) >= self.size:
                self._lists.clear()  # a process's tables start again from their next move
            self._lists[id(hist)] = (hist, built)
        return list(built)


_HISTORY_JSON = _HistoryJson()


def _entries_to_hist(entries: Iterable[HistoryEntry | dict]) -> tuple | None:
    hist = None
    for entry in entries:
        if isinstance(entry, dict):
            entry = HistoryEntry.from_json(entry)
        if not isinstance(entry, HistoryEntry):
            raise ValueError(f"not a history entry: {entry!r}")
        move = entry.move
        if isinstance(move, Play):
            extra = _AUTO if entry.auto else None
            move = Play._of_ids(move._ids)
        elif isinstance(move, PickUp):
            extra = tuple(parse_card(c) for c in entry.cards)
            move = PickUp._of(move.count)
        else:
            extra = None
            move = TIMEOUT
        hist = (hist, entry.seat, move, extra)
    return hist


# ---------------------------------------------------------------------------
# Tables precomputed once per Rules


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


class _Tables:
    """Everything about a ``Rules`` that the hot path needs, computed once."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.lowest = lowest = rules.lowest_rank
        self.base = parse_card(rules.base_card)
        self.base_rank = self.base >> 2
        self.spades_back = rules.spades_back
        self.voluntary = rules.voluntary_pickup
        self.three_cards = rules.three_cards
        self.pickup = rules.pickup
        self.max_actions = rules.max_actions
        self.most_cards = rules.max_actions_result == "most_cards"
        self.aces_only = rules.tie_rule == "aces_only"
        self.shift = lowest * 4
        self.ge = [sum(0xF << (4 * k) for k in range(max(r, lowest), 13)) for r in range(13)]
        sb = self.spades_back

        def play(ids: tuple[int, ...]) -> Play:
            return Play._of_ids(ids)

        def cards_of(rank: int, nib: int) -> tuple[int, ...]:
            return tuple(rank * 4 + s for s in range(4) if nib >> s & 1)

        # threes[rank][nib]: the plays of three cards for a nibble with exactly three bits.
        self.threes = [[()] * 16 for _ in range(13)]
        for rank in range(lowest, 13):
            for nib in range(16):
                if nib.bit_count() == 3:
                    ids = cards_of(rank, nib)
                    self.threes[rank][nib] = tuple(play(o) for o in _set_orders(ids, sb))

        def rank_plays(rank: int, nib: int) -> tuple[Play, ...]:
            plays = [play((i,)) for i in cards_of(rank, nib)]
            if self.three_cards == "any" and nib.bit_count() >= 3:
                for sub in range(16):
                    if sub.bit_count() == 3 and sub & nib == sub:
                        plays += self.threes[rank][sub]
            if nib == 15:
                plays += [play(o) for o in _set_orders(cards_of(rank, 15), sb)]
            return tuple(plays)

        # chunks[c][byte]: plays from two ranks at once, read from the hand mask byte by byte.
        self.chunks = []
        for first in range(lowest, 13, 2):
            table = []
            for byte in range(256):
                plays = rank_plays(first, byte & 15)
                if first + 1 < 13:
                    plays += rank_plays(first + 1, byte >> 4)
                elif byte >> 4:
                    plays = ()
                table.append(plays)
            self.chunks.append(tuple(table))
        self.chunks = tuple(self.chunks)

        jokers = [play((52,)), play((53,))]
        self.joker_plays = ((), (jokers[0],), (jokers[1],), tuple(jokers))

        base_nib_others = 0xF & ~(1 << (self.base & 3))
        self.nines_nib = base_nib_others
        self.opening_single = (play((self.base,)),)
        self.opening_with_four = self.opening_single + tuple(
            play(o) for o in _set_orders(cards_of(self.base_rank, 15), sb, keep_bottom=self.base)
        )

        # pickups[k]: the pick-ups allowed with k cards above the base card (RULES §4.4).
        self.pickups = [()]
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

        self.moves = self._make_moves()

    def plays(self, h: int, pile: tuple[int, ...], top_rank: int) -> tuple[Play, ...]:
        """Every legal play for hand ``h`` on ``pile`` (no pick-ups)."""
        return self.moves(h, pile, top_rank, False)

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
        voluntary = self.voluntary
        three_chunks = len(chunks) == 3
        c0, c1, c2 = chunks[:3]

        def moves(
            h: int, pile: tuple[int, ...], top_rank: int, with_pickups: bool = True
        ) -> tuple[Move, ...]:
            if not pile:
                if (h >> base_rank_shift) & 15 == 15:
                    return opening_with_four
                return opening_single
            m = (h & ge[top_rank]) >> shift
            if three_chunks:
                found = c0[m & 255] + c1[(m >> 8) & 255] + c2[m >> 16]
            else:
                found = ()
                for table in chunks:
                    found += table[m & 255]
                    m >>= 8
            above_base = len(pile) - 1
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
def _tables(rules: Rules) -> _Tables:
    # Bounded: max_actions alone makes thousands of distinct Rules possible. States keep
    # their tables, so an evicted entry only costs a rebuild for a new state.
    return _Tables(rules)


def _next_to_act(hands: list[int], p: int, n: int, spades_back: bool, top: int) -> int:
    """Who acts after seat ``p`` (RULES §5): the next player clockwise who still holds
    cards; with ``spades_back`` and a spade on top, the previous one instead, and with
    only two players holding cards, ``p`` himself again (if he still holds any)."""
    if spades_back and top < 52 and not top & 3:
        if hands[p]:
            holders = 0
            for x in hands:
                if x:
                    holders += 1
            if holders == 2:
                return p
        nxt = (p - 1) % n
        while not hands[nxt]:
            nxt = (nxt - 1) % n
        return nxt
    nxt = (p + 1) % n
    while not hands[nxt]:
        nxt = (nxt + 1) % n
    return nxt


def _top_rank_of(pile: Sequence[int]) -> int:
    """The rank a play must match: the top card's, or for a joker the card it covers."""
    for card_id in reversed(pile):
        if card_id < 52:
            return card_id >> 2
    return -1


# ---------------------------------------------------------------------------
# The state


class _Slots:
    __slots__ = (
        "_actions",
        "_betons",
        "_dealer",
        "_hands",
        "_hist",
        "_legal",
        "_n",
        "_outcome",
        "_pile",
        "_t",
        "_to_move",
        "_top_rank",
    )


class _Builder(_Slots):
    """Same layout as HandState but assignable; turned into a HandState when built."""

    __slots__ = ()


_new = object.__new__
_set_legal = _Slots._legal.__set__  # type: ignore[attr-defined]


class HandState(_Slots):
    """An immutable position of one hand.

    Build one with :func:`deal`, :meth:`from_position`, :meth:`from_json`
    or :func:`replay`; move on with :meth:`apply` / :meth:`timeout`.
    """

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("HandState is immutable: apply() returns a new state")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("HandState is immutable")

    # -- read-only properties ---------------------------------------------

    @property
    def rules(self) -> Rules:
        """The table's options."""
        return self._t.rules

    @property
    def players(self) -> int:
        """Number of seats (2-4)."""
        return self._n

    @property
    def dealer(self) -> int | None:
        """The seat that dealt (None for a position built without one)."""
        return self._dealer

    @property
    def to_move(self) -> int:
        """The seat whose turn it is (after the end: the seat that had it)."""
        return self._to_move

    @property
    def pile(self) -> tuple[str, ...]:
        """The pile, bottom (the base card) to top."""
        return tuple(card_code(i) for i in self._pile)

    @property
    def top(self) -> str | None:
        """The top card of the pile (None before the opening)."""
        return card_code(self._pile[-1]) if self._pile else None

    @property
    def top_rank(self) -> str | None:
        """The rank the next play must reach: the top's, or the one a joker on top covers."""
        return rank_label(self._top_rank) if self._pile else None

    @property
    def hand_counts(self) -> tuple[int, ...]:
        """Cards in each seat's hand (public)."""
        return tuple(h.bit_count() for h in self._hands)

    @property
    def beton_counts(self) -> tuple[int, ...]:
        """Unrevealed beton cards of each seat (public)."""
        return tuple(b.bit_count() for b in self._betons)

    @property
    def action_count(self) -> int:
        """Plays and pick-ups made so far (the automatic final play is not counted)."""
        return self._actions

    @property
    def history(self) -> tuple[HistoryEntry, ...]:
        """Every action so far, oldest first, with the automatic final play if any."""
        return tuple(_hist_to_entries(self._hist))

    def recent_history(self, limit: int) -> tuple[HistoryEntry, ...]:
        """The last ``limit`` entries of ``history``, oldest first, without building the
        others (a table shows the latest few after every move)."""
        return tuple(_hist_to_entries(self._hist, limit=limit))

    @property
    def history_length(self) -> int:
        """``len(history)``, without building the entries."""
        length, hist = 0, self._hist
        while hist is not None:
            length += 1
            hist = hist[0]
        return length

    def history_since(self, count: int) -> tuple[HistoryEntry, ...]:
        """``history[count:]`` (what happened after the first ``count`` entries), building
        only those entries: a move adds one or two to a history of hundreds."""
        newer = max(0, self.history_length - max(0, count))
        return tuple(_hist_to_entries(self._hist, limit=newer)) if newer else ()

    @property
    def outcome(self) -> Outcome | None:
        """None while the hand is on; how it ended afterwards."""
        return self._outcome

    @property
    def is_over(self) -> bool:
        """True once the hand has an outcome."""
        return self._outcome is not None

    @property
    def holding(self) -> tuple[bool, ...]:
        """For each seat: does it still hold cards (hand or beton)?"""
        return tuple(h != 0 for h in self._hands)

    def hand(self, seat: int) -> tuple[str, ...]:
        """The cards in ``seat``'s hand, canonical order (secret: not for other seats)."""
        return tuple(mask_to_codes(self._hands[seat]))

    def beton(self, seat: int) -> tuple[str, ...]:
        """The unrevealed beton of ``seat`` (secret from everyone, the owner included)."""
        return tuple(mask_to_codes(self._betons[seat]))

    # -- moves --------------------------------------------------------------

    def legal_moves(self) -> tuple[Move, ...]:
        """Every legal move of the player to move; empty once the hand is over.

        Plays (singles, threes per ``three_cards``, fours, jokers, the
        opening of RULES §3) then pick-ups per ``pickup`` and
        ``voluntary_pickup``. When several cards go down at once, one order is
        listed (ascending suit), or with ``spades_back`` one per possible top
        card (the others ascending beneath it); ``apply`` accepts any order of
        the same cards.
        """
        moves = self._legal
        if moves is None:
            # States made by apply() carry their moves already; others compute them once here.
            if self._outcome is None:
                moves = self._t.moves(self._hands[self._to_move], self._pile, self._top_rank)
            else:
                moves = ()
            _set_legal(self, moves)
        return moves

    def apply(self, move: Move) -> HandState:
        """Return the state after the player to move makes ``move``.

        Raises ``IllegalMove`` (a ``ValueError``) whose ``code`` says which
        rule forbids it (and its message names the rule); ``TypeError`` if
        ``move`` is not a move at all.
        """
        if self._outcome is not None:
            raise IllegalMove(Illegal.HAND_OVER)
        if move.__class__ is not Play:
            if move.__class__ is PickUp:
                return self._apply_pickup(move)  # type: ignore[arg-type]
            if move.__class__ is Timeout:
                return self.timeout()
            raise TypeError(f"not a move: {move!r}")
        # The play path is inlined here: it is the engine's hottest code.
        p = self._to_move
        hands = self._hands
        h = hands[p]
        mask = move._mask
        if h & mask != mask:
            raise IllegalMove(Illegal.NOT_HELD, cards=tuple(mask_to_codes(mask & ~h)))
        pile = self._pile
        rank = move._rank
        if not pile:
            self._check_opening(move)
        elif move._n == 1:
            if rank < self._top_rank and rank != JOKER_RANK:
                raise IllegalMove(Illegal.CARD_TOO_LOW, card=rank_label(rank), **self._top_params())
        else:
            self._check_set(move)

        h ^= mask
        new_hands = hands.copy()
        betons = self._betons
        if not h and betons[p]:
            # RULES §2: an empty hand takes up the beton at once.
            h = betons[p]
            betons = betons.copy()
            betons[p] = 0
        new_hands[p] = h
        new_pile = pile + move._ids
        if rank == JOKER_RANK:
            rank = self._top_rank
        t = self._t
        hist = (self._hist, p, move, None)
        actions = self._actions + 1

        if not h:
            holders = 0
            for x in new_hands:
                if x:
                    holders += 1
            if holders == 1:
                return self._finish_last_player(new_hands, betons, new_pile, rank, actions, hist)
        n = self._n
        nxt = _next_to_act(new_hands, p, n, t.spades_back, move._top)

        s = _new(_Builder)
        s._t = t
        s._n = n
        s._dealer = self._dealer
        s._hands = new_hands
        s._betons = betons
        s._pile = new_pile
        s._top_rank = rank
        s._to_move = nxt
        s._actions = actions
        s._hist = hist
        if actions < t.max_actions:
            s._outcome = None
            s._legal = t.moves(new_hands[nxt], new_pile, rank)
        else:
            s._outcome = self._cut_off(new_hands, betons, nxt)
            s._legal = ()
        s.__class__ = HandState
        return s  # type: ignore[return-value]

    def timeout(self) -> HandState:
        """The player to move ran out of time: he loses the hand at once (RULES §8)."""
        if self._outcome is not None:
            raise IllegalMove(Illegal.HAND_OVER)
        p = self._to_move
        return self._child(
            self._hands,
            self._betons,
            self._pile,
            self._top_rank,
            p,
            self._actions,
            (self._hist, p, TIMEOUT, None),
            Outcome(p, False, Reason.TIMEOUT),
        )

    def abort(self) -> HandState:
        """The hand stopped where it stands, from outside the rules (a moderator, a
        tournament): over, a tie, nobody loses (``Reason.ABORTED``). Not a move: the
        history gets no entry, the cards stay where they are."""
        if self._outcome is not None:
            raise IllegalMove(Illegal.HAND_OVER)
        return self._child(
            self._hands,
            self._betons,
            self._pile,
            self._top_rank,
            self._to_move,
            self._actions,
            self._hist,
            Outcome(None, True, Reason.ABORTED),
        )

    def _child(
        self,
        hands: list[int],
        betons: list[int],
        pile: tuple[int, ...],
        top_rank: int,
        to_move: int,
        actions: int,
        hist: tuple,
        outcome: Outcome | None,
    ) -> HandState:
        s = _new(_Builder)
        s._t = self._t
        s._n = self._n
        s._dealer = self._dealer
        s._hands = hands
        s._betons = betons
        s._pile = pile
        s._top_rank = top_rank
        s._to_move = to_move
        s._actions = actions
        s._hist = hist
        s._outcome = outcome
        s._legal = () if outcome is not None else self._t.moves(hands[to_move], pile, top_rank)
        s.__class__ = HandState
        return s  # type: ignore[return-value]

    def _apply_pickup(self, move: PickUp) -> HandState:
        t = self._t
        pile = self._pile
        k = len(pile) - 1
        if k <= 0:
            if not pile:
                raise IllegalMove(Illegal.PICKUP_BEFORE_OPENING)
            raise IllegalMove(Illegal.PICKUP_BASE_ONLY)
        count = move.count
        if count not in t.pickup_counts[k]:
            self._refuse_pickup(count, k)
        p = self._to_move
        hands = self._hands
        h = hands[p]
        if not t.voluntary and t.plays(h, pile, self._top_rank):
            raise IllegalMove(Illegal.PICKUP_NOT_VOLUNTARY)
        taken = pile[-count:]
        new_pile = pile[:-count]
        for card_id in taken:
            h |= _BIT[card_id]
        new_hands = hands.copy()
        new_hands[p] = h
        top = new_pile[-1]
        top_rank = top >> 2 if top < 52 else _top_rank_of(new_pile)
        n = self._n
        nxt = _next_to_act(new_hands, p, n, t.spades_back, top)
        actions = self._actions + 1

        s = _new(_Builder)
        s._t = t
        s._n = n
        s._dealer = self._dealer
        s._hands = new_hands
        s._betons = self._betons
        s._pile = new_pile
        s._top_rank = top_rank
        s._to_move = nxt
        s._actions = actions
        s._hist = (self._hist, p, move, taken)
        if actions < t.max_actions:
            s._outcome = None
            s._legal = t.moves(new_hands[nxt], new_pile, top_rank)
        else:
            s._outcome = self._cut_off(new_hands, self._betons, nxt)
            s._legal = ()
        s.__class__ = HandState
        return s  # type: ignore[return-value]

    # -- rule checks that only run on the slow (refusing) paths or for sets --

    def _top_params(self) -> dict[str, Any]:
        """The top's rank for a refusal, and whether a joker on top stands for it."""
        return {"top": rank_label(self._top_rank), "joker_on_top": self._pile[-1] >= 52}

    def _check_opening(self, move: Play) -> None:
        t = self._t
        ids = move._ids
        if ids == (t.base,) or (move._n == 4 and move._rank == t.base_rank and ids[0] == t.base):
            return
        raise IllegalMove(
            Illegal.OPENING, base=card_code(t.base), base_rank=rank_label(t.base_rank)
        )

    def _check_set(self, move: Play) -> None:
        n = move._n
        if n == 2:
            raise IllegalMove(Illegal.TWO_CARDS)
        if n > 4:
            raise IllegalMove(Illegal.TOO_MANY_CARDS, count=n)
        if move._mask & JOKER_MASK:
            raise IllegalMove(Illegal.JOKER_IN_SET)
        rank = move._rank
        if rank < 0:
            raise IllegalMove(Illegal.MIXED_RANKS)
        label = rank_label(rank)
        if n == 4:
            if rank < self._top_rank:
                raise IllegalMove(Illegal.FOUR_TOO_LOW, rank=label, **self._top_params())
            return
        t = self._t
        option = t.three_cards
        if option == "nines":
            if len(self._pile) != 1 or rank != t.base_rank:
                raise IllegalMove(
                    Illegal.THREE_NOT_BASE_RANK, rank=label, base_rank=rank_label(t.base_rank)
                )
        elif option == "match":
            if rank != self._top_rank:
                raise IllegalMove(Illegal.THREE_NOT_TOP_RANK, rank=label, **self._top_params())
        elif rank < self._top_rank:
            raise IllegalMove(Illegal.THREE_TOO_LOW, rank=label, **self._top_params())

    def _refuse_pickup(self, count: int, k: int) -> NoReturn:
        if k <= 3:
            raise IllegalMove(Illegal.PICKUP_TAKES_ALL, count=count, above=k)
        raise IllegalMove(Illegal.PICKUP_COUNT, count=count, above=k, pickup=self._t.pickup)

    # -- endings --------------------------------------------------------------

    def _finish_last_player(
        self,
        hands: list[int],
        betons: list[int],
        pile: tuple[int, ...],
        top_rank: int,
        actions: int,
        hist: tuple,
    ) -> HandState:
        """RULES §6: one player holds cards; his final play makes a tie, else he lost."""
        t = self._t
        last = next(i for i, h in enumerate(hands) if h)
        h = hands[last]
        final = None
        if not betons[last]:
            if t.aces_only:
                if h & ~_ACE_MASK == 0 and h.bit_count() in (1, 4):
                    final = next(m for m in t.plays(h, pile, top_rank) if m._mask == h)
            else:
                final = next((m for m in t.plays(h, pile, top_rank) if m._mask == h), None)
        if final is None:
            outcome = Outcome(last, False, Reason.LAST_PLAYER)
            return self._child(hands, betons, pile, top_rank, last, actions, hist, outcome)
        hands = hands.copy()
        hands[last] = 0
        pile += final._ids
        if final._rank >= 0:
            top_rank = final._rank
        outcome = Outcome(None, True, Reason.FINAL_PLAY_TIE, final, last)
        hist = (hist, last, final, _AUTO)
        return self._child(hands, betons, pile, top_rank, last, actions, hist, outcome)

    def _cut_off(self, hands: list[int], betons: list[int], to_move: int) -> Outcome:
        """RULES §6 max_actions: a tie, or the most cards (hand + beton) loses."""
        if not self._t.most_cards:
            return Outcome(None, True, Reason.MAX_ACTIONS)
        n = self._n
        best, loser = -1, to_move
        for i in range(n):
            seat = (to_move + i) % n
            count = hands[seat].bit_count() + betons[seat].bit_count()
            if count > best:
                best, loser = count, seat
        return Outcome(loser, False, Reason.MAX_ACTIONS)

    # -- equality ------------------------------------------------------------

    def _key(self) -> tuple:
        return (
            self._t.rules,
            self._n,
            self._dealer,
            tuple(self._hands),
            tuple(self._betons),
            self._pile,
            self._to_move,
            self._actions,
            tuple(_hist_to_entries(self._hist)),
            self._outcome,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandState):
            return NotImplemented
        return self is other or self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"<HandState players={self._n} to_move={self._to_move} top={self.top}"
            f" actions={self._actions} hands={list(self.hand_counts)} outcome={self._outcome}>"
        )

    # -- views (RULES §10) ---------------------------------------------------

    def public_view(self) -> dict[str, Any]:
        """What every player and spectator may see (RULES §10), JSON-ready."""
        return {
            "players": self._n,
            "dealer": self._dealer,
            "rules": self._t.rules.to_json(),
            "hand_counts": list(self.hand_counts),
            "beton_counts": list(self.beton_counts),
            "pile": list(self.pile),
            "top": self.top,
            "top_rank": self.top_rank,
            "to_move": self._to_move,
            "action_count": self._actions,
            "history": _HISTORY_JSON.entries(self._hist),
            "outcome": None if self._outcome is None else self._outcome.to_json(),
        }

    def view_for(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: the public view plus his own hand and legal moves.

        His beton is in ``hand`` only once revealed (it then is his hand);
        ``legal_moves`` is empty unless it is his turn.
        """
        return {**self.public_view(), **self.private_view(seat)}

    def private_view(self, seat: int) -> dict[str, Any]:
        """What only ``seat`` may see, beside the public view: his hand and legal moves.

        A viewer's whole view is ``{**public_view(), **private_view(seat)}``; a server
        that shows many viewers builds the public view once and adds each one's part.
        """
        if type(seat) is not int or not 0 <= seat < self._n:
            raise ValueError(f"no seat {seat!r} at a table of {self._n}")
        return {
            "seat": seat,
            "hand": list(self.hand(seat)),
            "legal_moves": (
                [move_to_json(m) for m in self.legal_moves()] if seat == self._to_move else []
            ),
        }

    # -- JSON ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole state (secret cards included) as a JSON-ready dict."""
        return {
            "format": STATE_FORMAT,
            "rules": self._t.rules.to_json(),
            "players": self._n,
            "dealer": self._dealer,
            "hands": [mask_to_codes(h) for h in self._hands],
            "betons": [mask_to_codes(b) for b in self._betons],
            "pile": list(self.pile),
            "to_move": self._to_move,
            "action_count": self._actions,
            "history": _HISTORY_JSON.entries(self._hist),
            "outcome": None if self._outcome is None else self._outcome.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandState:
        """Rebuild the exact state written by :meth:`to_json`."""
        if not isinstance(data, dict):
            raise ValueError("a hand state must be a JSON object")
        expected = {
            "format",
            "rules",
            "players",
            "dealer",
            "hands",
            "betons",
            "pile",
            "to_move",
            "action_count",
            "history",
            "outcome",
        }
        if set(data) != expected:
            raise ValueError(f"a hand state has the keys {sorted(expected)}, not {sorted(data)}")
        if data["format"] != STATE_FORMAT:
            raise ValueError(f"unknown hand state format {data['format']!r}")
        outcome = None if data["outcome"] is None else Outcome.from_json(data["outcome"])
        state = _build(
            rules=Rules.from_json(data["rules"]),
            hands=data["hands"],
            betons=data["betons"],
            pile=data["pile"],
            to_move=data["to_move"],
            action_count=data["action_count"],
            history=data["history"],
            dealer=data["dealer"],
            outcome=outcome,
        )
        if state._n != data["players"]:
            raise ValueError("'players' does not match the number of hands")
        return state

    # -- building positions ------------------------------------------------------

    @classmethod
    def from_position(
        cls,
        *,
        rules: Rules,
        hands: Sequence[Iterable[str]],
        betons: Sequence[Iterable[str]] | None = None,
        pile: Iterable[str] = (),
        to_move: int,
        action_count: int = 0,
        history: Iterable[HistoryEntry | dict] = (),
        dealer: int | None = None,
    ) -> HandState:
        """A mid-hand position, for tests and for bots' determinisations.

        ``hands``/``betons``: card codes per seat (a seat with no cards is
        out); ``pile`` bottom to top, empty before the opening. Cards missing
        from all of them are simply not in play. ``history`` (entries or their
        JSON) is recorded as given, not checked against the position.

        Raises ``ValueError`` if the position cannot occur: unknown or
        repeated cards, the base card anywhere but the bottom of the pile (or
        in the opener's hand before the opening), a beton behind an empty
        hand, fewer than two seats holding cards, ``to_move`` holding none,
        ``action_count`` outside ``0 … max_actions - 1``.
        """
        return _build(
            rules=rules,
            hands=hands,
            betons=betons,
            pile=pile,
            to_move=to_move,
            action_count=action_count,
            history=history,
            dealer=dealer,
            outcome=None,
        )

    @classmethod
    def from_view(
        cls,
        view: dict[str, Any],
        *,
        hands: Sequence[Iterable[str] | None],
        betons: Sequence[Iterable[str]] | None = None,
    ) -> HandState:
        """A full state from ``view_for(seat)`` plus a guess of the unknown cards.

        ``hands[i]`` are the guessed cards of seat ``i`` (``None`` for the
        viewer's own seat: taken from the view), ``betons[i]`` the guessed
        unrevealed betons. The counts must match the view's.
        """
        seat = view.get("seat")
        rules = Rules.from_json(view["rules"])
        full_hands = []
        for i, guess in enumerate(hands):
            cards = list(view["hand"]) if i == seat and guess is None else list(guess or ())
            if len(cards) != view["hand_counts"][i]:
                raise ValueError(
                    f"seat {i} holds {view['hand_counts'][i]} cards, the guess has {len(cards)}"
                )
            full_hands.append(cards)
        full_betons = [list(b) for b in betons] if betons is not None else [[] for _ in hands]
        for i, cards in enumerate(full_betons):
            if len(cards) != view["beton_counts"][i]:
                raise ValueError(
                    f"seat {i} has {view['beton_counts'][i]} beton cards, the guess"
                    f" has {len(cards)}"
                )
        return cls.from_position(
            rules=rules,
            hands=full_hands,
            betons=full_betons,
            pile=view["pile"],
            to_move=view["to_move"],
            action_count=view["action_count"],
            history=view["history"],
            dealer=view.get("dealer"),
        )


def _build(
    *,
    rules: Rules,
    hands: Sequence[Iterable[str]],
    betons: Sequence[Iterable[str]] | None,
    pile: Iterable[str],
    to_move: int,
    action_count: int,
    history: Iterable[HistoryEntry | dict],
    dealer: int | None,
    outcome: Outcome | None,
) -> HandState:
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules, not {rules!r}")
    t = _tables(rules)
    n = len(hands)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"Pan is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
    if betons is None:
        betons = [() for _ in range(n)]
    if len(betons) != n:
        raise ValueError(f"{n} hands but {len(betons)} betons")
    seen: set[int] = set()

    def card_ids(codes: Iterable[str], where: str) -> list[int]:
        if isinstance(codes, str):
            raise ValueError(f"{where}: give a list of card codes, not the string {codes!r}")
        ids = []
        for code in codes:
            if not rules.contains(code):
                raise ValueError(f"{where}: {code} is not a card of this table's deck")
            card_id = parse_card(code)
            if card_id in seen:
                raise ValueError(f"{where}: {code} is in the position twice")
            seen.add(card_id)
            ids.append(card_id)
        return ids

    hand_masks = [_mask(card_ids(h, f"hand of seat {i}")) for i, h in enumerate(hands)]
    beton_masks = [_mask(card_ids(b, f"beton of seat {i}")) for i, b in enumerate(betons)]
    pile_ids = tuple(card_ids(pile, "pile"))
    if type(to_move) is not int or not 0 <= to_move < n:
        raise ValueError(f"to_move must be a seat 0..{n - 1}, not {to_move!r}")
    if dealer is not None and (type(dealer) is not int or not 0 <= dealer < n):
        raise ValueError(f"dealer must be a seat 0..{n - 1} or None, not {dealer!r}")
    base = t.base
    if pile_ids:
        if pile_ids[0] != base:
            raise ValueError(f"the pile starts with the base card {card_code(base)}")
    elif outcome is None and not hand_masks[to_move] >> base & 1:
        raise ValueError(
            f"before the opening the player to move holds the base card {card_code(base)}"
        )
    if any(b >> base & 1 for b in beton_masks):
        raise ValueError(f"the base card {card_code(base)} is never in a beton")
    for i in range(n):
        if beton_masks[i] and not hand_masks[i]:
            raise ValueError(f"seat {i} has a beton behind an empty hand: it would be revealed")
    if type(action_count) is not int or action_count < 0:
        raise ValueError(f"action_count must be an int >= 0, not {action_count!r}")
    if outcome is None:
        if sum(1 for h in hand_masks if h) < 2:
            raise ValueError("fewer than two seats hold cards: the hand would be over")
        if not hand_masks[to_move]:
            raise ValueError(f"seat {to_move} is to move but holds no cards")
        if action_count >= rules.max_actions:
            raise ValueError(
                f"action_count {action_count} reached max_actions: the hand would be over"
            )
    elif not isinstance(outcome, Outcome):
        raise ValueError(f"not an outcome: {outcome!r}")
    s = _new(_Builder)
    s._t = t
    s._n = n
    s._dealer = dealer
    s._hands = hand_masks
    s._betons = beton_masks
    s._pile = pile_ids
    s._top_rank = _top_rank_of(pile_ids)
    s._to_move = to_move
    s._actions = action_count
    s._hist = _entries_to_hist(history)
    s._outcome = outcome
    s._legal = None
    s.__class__ = HandState
    return s  # type: ignore[return-value]


def _mask(ids: Iterable[int]) -> int:
    mask = 0
    for card_id in ids:
        mask |= 1 << card_id
    return mask


# ---------------------------------------------------------------------------
# Deal and replay


def deal(rules: Rules, players: int, dealer: int, seed: str) -> HandState:
    """Shuffle by ``seed`` and deal a new hand (algorithm in the module docstring).

    Raises ``ValueError`` for a bad player count (see
    ``Rules.validate_for_players``), dealer seat or seed.
    """
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules, not {rules!r}")
    rules.validate_for_players(players)
    if type(dealer) is not int or not 0 <= dealer < players:
        raise ValueError(f"the dealer must be a seat 0..{players - 1}, not {dealer!r}")
    t = _tables(rules)
    deck = shuffled_deck(seed, rules.deck_ids())
    in_betons = rules.beton * players
    pos = deck.index(t.base)
    if pos < in_betons:
        swap = in_betons + pos % players
        deck[pos], deck[swap] = deck[swap], deck[pos]
    hands = [0] * players
    betons = [0] * players
    for k, card_id in enumerate(deck):
        seat = (dealer + 1 + k) % players
        if k < in_betons:
            betons[seat] |= 1 << card_id
        else:
            hands[seat] |= 1 << card_id
    opener = next(i for i, h in enumerate(hands) if h >> t.base & 1)
    s = _new(_Builder)
    s._t = t
    s._n = players
    s._dealer = dealer
    s._hands = hands
    s._betons = betons
    s._pile = ()
    s._top_rank = -1
    s._to_move = opener
    s._actions = 0
    s._hist = None
    s._outcome = None
    s._legal = None
    s.__class__ = HandState
    return s  # type: ignore[return-value]


def replay(
    rules: Rules,
    players: int,
    dealer: int,
    seed: str,
    moves: Iterable[Move | dict[str, Any]],
) -> HandState:
    """Deal from the inputs and apply ``moves`` (moves or their JSON) in order.

    A timeout is the move ``Timeout()`` / ``{"type": "timeout"}``. The
    automatic final play is not a move: ``apply`` makes it. Raises
    ``IllegalMove`` naming the index of the first move that cannot be applied.
    """
    state = deal(rules, players, dealer, seed)
    for index, move in enumerate(moves):
        if isinstance(move, dict):
            move = move_from_json(move)
        try:
            state = state.apply(move)
        except IllegalMove as exc:
            raise exc.at_move(index, move) from exc
    return state
