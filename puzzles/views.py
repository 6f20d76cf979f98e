from __future__ import annotations

import random
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.errors import Refused
from puzzles import selectors, services, streak
from puzzles.finder import THEMES
from puzzles.models import Puzzle

# A visitor's tried puzzles, so that /puzzles/ gives him the next one; not rated.
VISITOR_TRIED = "puzzles_tried"
VISITOR_TRIED_KEPT = 200


def _move_from_form(data: QueryDict) -> Any:
    """The move a puzzle's form sends, as move JSON for the service to check."""
    if "pickup" in data:
        count = data["pickup"]
        return {"type": "pickup", "count": int(count) if count.isdigit() else count}
    if "cards" in data:
        return {"type": "play", "cards": [c for c in data["cards"].split(",") if c]}
    return None


def _theme_key(request: HttpRequest) -> str | None:
    """The theme asked for in the query (``?theme=key``), or None for any theme."""
    return request.GET.get("theme") or None


def _page(
    request: HttpRequest,
    puzzle: Puzzle | None,
    *,
    theme_key: str | None = None,
    report: selectors.AttemptReport | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    choices = selectors.theme_choices()
    # Carried by the page's forms and links, so that the next puzzle keeps the theme.
    theme_query = "?" + urlencode({"theme": theme_key}) if theme_key in THEMES else ""
    context = {
        "puzzle": puzzle,
        "board": selectors.puzzle_board(puzzle) if puzzle is not None else None,
        "report": report,
        "error": error,
        "rating": selectors.puzzle_rating(request.user),
        "themes": choices,
        "theme": next((t for t in choices if t.key == theme_key), None),
        "theme_query": theme_query,
        # Where the board's moves are posted.
        "action": reverse("puzzles:detail", args=[puzzle.pk]) + theme_query if puzzle else "",
    }
    return render(request, "puzzles/puzzle.html", context, status=status)


def puzzle_next(request: HttpRequest) -> HttpResponse:
    """The next puzzle for the player: near his puzzle rating, one he has not tried, of
    the theme he chose if he chose one."""
    theme_key = _theme_key(request)
    if theme_key is not None and theme_key not in THEMES:
        return _page(request, None, error=_("There is no such theme."), status=400)
    tried = request.session.get(VISITOR_TRIED, [])
    puzzle = selectors.next_puzzle(user=request.user, tried=tried, theme_key=theme_key)
    return _page(request, puzzle, theme_key=theme_key)


def puzzle_detail(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    """A puzzle; a POST of a move answers it (rated once for a signed-in player)."""
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    theme_key = _theme_key(request)
    if request.method == "POST":
        try:
            result = services.puzzle_attempt(
                puzzle_id=puzzle.pk, user=request.user, move=_move_from_form(request.POST)
            )
        except Refused as exc:
            return _page(request, puzzle, theme_key=theme_key, error=exc.message, status=400)
        if not request.user.is_authenticated:
            tried = request.session.get(VISITOR_TRIED, [])
            request.session[VISITOR_TRIED] = [*tried, puzzle.pk][-VISITOR_TRIED_KEPT:]
        report = selectors.attempt_report(
            result.puzzle,
            result.move,
            result.correct,
            rating_before=result.rating_before,
            rating_after=result.rating_after,
            repeated=result.repeated,
        )
        return _page(request, puzzle, theme_key=theme_key, report=report)
    # Once he has answered, the page shows his answer and the solution.
    report = selectors.earlier_report(request.user, puzzle)
    return _page(request, puzzle, theme_key=theme_key, report=report)


@login_required
def puzzle_history(request: HttpRequest) -> HttpResponse:
    context = {
        "rows": selectors.attempt_history(request.user),
        "rating": selectors.puzzle_rating(request.user),
    }
    return render(request, "puzzles/history.html", context)


# The session's streak run (a visitor's and an account's alike) and a visitor's best.
STREAK_RUN = "puzzle_streak"
STREAK_BEST = "puzzle_streak_best"


def _streak_best(request: HttpRequest) -> int:
    if request.user.is_authenticated:
        return streak.streak_best(request.user)
    return int(request.session.get(STREAK_BEST, 0))


def _streak_keep(request: HttpRequest, run: streak.StreakRun) -> None:
    request.session[STREAK_RUN] = run.to_session()
    if run.over and not request.user.is_authenticated:
        request.session[STREAK_BEST] = max(int(request.session.get(STREAK_BEST, 0)), run.solved)


def puzzle_streak(request: HttpRequest) -> HttpResponse:
    """The streak: its current puzzle, or how the run ended with the missed puzzle's
    solution, or (no run yet) how it goes and a button to start one."""
    run = streak.StreakRun.from_session(request.session.get(STREAK_RUN))
    return _streak_page(request, run)


def _streak_page(
    request: HttpRequest, run: streak.StreakRun | None, *, error: str = "", status: int = 200
) -> HttpResponse:
    puzzle = report = None
    if run is not None and run.current is not None:
        puzzle = Puzzle.objects.filter(pk=run.current).first()
    elif run is not None and run.missed is not None:
        puzzle = Puzzle.objects.filter(pk=run.missed["puzzle"]).first()
        if puzzle is not None:
            report = selectors.attempt_report(puzzle, run.missed["move"], False)
    context = {
        "run": run,
        "puzzle": puzzle,
        "board": selectors.puzzle_board(puzzle) if puzzle is not None else None,
        "report": report,
        "action": reverse("puzzles:streak_answer", args=[puzzle.pk]) if puzzle else "",
        "best": _streak_best(request),
        "error": error,
    }
    return render(request, "puzzles/streak.html", context, status=status)


@require_POST
def puzzle_streak_start(request: HttpRequest) -> HttpResponse:
    """A new run (the run before it, if any, is dropped)."""
    _streak_keep(request, streak.streak_start(rng=random.Random()))
    return redirect("puzzles:streak")


@require_POST
def puzzle_streak_answer(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    """An answer to the run's current puzzle: the page then shows the next one, or the
    end of the run with the solution. Nothing is rated."""
    run = streak.StreakRun.from_session(request.session.get(STREAK_RUN))
    if run is None:
        return redirect("puzzles:streak")
    try:
        after = streak.streak_answer(
            run=run, puzzle_id=puzzle_id, move=_move_from_form(request.POST), user=request.user
        )
    except Refused as exc:
        return _streak_page(request, run, error=exc.message, status=400)
    _streak_keep(request, after)
    return redirect("puzzles:streak")
