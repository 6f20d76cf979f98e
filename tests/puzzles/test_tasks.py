"""Puzzles made on the analysis queue from finished hands that qualify."""

from __future__ import annotations

import json

import pytest
import redis
from django.conf import settings

from games.models import Hand
from games.selectors.analysis import hand_record
from puzzles import services, tasks
from puzzles.finder import find_puzzle
from puzzles.models import Puzzle
from tests.games.test_analysis import finished_hand

pytestmark = pytest.mark.django_db


def _hand_with_a_loser(capture) -> Hand:
    for _ in range(8):
        with capture(execute=True):
            hand = finished_hand()
        if hand.outcome["loser"] is not None:
            return hand
    raise AssertionError("eight greedy hands of two without a loser")


@pytest.fixture
def broker():
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete(settings.CELERY_ANALYSIS_QUEUE)  # no worker runs here: what is sent stays
    yield broker
    broker.delete(settings.CELERY_ANALYSIS_QUEUE)


def _sent(broker) -> list[tuple[str, str]]:
    raw = broker.lrange(settings.CELERY_ANALYSIS_QUEUE, 0, -1)
    return [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in map(json.loads, raw)]


def test_a_hand_that_qualifies_is_searched_on_the_analysis_queue(
    monkeypatch, broker, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(services, "PUZZLE_HAND_EVERY", 1)
    hand = _hand_with_a_loser(django_capture_on_commit_callbacks)
    assert ("puzzles.make_from_hand", f"({hand.pk},)") in _sent(broker)
    main = broker.lrange(settings.CELERY_TASK_DEFAULT_QUEUE, 0, -1)
    assert not [raw for raw in main if b"puzzles.make_from_hand" in raw]


def test_only_one_hand_in_so_many_is_searched(
    monkeypatch, broker, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(services, "PUZZLE_HAND_EVERY", 10**9)
    _hand_with_a_loser(django_capture_on_commit_callbacks)
    assert not [task for task, _ in _sent(broker) if task == "puzzles.make_from_hand"]


def test_the_task_keeps_the_finders_puzzle_of_the_hand_once(django_capture_on_commit_callbacks):
    hand = _hand_with_a_loser(django_capture_on_commit_callbacks)
    start, moves = hand_record(hand)
    kept = find_puzzle(start, moves, hand.outcome["loser"], seed=f"hand-{hand.pk}").kept
    assert tasks.make_from_hand_task(hand.pk) is (kept is not None)
    if kept is not None:
        puzzle = Puzzle.objects.get()
        assert puzzle.source_hand == hand and puzzle.solutions == list(kept.solutions)
    assert tasks.make_from_hand_task(hand.pk) is False  # the same position is kept once
    assert Puzzle.objects.count() == (kept is not None)
