"""The clock's three layers on the real stack: PostgreSQL, Redis, `celery worker`, `celery beat`.

Nobody connects to a websocket in these tests: the timeouts land because a clock ticker
runs in every worker and in beat (``games.clock``), whichever of them lives.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from bench.processes import (
    ROOT,
    base_env,
    celery_beat_args,
    celery_worker_args,
    database_url_for_processes,
    kill_group,
    running,
    wait_for_log,
)
from games import services
from games.engine import move_to_json
from games.models import Hand
from pan_site.tasks import heartbeat
from tests.factories import make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


def process_env() -> dict[str, str]:
    return base_env(DATABASE_URL=database_url_for_processes())


@contextmanager
def celery_worker(
    tmp_path: Path, name: str = "worker", *, queues: list[str] | None = None
) -> Iterator[subprocess.Popen]:
    log = tmp_path / f"{name}.log"
    with running(celery_worker_args(queues=queues), env=process_env(), log=log) as proc:
        wait_for_log(log, "ready.", proc=proc)
        yield proc


@contextmanager
def celery_beat(tmp_path: Path) -> Iterator[subprocess.Popen]:
    log = tmp_path / "beat.log"
    with running(
        celery_beat_args(schedule=tmp_path / "beat-schedule"), env=process_env(), log=log
    ) as proc:
        wait_for_log(log, "beat: Starting", proc=proc)
        yield proc


def started_hand(base_seconds: int) -> Hand:
    table = make_table(players=2, base_seconds=base_seconds, increment_seconds=0)
    services.match_start(table_id=table.pk, by=table.owner)
    return Hand.objects.get(match__table=table)


def wait_for_outcome(hand: Hand, timeout: float) -> Hand:
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        hand.refresh_from_db()
        if hand.outcome is not None:
            return hand
        time.sleep(0.05)
    raise AssertionError(f"no outcome within {timeout} s (deadline {hand.deadline})")


def test_an_idle_player_gets_the_letter_when_his_time_runs_out(tmp_path):
    with celery_worker(tmp_path):  # the main worker alone: no beat, nobody connected
        hand = started_hand(base_seconds=5)
        idle_seat, deadline = hand.engine_state.to_move, hand.deadline
        hand = wait_for_outcome(hand, timeout=15)
    assert hand.outcome["reason"] == "timeout"
    assert hand.outcome["loser"] == idle_seat
    assert hand.match.match_state.letters[idle_seat] == 1
    lateness = (hand.finished_at - deadline).total_seconds()
    assert 0 <= lateness < 2.0
    assert hand.actions.get().entry == {"seat": idle_seat, "type": "timeout"}


def test_a_timeout_travels_through_no_queue_so_a_backlog_cannot_delay_it(tmp_path):
    # The only worker consumes a queue nobody sends to, and a task waits on the main
    # queue (as if bot moves had swamped it): the timeout comes anyway, on time, and the
    # worker receives no task at all.
    idle_queue = f"{settings.CELERY_TASK_DEFAULT_QUEUE}-idle-{uuid.uuid4().hex[:6]}"
    with celery_worker(tmp_path, "idle", queues=[idle_queue]):
        heartbeat.delay(uuid.uuid4().hex, time.time())  # for the main queue's workers
        hand = started_hand(base_seconds=5)
        idle_seat, deadline = hand.engine_state.to_move, hand.deadline
        hand = wait_for_outcome(hand, timeout=15)
    assert hand.outcome["reason"] == "timeout" and hand.outcome["loser"] == idle_seat
    assert 0 <= (hand.finished_at - deadline).total_seconds() < 2.0
    assert "Task " not in (tmp_path / "idle.log").read_text()


def test_with_only_beat_running_a_timeout_lands_within_ten_seconds(tmp_path):
    with celery_beat(tmp_path):  # no worker at all, nobody connected
        hand = started_hand(base_seconds=5)
        idle_seat, deadline = hand.engine_state.to_move, hand.deadline
        hand = wait_for_outcome(hand, timeout=20)
    assert hand.outcome["reason"] == "timeout" and hand.outcome["loser"] == idle_seat
    assert 0 <= (hand.finished_at - deadline).total_seconds() <= 10


def race_move_against_timeout() -> tuple[Hand, dict[str, bool]]:
    """A move 1 ms before the deadline and the timeout 1 ms after it, released together."""
    hand = started_hand(base_seconds=600)
    state = hand.engine_state
    mover = hand.match.players.get(seat=state.to_move).user
    move = move_to_json(state.legal_moves()[0])
    barrier = threading.Barrier(2)
    results: dict[str, bool] = {}

    def play() -> None:
        barrier.wait()
        try:
            services.execute(
                services.move_action(move, hand_id=hand.pk, version=1, user=mover),
                now=hand.deadline - timedelta(milliseconds=1),
            )
            results["move"] = True
        except services.Refused:
            results["move"] = False
        finally:
            close_old_connections()

    def expire() -> None:
        barrier.wait()
        try:
            applied = services.execute(
                services.Timeout(hand_id=hand.pk, version=1),
                now=hand.deadline + timedelta(milliseconds=1),
            )
            results["timeout"] = applied is not None
        finally:
            close_old_connections()

    threads = [threading.Thread(target=play), threading.Thread(target=expire)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    hand.refresh_from_db()
    return hand, results


def test_a_move_and_the_timeout_at_the_same_moment_exactly_one_wins():
    """Twenty races: never both, never neither; the loser of the race changes nothing."""
    for _ in range(20):
        hand, results = race_move_against_timeout()
        assert [results["move"], results["timeout"]].count(True) == 1, results
        assert hand.version == 2
        assert hand.actions.count() == 1
        assert (hand.outcome is not None) == results["timeout"]


def test_with_the_worker_killed_beat_still_applies_the_timeout_within_ten_seconds(tmp_path):
    with celery_beat(tmp_path), celery_worker(tmp_path, "worker-1") as first:
        hand = started_hand(base_seconds=5)
        deadline = hand.deadline
        kill_group(first)  # SIGKILL before the deadline: beat alone is left
        hand = wait_for_outcome(hand, timeout=20)
    assert hand.outcome["reason"] == "timeout"
    assert 0 <= (hand.finished_at - deadline).total_seconds() <= 10


def test_with_every_process_killed_the_first_to_come_back_applies_the_timeout(tmp_path):
    with celery_worker(tmp_path, "worker-1") as first:
        hand = started_hand(base_seconds=5)
        deadline = hand.deadline
        kill_group(first)  # SIGKILL: no worker, no beat, nobody connected
    time.sleep(max(0.0, (deadline - timezone.now()).total_seconds() + 1))
    hand.refresh_from_db()
    assert hand.outcome is None  # nobody was there to apply it
    with celery_worker(tmp_path, "worker-2"):
        back = timezone.now()
        hand = wait_for_outcome(hand, timeout=20)
    assert hand.outcome["reason"] == "timeout"
    assert (hand.finished_at - back).total_seconds() <= 10


def test_embedded_mode_applies_a_timeout_with_no_redis_and_no_worker_process(tmp_path):
    script = ROOT / "tests" / "games" / "embedded_timeout.py"
    env = base_env(REDIS_URL=None, DATABASE_URL=None, PAN_VAR_DIR=str(tmp_path), DEBUG="true")
    result = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=90
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["embedded"] is True
    assert report["outcome"]["reason"] == "timeout"
    assert 0 <= report["late_s"] < 3
    # The analysis queue has its embedded worker too (the hand had no decision to analyse).
    assert report["analysis"] == "done"
