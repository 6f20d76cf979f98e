"""The clock ticker (games.clock) on the real database, with the time injected."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.db import DatabaseError, OperationalError, connection

from bench.processes import ROOT, base_env, database_url_for_processes
from games import clock, services
from games.clock import ClockTicker, TickerProcess
from games.engine import move_to_json
from games.models import Hand
from tests.games.test_clocks import started_hand, wait_for_outcome


def at(moment: datetime) -> clock.Clock:
    return lambda: moment


@pytest.mark.django_db
def test_a_tick_applies_the_due_timeouts_and_leaves_the_others():
    due, later = started_hand(base_seconds=60), started_hand(base_seconds=120)
    now = due.deadline + timedelta(milliseconds=1)
    ticker = ClockTicker(now=at(now))
    assert ticker.tick() == ticker.interval  # the next deadline is a minute away
    due.refresh_from_db()
    later.refresh_from_db()
    assert due.outcome["reason"] == "timeout" and due.finished_at == now
    assert later.outcome is None and later.version == 1


@pytest.mark.django_db
def test_a_tick_waits_exactly_for_a_deadline_sooner_than_its_poll():
    hand = started_hand(base_seconds=60)
    ticker = ClockTicker(interval=0.1, now=at(hand.deadline - timedelta(milliseconds=40)))
    assert ticker.tick() == pytest.approx(0.04)
    hand.refresh_from_db()
    assert hand.outcome is None


@pytest.mark.django_db
def test_a_hand_read_as_due_before_a_move_is_left_alone_after_it():
    hand = started_hand(base_seconds=600)
    late = hand.deadline + timedelta(seconds=1)
    due, _ = clock.due_timeouts(late)
    assert due == [(hand.pk, 1)]
    state = hand.engine_state
    services.execute(
        services.move_action(
            move_to_json(state.legal_moves()[0]),
            hand_id=hand.pk,
            version=1,
            user=hand.match.players.get(seat=state.to_move).user,
        )
    )
    # The ticker read version 1; the move made it 2: only the version protects the hand.
    assert clock.apply_timeouts(due, now=at(late)) == []
    hand.refresh_from_db()
    assert hand.outcome is None and hand.version == 2 and hand.actions.count() == 1


@pytest.mark.django_db
def test_a_hand_whose_timeout_fails_rests_while_the_others_are_applied(monkeypatch):
    broken, fine = started_hand(base_seconds=60), started_hand(base_seconds=60)
    now = max(broken.deadline, fine.deadline) + timedelta(milliseconds=1)
    real, tried = services.execute, []

    def execute(action: services.Timeout, **kwargs: object) -> object:
        tried.append(action.hand_id)
        if action.hand_id == broken.pk:
            raise RuntimeError("a broken hand")
        return real(action, **kwargs)

    monkeypatch.setattr(services, "execute", execute)
    seconds = [0.0]
    ticker = ClockTicker(now=at(now), monotonic=lambda: seconds[0])
    ticker.tick()
    fine.refresh_from_db()
    assert fine.outcome["reason"] == "timeout"
    assert sorted(tried) == sorted([broken.pk, fine.pk])

    tried.clear()
    seconds[0] = clock.FAILED_HAND_BACKOFF - 0.1
    ticker.tick()
    assert tried == []  # it rests: no log line ten times a second
    seconds[0] = clock.FAILED_HAND_BACKOFF + 0.1
    ticker.tick()
    assert tried == [broken.pk]  # and is tried again afterwards


def run_until_outcome(ticker: ClockTicker | TickerProcess, hand: Hand) -> Hand:
    """Start ``ticker``, wait for ``hand`` to end, stop it: it must stop when told."""
    ticker.start()
    try:
        hand = wait_for_outcome(hand, timeout=20)
    finally:
        ticker.stop()
    assert not ticker.is_alive()
    return hand


def database_backends() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


def assert_back_to(backends: int) -> None:
    """No connection left open (a backend leaves pg_stat_activity a moment after)."""
    give_up = time.monotonic() + 10
    while database_backends() > backends and time.monotonic() < give_up:
        time.sleep(0.05)
    assert database_backends() == backends


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_due_hands_is_applied_side_by_side_and_leaves_no_connection(monkeypatch):
    hands = [started_hand(base_seconds=60) for _ in range(2 * clock.HANDS_PER_THREAD + 1)]
    now = max(hand.deadline for hand in hands) + timedelta(milliseconds=1)
    real, threads = services.execute, set()

    def execute(action: services.Timeout, **kwargs: object) -> object:
        threads.add(threading.get_ident())
        return real(action, **kwargs)

    monkeypatch.setattr(services, "execute", execute)
    before = database_backends()
    ClockTicker(threads=3, now=at(now)).tick()
    assert len(threads) == 3
    for hand in hands:
        hand.refresh_from_db()
        assert hand.outcome["reason"] == "timeout"
    assert_back_to(before)


def failing_reads(monkeypatch: pytest.MonkeyPatch, failures: list[Exception]) -> list[Exception]:
    """The ticker's reads of the due live hands raise ``failures`` first (the list, emptied
    as they are raised), then read; it retries at once after a failure. (The reads of the
    correspondence hands, by the ticker's other thread, do not fail.)"""
    real = clock.due_timeouts

    def due_timeouts(*args: object, **kwargs: object):
        if failures and not kwargs.get("day"):
            raise failures.pop()
        return real(*args, **kwargs)

    monkeypatch.setattr(clock, "due_timeouts", due_timeouts)
    monkeypatch.setattr(clock, "ERROR_DELAY", 0.01)
    return failures


@pytest.mark.django_db(transaction=True)
def test_the_thread_survives_a_failed_tick_applies_the_timeout_and_leaves_no_connection(
    monkeypatch,
):
    hand = started_hand(base_seconds=600)
    failures = failing_reads(monkeypatch, [DatabaseError("the connection was lost")])
    before = database_backends()
    ticker = ClockTicker(interval=0.05, now=at(hand.deadline + timedelta(milliseconds=1)))
    hand = run_until_outcome(ticker, hand)
    assert not failures  # the first tick failed, and the thread went on
    assert hand.outcome["reason"] == "timeout"
    assert_back_to(before)


@pytest.mark.django_db(transaction=True)
def test_a_process_runs_one_ticker_however_often_it_is_started():
    first = clock.start_ticker()
    try:
        assert clock.start_ticker() is first
        assert first.is_alive()
    finally:
        clock.stop_tickers()
    assert not first.is_alive()


@pytest.mark.django_db(transaction=True)
def test_a_dead_ticker_is_started_again():
    first = clock.start_ticker()
    try:
        first.stop()  # as if its thread had died
        assert clock.revive_tickers() == 1
        assert clock.start_ticker() is not first and clock.start_ticker().is_alive()
        assert clock.revive_tickers() == 0
    finally:
        clock.stop_tickers()


@pytest.mark.django_db(transaction=True)
def test_a_ticker_process_applies_a_timeout_and_ends_when_told(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", database_url_for_processes())
    hand = run_until_outcome(TickerProcess(), started_hand(base_seconds=5))
    assert hand.outcome["reason"] == "timeout"


def has_ended(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie nobody reaps counts)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in {"Z", "X"}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.django_db(transaction=True)
def test_a_ticker_process_ends_by_itself_when_its_parent_is_killed():
    parent_code = (
        "import django, time; django.setup(); from games.clock import TickerProcess; "
        "ticker = TickerProcess(); ticker.start(); print(ticker.pid, flush=True); time.sleep(600)"
    )
    env = base_env(DATABASE_URL=database_url_for_processes())
    with subprocess.Popen(
        [sys.executable, "-c", parent_code], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    ) as parent:
        child = int(parent.stdout.readline())
        parent.kill()  # SIGKILL: it never stops its ticker
        parent.wait()
    give_up = time.monotonic() + 10
    while not has_ended(child) and time.monotonic() < give_up:
        time.sleep(0.1)
    assert has_ended(child)


@pytest.mark.django_db(transaction=True)
def test_a_database_outage_is_one_line_when_it_starts_and_one_when_it_ends(monkeypatch, caplog):
    hand = started_hand(base_seconds=600)
    outage = [OperationalError("connection failed:\nIs the server running?")] * 5
    failures = failing_reads(monkeypatch, outage)
    ticker = ClockTicker(interval=0.05, now=at(hand.deadline + timedelta(milliseconds=1)))
    with caplog.at_level(logging.INFO, logger="games.clock"):
        hand = run_until_outcome(ticker, hand)
    assert not failures and hand.outcome["reason"] == "timeout"
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "games.clock"]
    assert lines == [
        (
            "WARNING",
            "clock ticks stopped, the database is unreachable (connection failed: Is the "
            "server running?); retrying every 0.01 s",
        ),
        ("INFO", "clock ticks again"),
    ]
    assert not any(record.exc_info for record in caplog.records)
