"""A bullet player does not pay for the day-long games of others: with correspondence games
open and a burst of their day deadlines due, a live timeout due at the same moment lands
first, and its next hand waits on a queue they are not on. Time is passed in: each reading
of the ticker's clock is a millisecond of its work."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

import pytest
from celery.signals import after_task_publish
from django.conf import settings
from django.utils import timezone

from games import clock, tasks
from games.clock import ClockTicker
from games.models import Action, Hand
from tests.factories import first_hand, make_table
from tests.games.test_clocks import started_hand

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)
# Correspondence games whose day deadline falls due with the live one: a representative
# burst (the bench has 10,000 open and a hundred due at once).
BURST = 40


def working_clock(start: datetime) -> clock.Clock:
    """A clock that moves on a millisecond each time it is read: the ticker reads it once
    to find the due hands, then once before each timeout it applies, so a timeout's
    lateness counts the timeouts applied before it."""
    steps = itertools.count()
    return lambda: start + timedelta(milliseconds=next(steps))


def day_deadlines_due_by(moment: datetime, count: int) -> list[Hand]:
    """``count`` correspondence games (a day per move) whose turn began so long ago that
    their day deadline fell due a second before ``moment``."""
    began = moment - DAY - timedelta(seconds=1)
    return [first_hand(make_table(players=2, move_days=1), began) for _ in range(count)]


def test_a_live_timeout_due_with_a_burst_of_day_deadlines_is_applied_before_them():
    live = started_hand(base_seconds=60)
    deadline = live.deadline
    day = day_deadlines_due_by(deadline, BURST)
    ticker = ClockTicker(threads=1, now=working_clock(deadline))

    ticker.tick()
    live.refresh_from_db()
    assert live.outcome["reason"] == "timeout"
    # Applied at the first moment the ticker could: no day deadline before it.
    assert live.finished_at - deadline <= timedelta(milliseconds=1)

    # The day deadlines are applied too, by their own pass, each exactly once.
    while ticker.day_tick() == 0.0:
        pass
    for hand in day:
        hand.refresh_from_db()
        assert hand.outcome["reason"] == "timeout"
    timeouts = Action.objects.filter(hand__in=day, move__type="timeout").count()
    assert timeouts == len(day)


def test_a_burst_larger_than_a_batch_is_worked_off_batch_after_batch(monkeypatch):
    monkeypatch.setattr(clock, "DAY_BATCH", 3)
    live = started_hand(base_seconds=60)
    day = day_deadlines_due_by(live.deadline, 7)
    ticker = ClockTicker(threads=1, now=working_clock(live.deadline))
    # Full batches ask for the next at once; the last, not full, waits a day interval.
    assert [ticker.day_tick() for _ in range(3)] == [0.0, 0.0, ticker.day_interval]
    assert Hand.objects.filter(pk__in=[h.pk for h in day], outcome__isnull=True).count() == 0
    live.refresh_from_db()
    assert live.outcome is None  # the live clocks are the other pass's


@pytest.mark.redis
def test_a_live_games_next_hand_is_not_queued_behind_those_of_correspondence_games(
    django_capture_on_commit_callbacks,
):
    """Read from what this process hands the broker, by queue, in order (Celery's
    ``after_task_publish``): a worker of another test run on the same Redis may take a
    queue's messages before it is read."""
    queues = (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_CORRESPONDENCE_QUEUE)
    assert settings.CELERY_CORRESPONDENCE_QUEUE.startswith(settings.CELERY_TASK_DEFAULT_QUEUE)
    sent: dict[str, list[dict]] = {queue: [] for queue in queues}

    def record(headers: dict | None = None, routing_key: str = "", **kwargs: object) -> None:
        sent.setdefault(routing_key, []).append(headers or {})

    live = started_hand(base_seconds=60)
    day = day_deadlines_due_by(live.deadline, BURST)
    ticker = ClockTicker(threads=1, now=working_clock(live.deadline))
    after_task_publish.connect(record, weak=False)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            while ticker.day_tick() == 0.0:
                pass
            ticker.tick()
    finally:
        after_task_publish.disconnect(record)
    next_hands = {
        queue: [h["argsrepr"] for h in sent[queue] if h.get("task") == "games.match_next_hand"]
        for queue in queues
    }
    # The live game's deal is the only one on the main queue, first in line...
    assert next_hands[settings.CELERY_TASK_DEFAULT_QUEUE] == [f"({live.match_id}, 1)"]
    # ...and the correspondence games' wait on their own.
    assert sorted(next_hands[settings.CELERY_CORRESPONDENCE_QUEUE]) == sorted(
        f"({hand.match_id}, 1)" for hand in day
    )


def test_the_sweep_leaves_day_deadlines_to_the_day_pass_for_a_minute():
    now = timezone.now()
    live_table = make_table(players=2, base_seconds=60, increment_seconds=0)
    live = first_hand(live_table, now - timedelta(seconds=60) - 2 * tasks.SWEEP_TIMEOUT_GRACE)
    recent = day_deadlines_due_by(now - tasks.SWEEP_DAY_GRACE / 2, 2)
    old = day_deadlines_due_by(now - 2 * tasks.SWEEP_DAY_GRACE, 2)

    assert tasks.sweep_hands()["timeouts"] == 3
    live.refresh_from_db()
    assert live.outcome["reason"] == "timeout"
    # The day pass's, unless it has left them for a minute: then the sweep's.
    assert Hand.objects.filter(pk__in=[h.pk for h in old], outcome__isnull=True).count() == 0
    assert Hand.objects.filter(pk__in=[h.pk for h in recent], outcome__isnull=True).count() == 2
