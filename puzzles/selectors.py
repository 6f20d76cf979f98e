"""What the puzzle pages show, as plain data in the active language.

Before an attempt a page is built from :func:`puzzle_board`, which reads only what the
solver may see (his cards, his legal moves, the pile, the counts, the public history):
never the solutions, the chances or the themes. Those are read only by
:func:`attempt_report`, after the attempt.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Count, F, Func, Q, QuerySet
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.bots.features import move_key
from games.cards import cards_in_words
from games.engine import Rules, move_from_json
from games.models import RATING_MU
from games.ratings import display_rating
from games.selectors import (
    CardView,
    RuleLine,
    card_sort_key,
    describe_action,
    pickup_label,
    rules_summary,
)
from games.selectors.labels import card_view
from puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating
from puzzles.themes import theme, themes

__all__ = [
    "AttemptReport",
    "HistoryRow",
    "PuzzleBoard",
    "attempt_history",
    "attempt_report",
    "daily_puzzle",
    "earlier_report",
    "next_puzzle",
    "puzzle_board",
    "puzzle_rating",
    "theme_choices",
]

PILE_SHOWN = 8
ACTIONS_SHOWN = 4


class _Abs(Func):
    function = "ABS"


def puzzle_rating(user: User | None) -> int | None:
    """The user's shown puzzle rating (a newcomer's is 1500), None for a visitor."""
    if user is None or not user.is_authenticated:
        return None
    rating = PuzzleRating.objects.filter(user=user).first()
    return display_rating(rating.mu if rating is not None else RATING_MU)


def _of_theme(key: str) -> Q:
    """Puzzles of the theme ``key``. A JSON list's containment is PostgreSQL's alone
    (the embedded mode's SQLite has none), so the key is found as its JSON string in
    the list's text; no theme's key holds another's between quotes."""
    return Q(themes__icontains=f'"{key}"')


@dataclass(frozen=True)
class ThemeChoice:
    """A theme in the active language and how many puzzles have it."""

    key: str
    name: str
    description: str
    count: int


def theme_choices() -> list[ThemeChoice]:
    """Every theme, in the finder's order, with its puzzles counted (one query)."""
    counts = Puzzle.objects.aggregate(
        **{t.key: Count("pk", filter=_of_theme(t.key)) for t in themes()}
    )
    language = translation.get_language()
    return [
        ThemeChoice(
            t.key, t.name.in_language(language), t.description.in_language(language), counts[t.key]
        )
        for t in themes()
    ]


def next_puzzle(
    *, user: User | None, tried: Iterable[int] = (), theme_key: str | None = None
) -> Puzzle | None:
    """The puzzle rated nearest the user's puzzle rating among those he has not tried
    (a visitor: nearest a newcomer's, leaving out ``tried``), of the theme ``theme_key``
    if one is given, or None when none is left."""
    mu = RATING_MU
    puzzles: QuerySet[Puzzle] = Puzzle.objects.exclude(pk__in=list(tried))
    if theme_key is not None:
        puzzles = puzzles.filter(_of_theme(theme_key))
    if user is not None and user.is_authenticated:
        rating = PuzzleRating.objects.filter(user=user).first()
        mu = rating.mu if rating is not None else RATING_MU
        puzzles = puzzles.exclude(tries__user=user)
    return puzzles.annotate(distance=_Abs(F("mu") - mu)).order_by("distance", "pk").first()


def daily_puzzle(*, today: date) -> Puzzle | None:
    """The day's puzzle: the same for everyone all day, from the date alone."""
    count = Puzzle.objects.count()
    if not count:
        return None
    return Puzzle.objects.order_by("pk")[today.toordinal() % count]


@dataclass(frozen=True)
class MoveButton:
    value: str  # the form's value: card codes joined by commas, or a pick-up's count
    label: str


@dataclass(frozen=True)
class Opponent:
    name: str
    hand_count: int
    beton_count: int


@dataclass(frozen=True)
class PuzzleBoard:
    """The position as the solver sees it, and his moves; nothing of the answer."""

    puzzle_id: int
    cards: list[CardView]
    playable: frozenset[str]
    first: str  # the card holding the hand's tab stop: the first that may be played
    sets: list[MoveButton]
    pickups: list[MoveButton]
    pile: list[CardView]
    pile_count: int
    opponents: list[Opponent]
    last_actions: list[str]
    rules: list[RuleLine]


def _names(view: dict[str, Any]) -> dict[int, str]:
    seat, players = view["seat"], view["players"]
    # The others are counted clockwise from the solver, as the table shows them.
    return {
        (seat + k) % players: _("You") if k == 0 else _("Player %(n)d") % {"n": k + 1}
        for k in range(players)
    }


def _own_action(entry: dict[str, Any]) -> str:
    """A line of the log for the solver's own action, said to him: the table's lines put
    a name before a third person's verb, and 'You' there read 'Ty zagrał' in Polish."""
    cards = cards_in_words(entry.get("cards", ()))
    if entry["type"] == "pickup":
        return _("You picked up %(cards)s") % {"cards": cards}
    if entry.get("auto"):
        return _("You finished with %(cards)s") % {"cards": cards}
    return _("You played %(cards)s") % {"cards": cards}


def puzzle_board(puzzle: Puzzle) -> PuzzleBoard:
    view = puzzle.position
    language = translation.get_language()
    names = _names(view)
    legal = view["legal_moves"]
    singles = frozenset(
        m["cards"][0] for m in legal if m["type"] == "play" and len(m["cards"]) == 1
    )
    sets = [
        MoveButton(
            ",".join(m["cards"]), _("Play %(cards)s") % {"cards": cards_in_words(m["cards"])}
        )
        for m in legal
        if m["type"] == "play" and len(m["cards"]) > 1
    ]
    pickups = [
        MoveButton(str(m["count"]), pickup_label(m["count"]))
        for m in legal
        if m["type"] == "pickup"
    ]
    seat = view["seat"]
    opponents = [
        Opponent(names[s], view["hand_counts"][s], view["beton_counts"][s])
        for s in sorted(names, key=lambda s: (s - seat) % view["players"])
        if s != seat
    ]
    history = view["history"][-ACTIONS_SHOWN:]
    cards = sorted(view["hand"], key=card_sort_key)
    return PuzzleBoard(
        puzzle_id=puzzle.pk,
        cards=[card_view(c, language) for c in cards],
        playable=singles,
        first=next((c for c in cards if c in singles), cards[0] if cards else ""),
        sets=sets,
        pickups=pickups,
        pile=[card_view(c, language) for c in view["pile"][-PILE_SHOWN:]],
        pile_count=len(view["pile"]),
        opponents=opponents,
        last_actions=[
            _own_action(e) if e["seat"] == seat else describe_action(e, names)
            for e in reversed(history)
        ],
        rules=rules_summary(Rules.from_json(view["rules"])),
    )


def move_in_words(move: dict[str, Any]) -> str:
    """A move as a sentence's object: 'to play K♠', 'to pick up 3 cards'."""
    if move["type"] == "pickup":
        return ngettext("to pick up %(n)d card", "to pick up %(n)d cards", move["count"]) % {
            "n": move["count"]
        }
    return _("to play %(cards)s") % {"cards": cards_in_words(move["cards"])}


def _percent(loss: float) -> str:
    return f"{round(100 * loss)} %"


@dataclass(frozen=True)
class AttemptReport:
    correct: bool
    explanation: str
    solutions: list[str]
    chances: list[tuple[str, str, bool]]  # (move in words, chance of a letter, a solution)
    themes: list[tuple[str, str]]  # (key, name in words)
    rating_before: int | None
    rating_after: int | None
    repeated: bool


def _distinct(puzzle: Puzzle, moves: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    spades_back = puzzle.position["rules"]["spades_back"]
    seen: dict[int, dict[str, Any]] = {}
    for m in moves:
        seen.setdefault(move_key(move_from_json(m), spades_back), m)
    return list(seen.values())


def attempt_report(
    puzzle: Puzzle,
    move: dict[str, Any],
    correct: bool,
    *,
    rating_before: int | None = None,
    rating_after: int | None = None,
    repeated: bool = False,
) -> AttemptReport:
    """The answer to an attempt: right or wrong and why in words, then the solution."""
    language = translation.get_language()
    spades_back = puzzle.position["rules"]["spades_back"]
    by_key = {move_key(move_from_json(c["move"]), spades_back): c for c in puzzle.chances}
    mine = by_key[move_key(move_from_json(move), spades_back)]
    best = puzzle.chances[0]
    if correct:
        explanation = _(
            "Right: %(move)s leaves your chance of the letter at %(chance)s, the lowest there is."
        ) % {"move": move_in_words(move), "chance": _percent(mine["loss"])}
    else:
        explanation = _(
            "That costs you: %(move)s leaves your chance of the letter at %(chance)s; the"
            " best was %(best)s (%(best_chance)s)."
        ) % {
            "move": move_in_words(move),
            "chance": _percent(mine["loss"]),
            "best": move_in_words(best["move"]),
            "best_chance": _percent(best["loss"]),
        }
    solution_keys = {move_key(move_from_json(m), spades_back) for m in puzzle.solutions}
    return AttemptReport(
        correct=correct,
        explanation=explanation,
        solutions=[move_in_words(m) for m in _distinct(puzzle, puzzle.solutions)],
        chances=[
            (
                move_in_words(c["move"]),
                _percent(c["loss"]),
                move_key(move_from_json(c["move"]), spades_back) in solution_keys,
            )
            for c in puzzle.chances
        ],
        themes=[(t, theme(t).name.in_language(language)) for t in puzzle.themes],
        rating_before=rating_before,
        rating_after=rating_after,
        repeated=repeated,
    )


def earlier_report(user: User | None, puzzle: Puzzle) -> AttemptReport | None:
    """The report of the user's attempt at ``puzzle`` if he made one, else None."""
    if user is None or not user.is_authenticated:
        return None
    earlier = PuzzleAttempt.objects.filter(user=user, puzzle=puzzle).first()
    if earlier is None:
        return None
    return attempt_report(
        puzzle,
        earlier.move,
        earlier.correct,
        rating_before=earlier.rating_before,
        rating_after=earlier.rating_after,
        repeated=True,
    )


@dataclass(frozen=True)
class HistoryRow:
    puzzle_id: int
    created_at: Any
    correct: bool
    move: str
    rating_after: int
    change: str


def attempt_history(user: User, *, limit: int = 100) -> list[HistoryRow]:
    """The user's attempts, newest first, with their result and rating change."""
    attempts = PuzzleAttempt.objects.filter(user=user).order_by("-created_at", "-pk")[:limit]
    return [
        HistoryRow(
            a.puzzle_id,
            a.created_at,
            a.correct,
            move_in_words(a.move),
            a.rating_after,
            f"{a.rating_after - a.rating_before:+d}",
        )
        for a in attempts
    ]
