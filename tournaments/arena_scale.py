"""An arena's points: the scale of places, the streak, Berserk and the tie-break.

Pure functions of the places the engine gives (``games.engine.hand_places``); the arena
format (``tournaments.formats.arena``) stores what they return, and a recount from the
hands (``arena_recount``) runs the same functions again.

**The scale.** One hand is one arena game. Going out early pays, losing never does:

=========  =====  =====  =====  =====
table       1st    2nd    3rd    4th
=========  =====  =====  =====  =====
of four      5      3      1      0
of three     4      2      0
of two       2      0
=========  =====  =====  =====  =====

Players who share places (the tie rule's final play, or those still holding cards when
a clock or the action limit ends the hand) share those places' points equally. The
scale is chosen so that every share an arena's hand can make (an arena's hands always
have a loser or a tie-rule tie) is a whole or half point.

**The streak.** A game is *good* when its place is in the better half and not shared
with a place below it: first at a table of two or three, first or second at a table of
four. After two good games in a row, each game's points are doubled until a game that
is not good; the flame on the leaderboard shows it.

**Berserk.** Before his first action a player may halve his time and give up the
increment. He then gains one point more (not doubled) if he is not last (nor shares the
last place) and made at least ``BERSERK_MIN_ACTIONS`` actions in the hand.

**The tie-break.** Points first, then the performance: the mean, over a player's games,
of his opponents' mean rating plus ``PERFORMANCE_SPREAD`` for first place down to minus
it for last, linear in between (shared places take their mean).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from games.engine import Place

__all__ = [
    "BERSERK_MIN_ACTIONS",
    "PERFORMANCE_SPREAD",
    "SCALE",
    "STREAK_LENGTH",
    "GameLine",
    "Scored",
    "game_points",
    "is_good",
    "performance",
    "place_points",
    "ranking_key",
    "score_games",
]

SCALE: dict[int, tuple[int, ...]] = {2: (2, 0), 3: (4, 2, 0), 4: (5, 3, 1, 0)}
STREAK_LENGTH = 2  # good games in a row after which points double
BERSERK_MIN_ACTIONS = 7
PERFORMANCE_SPREAD = 400


def place_points(place: Place, players: int) -> Decimal:
    """The scale's points of ``place`` at a table of ``players``: a shared place gets the
    mean of the places it spans."""
    scale = SCALE[players]
    span = scale[place.best - 1 : place.worst]
    return Decimal(sum(span)) / Decimal(len(span))


def is_good(place: Place, players: int) -> bool:
    """A place in the better half, not shared with one below it (it feeds the streak)."""
    return place.worst <= players // 2


def berserk_earns(place: Place, players: int, *, actions: int) -> bool:
    """Whether a Berserk player's game earns his extra point."""
    return place.worst < players and actions >= BERSERK_MIN_ACTIONS


@dataclass(frozen=True)
class Scored:
    """One game's points for one player, and his streak after it."""

    points: Decimal  # everything: the scale's (doubled on fire) and Berserk's point
    base: Decimal  # the scale's points of his place
    doubled: bool
    berserk_point: bool
    streak: int  # good games in a row, this one included


def game_points(
    place: Place, players: int, *, streak: int, berserk: bool = False, actions: int = 0
) -> Scored:
    """A player's points for one game, given his streak before it (good games in a
    row): doubled after ``STREAK_LENGTH`` good games, plus Berserk's point if earned."""
    base = place_points(place, players)
    doubled = streak >= STREAK_LENGTH
    points = base * 2 if doubled else base
    earned = berserk and berserk_earns(place, players, actions=actions)
    if earned:
        points += 1
    return Scored(
        points=points,
        base=base,
        doubled=doubled,
        berserk_point=earned,
        streak=streak + 1 if is_good(place, players) else 0,
    )


@dataclass(frozen=True)
class GameLine:
    """One finished game as a player played it, oldest first in a player's list."""

    place: Place
    players: int
    berserk: bool = False
    actions: int = 0
    opponents_rating: float = 0.0  # his opponents' mean rating at the game's start


def score_games(games: Iterable[GameLine]) -> tuple[Decimal, int, list[Scored]]:
    """A player's games in order: his total, his streak after them, each game scored."""
    total, streak, lines = Decimal(0), 0, []
    for game in games:
        scored = game_points(
            game.place, game.players, streak=streak, berserk=game.berserk, actions=game.actions
        )
        total += scored.points
        streak = scored.streak
        lines.append(scored)
    return total, streak, lines


def performance(games: Sequence[GameLine]) -> float | None:
    """The tie-break: over the games, the opponents' mean rating adjusted by the place,
    from +``PERFORMANCE_SPREAD`` for first to −``PERFORMANCE_SPREAD`` for last; None
    without games."""
    if not games:
        return None
    total = 0.0
    for game in games:
        middle = (game.place.best + game.place.worst) / 2
        share = 1 - 2 * (middle - 1) / (game.players - 1)
        total += game.opponents_rating + PERFORMANCE_SPREAD * share
    return total / len(games)


def ranking_key(
    points: Decimal, performance_value: float | None, rating: int, name: str
) -> tuple[Decimal, float, int, str]:
    """The leaderboard's order as a sort key: points, then performance, then the
    rating at the start (players without games), then the name."""
    return (-points, -(performance_value or 0.0), -rating, name.lower())
