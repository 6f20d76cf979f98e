"""What the bots read off cards and moves: ranks, and which moves are the same in effect.

Ranks are the engine's internal indices (``parse_card(code) >> 2``: 7 = nine,
12 = ace); a joker counts as :data:`JOKER_RANK`, above the ace, because it goes
on anything. Suits only matter to the rules through ``spades_back`` (the base
card never moves), so two plays of the same rank and size are the same move in
effect unless a spade on top sends the turn back: :func:`move_key` says so, and
the search treats such moves as one.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.engine import Move, PickUp, Play, card_code, is_spade

__all__ = [
    "JOKER_RANK",
    "RANK_OF",
    "RANK_OF_LABEL",
    "distinct_moves",
    "move_info",
    "move_infos",
    "move_key",
]

JOKER_RANK = 13

# Every code the engine knows (ids 0..53) -> its rank; built once.
RANK_OF: dict[str, int] = {card_code(i): (i >> 2 if i < 52 else JOKER_RANK) for i in range(54)}
RANK_OF_LABEL: dict[str, int] = {
    code[:-1]: rank for code, rank in RANK_OF.items() if rank != JOKER_RANK
}

# id(move) -> (move, info). Keyed by id because a Play's own hash is a Python
# method, too slow for rollouts; keeping the move in the value keeps it alive,
# so its id cannot be reused by another object while the entry exists. The
# engine's legal moves are shared instances, so the cache stays small; moves
# parsed from JSON are new objects each time, hence the bound. Safe across
# threads (Celery may run bots in threads): each entry is written whole, and a
# lost or cleared entry only costs recomputing it. Results never depend on it.
_INFO: dict[int, tuple[Move, tuple[int, int, int, bool]]] = {}
_INFO_LIMIT = 50_000


def move_info(move: Move) -> tuple[int, int, int, bool]:
    """``(key, rank, size, spade_on_top)`` of a play or pick-up.

    For a play: the rank of its cards (:data:`JOKER_RANK` for a joker), the
    number of cards laid, whether its top card is a spade. For a pick-up:
    rank -1 and the number of cards taken. ``key`` is :func:`move_key`.
    """
    entry = _INFO.get(id(move))
    if entry is None or entry[0] is not move:
        if isinstance(move, Play):
            top = move.cards[-1]
            rank, size, spade = RANK_OF[top], len(move.cards), is_spade(top)
            key = (size * 16 + rank) * 2 + spade
        elif isinstance(move, PickUp):
            rank, size, spade = -1, move.count, False
            key = -size
        else:
            raise TypeError(f"bots never choose {move!r}")
        if len(_INFO) >= _INFO_LIMIT:
            _INFO.clear()
        info = (key, rank, size, spade)
        _INFO[id(move)] = (move, info)
        return info
    return entry[1]


def move_key(move: Move, spades_back: bool) -> int:
    """An int equal for moves that are the same in effect.

    Plays of one rank and size are the same unless ``spades_back`` is on,
    where the suit of the top card matters too; pick-ups differ by count.
    """
    key = move_info(move)[0]
    if not spades_back and key >= 0:
        return key & ~1
    return key


def move_infos(legal: Sequence[Move]) -> list[tuple[int, int, int, bool]]:
    """:func:`move_info` of each move, in order (one call for a whole list: rollouts need speed)."""
    get = _INFO.get
    infos = []
    for move in legal:
        entry = get(id(move))
        infos.append(entry[1] if entry is not None and entry[0] is move else move_info(move))
    return infos


def distinct_moves(legal: Sequence[Move], spades_back: bool) -> dict[int, Move]:
    """The first of each set of moves that are the same in effect, by :func:`move_key`."""
    found: dict[int, Move] = {}
    get = _INFO.get
    mask = -1 if spades_back else ~1
    for move in legal:
        entry = get(id(move))
        key = entry[1][0] if entry is not None and entry[0] is move else move_info(move)[0]
        if key >= 0:
            key &= mask
        if key not in found:
            found[key] = move
    return found
