"""One hand of Pan: the state, its legal moves, applying them, and how it ends.

``HandState`` is immutable: ``apply`` returns a new state or raises
``IllegalMove``; ``outcome`` is None until the hand ends. Its stored form is
``games.engine.codec`` and what a seat sees of it ``games.engine.views``: the
state's ``to_json``, ``from_json``, ``public_view``, ``private_view``,
``view_for`` and ``from_view`` are theirs.

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

Inside, cards are ints (see ``games.engine.cards``), a hand or beton is an
int bitmask, the pile a tuple of ids, moves are interned objects with
precomputed masks, legal moves come from the tables of
``games.engine.tables``, and the history is a chain of cells
(``games.engine.records``) so that recording an action costs one tuple.
Every state is made by one constructor, :func:`_state`, which lists the
state's legal moves at once: whoever holds a state is about to ask for them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from games.engine.cards import (
    JOKER_MASK,
    RANK_OF_ACE,
    card_code,
    mask_to_codes,
    parse_card,
    rank_label,
)
from games.engine.codec import HistoryJson, history_json, state_fields, state_to_json
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
)
from games.engine.records import (
    AUTO,
    HistoryEntry,
    Outcome,
    Reason,
    chain_entries,
    chain_length,
    chain_of,
)
from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from games.engine.shuffle import shuffled_deck
from games.engine.tables import MoveTables, tables_for
from games.engine.views import position_from_view, private_view, public_view, view_for

__all__ = ["HandState", "deal", "replay"]

_ACE_MASK = 0xF << (RANK_OF_ACE * 4)
_BIT = tuple(1 << card_id for card_id in range(54))


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
    # The public fields are slots, read as they are (loops of play read them at every
    # move); their docstrings are here, for help(). HandState's properties give the rest.
    __slots__ = {
        "_betons": "Each seat's unrevealed beton, a mask of card ids.",
        "_hands": "Each seat's hand, a mask of card ids.",
        "_hist": "The history chain (games.engine.records).",
        "_json": "The JSON of the history or of an earlier part of it, or None.",
        "_legal": "The legal moves of the player to move.",
        "_pile": "Card ids, bottom to top.",
        "_t": "The move tables of the rules.",
        "_top_rank": "The rank the next play must reach (-1 before the opening).",
        "action_count": "Plays and pick-ups made so far (not the automatic final play).",
        "dealer": "The seat that dealt (None for a position built without one).",
        "outcome": "None while the hand is on; how it ended afterwards.",
        "players": "Number of seats (2-4).",
        "to_move": "The seat whose turn it is (after the end: the seat that had it).",
    }


class _Builder(_Slots):
    """Same layout as HandState but assignable; :func:`_state` turns it into one."""

    __slots__ = ()


_new = object.__new__
_set_json = _Slots._json.__set__  # type: ignore[attr-defined]


def _state(
    t: MoveTables,
    n: int,
    dealer: int | None,
    hands: list[int],
    betons: list[int],
    pile: tuple[int, ...],
    top_rank: int,
    to_move: int,
    actions: int,
    hist: tuple | None,
    outcome: Outcome | None,
    json: HistoryJson | None,
) -> HandState:
    """The one constructor of a ``HandState``: every state, dealt, moved to, read back or
    guessed, is made here, from fields taken as they are (the callers check them).

    ``json`` is the JSON of the history so far or of an earlier part of it (see
    :func:`games.engine.codec.history_json`), kept so that the next written history
    only builds its new entries.
    """
    s = _new(_Builder)
    s._t = t
    s.players = n
    s.dealer = dealer
    s._hands = hands
    s._betons = betons
    s._pile = pile
    s._top_rank = top_rank
    s.to_move = to_move
    s.action_count = actions
    s._hist = hist
    s.outcome = outcome
    s._json = json
    s._legal = () if outcome is not None else t.moves(hands[to_move], pile, top_rank)
    s.__class__ = HandState
    return s  # type: ignore[return-value]


class HandState(_Slots):
    """An immutable position of one hand.

    Build one with :func:`deal`, :meth:`from_position`, :meth:`from_json`,
    :meth:`from_view` or :func:`replay`; move on with :meth:`apply` / :meth:`timeout`.
    ``players``, ``dealer``, ``to_move``, ``action_count`` and ``outcome`` are read-only
    fields; the rest is read through properties and methods.
    """

    __slots__ = ()

    players: int
    dealer: int | None
    to_move: int
    action_count: int
    outcome: Outcome | None

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
    def history(self) -> tuple[HistoryEntry, ...]:
        """Every action so far, oldest first, with the automatic final play if any."""
        return tuple(chain_entries(self._hist))

    def recent_history(self, limit: int) -> tuple[HistoryEntry, ...]:
        """The last ``limit`` entries of ``history``, oldest first, without building the
        others (a table shows the latest few after every move)."""
        return tuple(chain_entries(self._hist, limit=limit))

    @property
    def history_length(self) -> int:
        """``len(history)``, without building the entries; counting only those newer than
        the history whose JSON the state keeps (``history_json``)."""
        known = self._json
        if known is None:
            return chain_length(self._hist)
        return chain_length(self._hist, known[0], len(known[1]))

    def history_since(self, count: int) -> tuple[HistoryEntry, ...]:
        """``history[count:]`` (what happened after the first ``count`` entries), building
        only those entries: a move adds one or two to a history of hundreds."""
        newer = max(0, self.history_length - max(0, count))
        return tuple(chain_entries(self._hist, limit=newer)) if newer else ()

    def history_json(self) -> list[dict[str, Any]]:
        """``[entry.to_json() for entry in history]``, a new list at each call (its dicts
        are shared between calls: never edit them).

        Kept on the state and handed on to the states that follow it, so that a
        history written at every move only builds the entries it has not written yet.
        """
        known = self._json
        if known is None or known[0] is not self._hist:
            known = history_json(self._hist, known)
            _set_json(self, known)
        return list(known[1])

    @property
    def is_over(self) -> bool:
        """True once the hand has an outcome."""
        return self.outcome is not None

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
        return self._legal

    def apply(self, move: Move) -> HandState:
        """Return the state after the player to move makes ``move``.

        Raises ``IllegalMove`` (a ``ValueError``) whose ``code`` says which
        rule forbids it (and its message names the rule); ``TypeError`` if
        ``move`` is not a move at all.
        """
        if self.outcome is not None:
            raise IllegalMove(Illegal.HAND_OVER)
        if move.__class__ is not Play:
            if move.__class__ is PickUp:
                return self._apply_pickup(move)  # type: ignore[arg-type]
            if move.__class__ is Timeout:
                return self.timeout()
            raise TypeError(f"not a move: {move!r}")
        # The play path is written out here: it is the engine's hottest code.
        p = self.to_move
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
        hist = (self._hist, p, move, None)
        actions = self.action_count + 1
        if not h and sum(1 for x in new_hands if x) == 1:
            return self._finish_last_player(new_hands, betons, new_pile, rank, actions, hist)
        t = self._t
        n = self.players
        if t.spades_back:
            nxt = _next_to_act(new_hands, p, n, True, move._top)
        else:  # _next_to_act's clockwise turn, written out for the hot path
            nxt = p + 1 if p + 1 < n else 0
            while not new_hands[nxt]:
                nxt = nxt + 1 if nxt + 1 < n else 0
        outcome = None if actions < t.max_actions else self._cut_off(new_hands, betons, nxt)
        return _state(
            t, n, self.dealer, new_hands, betons, new_pile, rank, nxt, actions, hist, outcome,
            self._json,
        )  # fmt: skip

    def timeout(self) -> HandState:
        """The player to move ran out of time: he loses the hand at once (RULES §8)."""
        if self.outcome is not None:
            raise IllegalMove(Illegal.HAND_OVER)
        p = self.to_move
        return self._next(
            self._hands,
            self._betons,
            self._pile,
            self._top_rank,
            p,
            self.action_count,
            (self._hist, p, TIMEOUT, None),
            Outcome(p, False, Reason.TIMEOUT),
        )

    def abort(self) -> HandState:
        """The hand stopped where it stands, from outside the rules (a moderator, a
        tournament): over, a tie, nobody loses (``Reason.ABORTED``). Not a move: the
        history gets no entry, the cards stay where they are."""
        if self.outcome is not None:
            raise IllegalMove(Illegal.HAND_OVER)
        return self._next(
            self._hands,
            self._betons,
            self._pile,
            self._top_rank,
            self.to_move,
            self.action_count,
            self._hist,
            Outcome(None, True, Reason.ABORTED),
        )

    def _next(
        self,
        hands: list[int],
        betons: list[int],
        pile: tuple[int, ...],
        top_rank: int,
        to_move: int,
        actions: int,
        hist: tuple | None,
        outcome: Outcome | None,
    ) -> HandState:
        """The state that follows this one at the same table with these fields."""
        return _state(
            self._t, self.players, self.dealer, hands, betons, pile, top_rank, to_move, actions,
            hist, outcome, self._json,
        )  # fmt: skip

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
        p = self.to_move
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
        n = self.players
        if t.spades_back:
            nxt = _next_to_act(new_hands, p, n, True, top)
        else:  # _next_to_act's clockwise turn, written out for the hot path
            nxt = p + 1 if p + 1 < n else 0
            while not new_hands[nxt]:
                nxt = nxt + 1 if nxt + 1 < n else 0
        actions = self.action_count + 1
        outcome = None if actions < t.max_actions else self._cut_off(new_hands, self._betons, nxt)
        hist = (self._hist, p, move, taken)
        return _state(
            t, n, self.dealer, new_hands, self._betons, new_pile, top_rank, nxt, actions, hist,
            outcome, self._json,
        )  # fmt: skip

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
            return self._next(hands, betons, pile, top_rank, last, actions, hist, outcome)
        hands = hands.copy()
        hands[last] = 0
        pile += final._ids
        if final._rank >= 0:
            top_rank = final._rank
        outcome = Outcome(None, True, Reason.FINAL_PLAY_TIE, final, last)
        hist = (hist, last, final, AUTO)
        return self._next(hands, betons, pile, top_rank, last, actions, hist, outcome)

    def _cut_off(self, hands: list[int], betons: list[int], to_move: int) -> Outcome:
        """RULES §6 max_actions: a tie, or the most cards (hand + beton) loses."""
        if not self._t.most_cards:
            return Outcome(None, True, Reason.MAX_ACTIONS)
        n = self.players
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
            self.players,
            self.dealer,
            tuple(self._hands),
            tuple(self._betons),
            self._pile,
            self.to_move,
            self.action_count,
            tuple(chain_entries(self._hist)),
            self.outcome,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandState):
            return NotImplemented
        return self is other or self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"<HandState players={self.players} to_move={self.to_move} top={self.top}"
            f" actions={self.action_count} hands={list(self.hand_counts)} outcome={self.outcome}>"
        )

    # -- views (RULES §10; games.engine.views) -------------------------------

    def public_view(self) -> dict[str, Any]:
        """What every player and spectator may see (RULES §10), JSON-ready."""
        return public_view(self)

    def view_for(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see: the public view plus his own hand and legal moves.

        His beton is in ``hand`` only once revealed (it then is his hand);
        ``legal_moves`` is empty unless it is his turn.
        """
        return view_for(self, seat)

    def private_view(self, seat: int) -> dict[str, Any]:
        """What only ``seat`` may see, beside the public view: his hand and legal moves.

        A viewer's whole view is ``{**public_view(), **private_view(seat)}``; a server
        that shows many viewers builds the public view once and adds each one's part.
        """
        return private_view(self, seat)

    # -- JSON (games.engine.codec) ---------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole state (secret cards included) as a JSON-ready dict."""
        return state_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandState:
        """Rebuild the exact state written by :meth:`to_json`."""
        fields = state_fields(data)
        players = fields.pop("players")
        state = _checked_state(**fields)
        if state.players != players:
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
        return _checked_state(
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
        return cls.from_position(**position_from_view(view, hands=hands, betons=betons))


def _checked_state(
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
    """A state from a position given from outside (card codes), once it is checked:
    ``ValueError`` if the position cannot occur (see :meth:`HandState.from_position`)."""
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a Rules, not {rules!r}")
    t = tables_for(rules)
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
    return _state(
        t, n, dealer, hand_masks, beton_masks, pile_ids, _top_rank_of(pile_ids), to_move,
        action_count, chain_of(history), outcome, None,
    )  # fmt: skip


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
    t = tables_for(rules)
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
    return _state(t, players, dealer, hands, betons, (), -1, opener, 0, None, None, None)


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
