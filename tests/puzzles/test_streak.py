"""Puzzle Streak: puzzles of rising difficulty until the first miss, never rated; the
best streak kept per account, and a visitor's in his session."""

from __future__ import annotations

import itertools
import random
import re
from datetime import UTC, datetime

import pytest
from django.test import Client

from puzzles import streak
from puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating, PuzzleStreakBest
from tests.factories import client_for, make_user
from tests.puzzles.factories import make_puzzle

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
SOLVE = {"cards": "KH"}  # the solution of every test puzzle (tests.puzzles.factories)
MISS = {"pickup": "2"}


def _puzzles(ratings: list[float]) -> list[Puzzle]:
    return [make_puzzle(mu=mu, content_hash=f"p{i}") for i, mu in enumerate(ratings)]


def _current(client: Client) -> int | None:
    found = re.search(r'data-testid="streak" data-puzzle="(\d+)"', _page(client))
    return int(found.group(1)) if found else None


def _page(client: Client) -> str:
    return client.get("/puzzles/streak/").content.decode()


def _answer(client: Client, form: dict) -> None:
    answer = client.post(f"/puzzles/streak/{_current(client)}/", form)
    assert answer.status_code == 302 and answer["Location"] == "/puzzles/streak/"


def test_a_run_serves_every_puzzle_once_its_difficulty_rising_band_by_band() -> None:
    puzzles = _puzzles([20.0 + (i * 7) % 12 for i in range(12)])
    rating = {p.pk: p.mu for p in puzzles}
    runs = [streak.streak_start(rng=random.Random(seed)) for seed in range(3)]
    for run in runs:
        assert sorted(run.puzzles) == sorted(rating)
        bands = [run.puzzles[i : i + streak.STREAK_BAND] for i in range(0, 12, streak.STREAK_BAND)]
        for easier, harder in itertools.pairwise(bands):
            assert max(rating[p] for p in easier) <= min(rating[p] for p in harder)
    assert len({run.puzzles for run in runs}) > 1  # two runs need not begin alike


def test_a_long_set_is_drawn_across_the_whole_range_of_ratings(monkeypatch) -> None:
    monkeypatch.setattr(streak, "STREAK_LENGTH", 6)
    puzzles = _puzzles([float(10 + i) for i in range(30)])
    rating = {p.pk: p.mu for p in puzzles}
    run = streak.streak_start(rng=random.Random(5))
    assert len(run.puzzles) == 6
    assert max(rating[p] for p in run.puzzles) - min(rating[p] for p in run.puzzles) > 15


def test_a_streak_counts_solved_puzzles_and_ends_at_the_first_miss_with_the_solution() -> None:
    puzzles = _puzzles([24.0, 25.0, 26.0, 27.0, 28.0, 29.0])
    user = make_user()
    client = client_for(user)
    intro = _page(client)
    assert "One wrong move ends the streak. A streak is not rated." in intro
    assert 'data-testid="streak-start"' in intro and _current(client) is None
    assert client.post("/puzzles/streak/start/")["Location"] == "/puzzles/streak/"
    served = [_current(client)]
    assert "Streak: 0" in _page(client)

    _answer(client, SOLVE)
    page = _page(client)
    assert "Streak: 1" in page and "Right! The next one:" in page
    served.append(_current(client))
    _answer(client, SOLVE)
    served.append(_current(client))
    assert "Streak: 2" in _page(client)
    assert len(set(served)) == 3

    _answer(client, MISS)
    end = _page(client)
    assert "The streak ends: 2 puzzles solved in a row." in end
    assert 'data-testid="puzzle-result" data-correct="false"' in end
    assert "The solution: to play K♥" in end
    assert f'data-puzzle="{served[2]}"' in end  # the missed puzzle, shown with its answer
    assert "Your best: 2" in end
    assert not re.search(r'action="/puzzles/streak/\d+/"', end)  # nothing left to answer

    # Unrated: no attempt, no rating, the puzzles' ratings and counts as they were.
    assert not PuzzleAttempt.objects.exists() and not PuzzleRating.objects.exists()
    for puzzle in puzzles:
        before = (puzzle.mu, puzzle.sigma, puzzle.attempts, puzzle.solved)
        puzzle.refresh_from_db()
        assert (puzzle.mu, puzzle.sigma, puzzle.attempts, puzzle.solved) == before


def test_an_accounts_best_streak_is_kept_and_only_ever_raised() -> None:
    _puzzles([24.0, 25.0, 26.0])
    user = make_user()
    client = client_for(user)
    client.post("/puzzles/streak/start/")
    _answer(client, SOLVE)
    _answer(client, SOLVE)
    _answer(client, MISS)
    assert PuzzleStreakBest.objects.get(user=user).best == 2
    client.post("/puzzles/streak/start/")
    _answer(client, MISS)
    assert "The streak ends: 0 puzzles solved in a row." in _page(client)
    assert PuzzleStreakBest.objects.get(user=user).best == 2
    # Another browser of his shows it too.
    assert "Your best: 2" in _page(client_for(user))
    streak.streak_best_record(user=user, streak=5, now=NOW)
    streak.streak_best_record(user=user, streak=4, now=NOW)
    assert streak.streak_best(user) == 5


def test_a_visitors_best_streak_stays_in_his_session_and_every_puzzle_solved_ends_it() -> None:
    _puzzles([24.0, 25.0])
    visitor = client_for()
    visitor.post("/puzzles/streak/start/")
    _answer(visitor, SOLVE)
    _answer(visitor, SOLVE)
    page = _page(visitor)
    assert "You solved every puzzle of the streak!" in page and "Your best: 2" in page
    assert "Your best: 0" in _page(client_for())
    assert not PuzzleStreakBest.objects.exists()


def test_an_answer_sent_twice_or_illegal_changes_nothing() -> None:
    _puzzles([24.0, 25.0, 26.0])
    client = client_for(make_user())
    client.post("/puzzles/streak/start/")
    first = _current(client)
    client.post(f"/puzzles/streak/{first}/", SOLVE)
    second = _current(client)
    # The same answer again (a second click, an old tab): the run is as it was.
    assert client.post(f"/puzzles/streak/{first}/", MISS)["Location"] == "/puzzles/streak/"
    assert _current(client) == second and "Streak: 1" in _page(client)

    refused = client.post(f"/puzzles/streak/{second}/", {"cards": "AS"})
    assert refused.status_code == 400
    assert "you do not hold A♠" in refused.content.decode()
    assert _current(client) == second and "Streak: 1" in _page(client)
    assert client.get(f"/puzzles/streak/{second}/").status_code == 405


def test_the_streak_speaks_polish() -> None:
    _puzzles([24.0])
    client = client_for()
    client.cookies["django_language"] = "pl"
    assert "Jeden zły ruch kończy serię." in _page(client)
    client.post("/puzzles/streak/start/")
    _answer(client, MISS)
    page = _page(client)
    assert "Koniec serii: 0 łamigłówek rozwiązanych z rzędu." in page
    assert "Twój rekord: 0" in page and "Zacznij nową serię" in page
