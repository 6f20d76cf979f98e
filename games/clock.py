"""The clock ticker: applies due timeouts straight from the ``deadline`` column.

Why a ticker and not a task per deadline: a task scheduled with ``eta`` for every move
sits in a worker's memory until its deadline (tens of thousands at once under load, one
per move) and dies with that worker. The ticker holds nothing: every ``POLL_INTERVAL``
it asks the database, with one query on a partial index of the unfinished hands, which
hands are due and applies their timeouts. Its cost follows the live hands, not the moves.

Two kinds of clock, two passes, two partial indexes: a live clock's deadline (minutes per
hand) is read ten times a second by the ticker's main thread (``tick``); a correspondence
clock's (days per move) once a second, a batch at a time, by a thread of its own
(``day_tick``). However many correspondence games are open, and however many of their day
deadlines fall due at once (games started together, or due while every process was down),
a live timeout due now is never read, queued or applied behind them: a bullet player does
not pay for the day-long games of others, and a day deadline a second late is no matter.

A ticker runs next to every Celery worker, in beat and in the embedded web process
(``pan_site.celery``, ``pan_site.embedded``), so a timeout lands while any of them lives.
Next to a worker it is a process of its own (``python -m games.clock``): the worker's
threads think for bots, and a thread among them waits for the GIL at every database
round trip, so under a flood of bot moves its timeouts would come very late. Beat and
the embedded process are idle enough for a thread.

Several tickers may reach the same hand: the timeout is compare-and-set on the hand's
version, so the second one does nothing; each ticker shuffles its due hands so that
they rarely queue on the same row lock.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from django.db import DatabaseError, connection
from django.utils import timezone

from core.tasks import Outage

logger = logging.getLogger(__name__)

# Seconds between two looks at the live deadlines; a deadline known to come sooner is waited
# for exactly, so this bounds the lateness only of a deadline set less than it ahead.
POLL_INTERVAL = 0.1
# Seconds between two looks at the correspondence (day) deadlines, and how many of them one
# look applies at most, one after the other: a burst is worked off a batch at a time (the
# next batch at once while they come full), and the thread stops soon when told.
DAY_POLL_INTERVAL = 1.0
DAY_BATCH = 50
# A burst of due timeouts is applied on up to this many threads, one per this many hands
# (a helper thread opens a connection of its own: not worth it for a few).
APPLY_THREADS = 4
HANDS_PER_THREAD = 2
# Seconds to wait after a tick failed (the database is down, say): retry, but do not spin.
ERROR_DELAY = 1.0
# Seconds to leave a hand whose timeout raised, so that one broken hand does not fill the
# log ten times a second (the others go on being applied).
FAILED_HAND_BACKOFF = 5.0
# Seconds between two looks of a ticker process at its worker: it ends soon after it.
PARENT_CHECK = 0.5

Clock = Callable[[], datetime]


def due_timeouts(
    now: datetime,
    *,
    lookahead: float = 0.0,
    day: bool = False,
    limit: int | None = None,
    skip: Collection[int] = (),
) -> tuple[list[tuple[int, int]], datetime | None]:
    """The ``(hand id, version)`` pairs due at ``now``, and the first deadline within
    ``lookahead`` seconds after it (None if there is none): one query on the partial index
    of the live clocks' deadlines, or with ``day`` on the correspondence clocks' (then the
    ``limit`` soonest, leaving out the hands in ``skip``)."""
    from games.models import Hand  # here: ``python -m games.clock`` imports this before setup

    hands = Hand.objects.filter(
        outcome__isnull=True, deadline__lte=now + timedelta(seconds=lookahead)
    )
    # The same conditions as the indexes' (games.models.Hand), so that PostgreSQL reads one.
    hands = hands.filter(move_ms__gt=0) if day else hands.filter(move_ms=0)
    if skip:
        hands = hands.exclude(pk__in=list(skip))
    rows = hands.order_by("deadline").values_list("pk", "version", "deadline")
    if limit is not None:
        rows = rows[:limit]
    due: list[tuple[int, int]] = []
    for hand_id, version, deadline in rows:
        if deadline > now:
            return due, deadline
        due.append((hand_id, version))
    return due, None


def apply_timeouts(
    due: Sequence[tuple[int, int]], *, now: Clock = timezone.now, threads: int = 1
) -> list[int]:
    """Apply the timeout of every ``(hand id, version)`` still at that version, in random
    order; a burst (after an outage, or a tournament's tables that all started together:
    each timeout is a few round trips) on up to ``threads`` threads side by side.
    Returns the hands whose timeout raised (logged); a database error is raised, since
    no other hand would fare better on the same connection."""
    shuffled = random.sample(list(due), len(due))
    count = max(1, min(threads, -(-len(shuffled) // HANDS_PER_THREAD)))
    shares = [shuffled[i::count] for i in range(count)]
    if len(shares) == 1:
        return _apply_share(shares[0], now)
    with ThreadPoolExecutor(len(shares) - 1, thread_name_prefix="clock-apply") as pool:
        helped = [pool.submit(_apply_share, share, now, close=True) for share in shares[1:]]
        failed = _apply_share(shares[0], now)
    return failed + [hand_id for future in helped for hand_id in future.result()]


def _apply_share(due: Sequence[tuple[int, int]], now: Clock, *, close: bool = False) -> list[int]:
    """``apply_timeouts`` on this thread; ``close``: its connection afterwards (a helper
    thread's, which would otherwise outlive it)."""
    from games import services

    failed = []
    try:
        for hand_id, version in due:
            try:
                services.execute(services.Timeout(hand_id, version), now=now())
            except services.Refused:
                pass  # the hand is gone
            except DatabaseError:
                raise
            except Exception:
                logger.exception("the timeout of hand %s failed", hand_id)
                failed.append(hand_id)
    finally:
        if close:
            connection.close()
    return failed


class ClockTicker:
    """Two daemon threads that apply due timeouts until stopped: the live clocks' (``tick``,
    every ``interval``) and the correspondence clocks' (``day_tick``, every
    ``day_interval``), each on its own database connection, so that neither ever waits for
    the other.

    Each keeps one database connection for its thread (opening one ten times a second
    would cost more than the query) and closes it after an error and when it stops.
    ``now`` (the deadlines' clock) and ``monotonic`` (the failed hands' rest) are
    injectable for tests; the threads wait in real seconds.
    """

    def __init__(
        self,
        *,
        interval: float = POLL_INTERVAL,
        day_interval: float = DAY_POLL_INTERVAL,
        threads: int = APPLY_THREADS,
        now: Clock = timezone.now,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.day_interval = day_interval
        self.threads = threads
        self._now = now
        self._monotonic = monotonic
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        # hand id -> monotonic time its backoff ends, for each pass (each its own thread's)
        self._resting: dict[int, float] = {}
        self._day_resting: dict[int, float] = {}

    def tick(self) -> float:
        """One pass over the live clocks: apply every due timeout (correspondence clocks
        are not read). Returns the seconds until the next pass: the poll interval, or
        less when a deadline comes sooner."""
        due, upcoming = due_timeouts(self._now(), lookahead=self.interval)
        self._apply(due, self._resting, threads=self.threads)
        if upcoming is None:
            return self.interval
        return min(self.interval, max(0.0, (upcoming - self._now()).total_seconds()))

    def day_tick(self) -> float:
        """One pass over the correspondence clocks: apply the ``DAY_BATCH`` soonest due
        timeouts, one after the other. Returns the seconds until the next pass: none while
        the batches come full (a burst), else the day interval."""
        resting = self._day_resting
        now = self._monotonic()
        skip = [pk for pk, end in resting.items() if end > now]
        due, _ = due_timeouts(self._now(), day=True, limit=DAY_BATCH, skip=skip)
        self._apply(due, resting, threads=1)
        return 0.0 if len(due) == DAY_BATCH else self.day_interval

    def _apply(
        self, due: Sequence[tuple[int, int]], resting: dict[int, float], *, threads: int
    ) -> None:
        """``apply_timeouts`` of ``due`` but the hands resting after a failure; a hand that
        fails now rests for ``FAILED_HAND_BACKOFF``."""
        now = self._monotonic()
        for pk in [pk for pk, end in resting.items() if end <= now]:
            del resting[pk]
        failed = apply_timeouts(
            [(pk, version) for pk, version in due if pk not in resting],
            now=self._now,
            threads=threads,
        )
        resting.update(dict.fromkeys(failed, now + FAILED_HAND_BACKOFF))

    def start(self) -> None:
        self._stopping.clear()
        # Each thread says its outage in one line when it starts and one when it ends.
        self._threads = [
            threading.Thread(target=self._run, args=(step, what), name=name, daemon=True)
            for step, what, name in (
                (self.tick, "clock ticks", "clock-ticker"),
                (self.day_tick, "correspondence clock ticks", "clock-ticker-day"),
            )
        ]
        for thread in self._threads:
            thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the threads to stop and wait for them (each finishes the timeout in hand)."""
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout)

    def is_alive(self) -> bool:
        """Whether both threads run (a ticker with one dead is started again whole)."""
        return bool(self._threads) and all(thread.is_alive() for thread in self._threads)

    def _run(self, step: Callable[[], float], what: str) -> None:
        delay = 0.0
        outage = Outage(
            logger,
            stopped=f"{what} stopped",
            again=f"{what} again",
            retry=f"retrying every {ERROR_DELAY} s",
        )
        try:
            while not self._stopping.wait(delay):
                try:
                    delay = step()
                except Exception as exc:
                    outage.failed(exc)  # one line when it starts, not one per retry
                    connection.close()  # it may be broken: the next tick opens a fresh one
                    delay = ERROR_DELAY
                else:
                    outage.succeeded()
        finally:
            connection.close()


class TickerProcess:
    """A ticker in a process of its own (``python -m games.clock``), child of this one.

    It ends with SIGTERM (``stop``), and by itself soon after this process is gone, even
    by SIGKILL; it shares this process's environment, working directory and log.
    """

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None

    def start(self) -> None:
        from django.conf import settings

        args = [sys.executable, "-m", "games.clock", "--parent", str(os.getpid())]
        self._proc = subprocess.Popen(args, cwd=settings.BASE_DIR)

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the process to stop and wait for it (it finishes the timeout in hand)."""
        if self._proc is None or self._proc.poll() is not None:
            return
        self._proc.terminate()
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def is_alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid


_lock = threading.Lock()
_tickers: dict[type, ClockTicker | TickerProcess] = {}


def start_ticker(*, own_process: bool = False) -> ClockTicker | TickerProcess:
    """Start this process's ticker (a thread, or with ``own_process`` a child process)
    unless it runs already: the embedded mode starts one, and beat's signal comes too."""
    kind = TickerProcess if own_process else ClockTicker
    with _lock:
        ticker = _tickers.get(kind)
        if ticker is None or not ticker.is_alive():
            if ticker is not None:
                ticker.stop(timeout=0)  # a thread of it that still runs ends too
            ticker = _tickers[kind] = kind()
            ticker.start()
            logger.info("clock ticker started (%s)", "process" if own_process else "thread")
        return ticker


def revive_tickers() -> int:
    """Start again whichever of this process's tickers has died; returns how many."""
    with _lock:
        dead = [kind for kind, ticker in _tickers.items() if not ticker.is_alive()]
    for kind in dead:
        logger.warning("the clock ticker (%s) had died: starting it again", kind.__name__)
        start_ticker(own_process=kind is TickerProcess)
    return len(dead)


def stop_tickers() -> None:
    """Stop this process's tickers, if any (a worker's warm shutdown)."""
    with _lock:
        tickers = list(_tickers.values())
        _tickers.clear()
    for ticker in tickers:
        ticker.stop()


def main(argv: Sequence[str] | None = None) -> None:
    """Run a ticker until SIGTERM, or until the process ``--parent`` is gone."""
    parser = argparse.ArgumentParser(prog="python -m games.clock", description=main.__doc__)
    parser.add_argument("--parent", type=int, help="the process id to outlive by no more than 1 s")
    options = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    ticker = ClockTicker()
    ticker.start()
    try:
        while ticker.is_alive() and options.parent in (None, os.getppid()):
            time.sleep(PARENT_CHECK)
    finally:
        ticker.stop()


if __name__ == "__main__":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")
    django.setup()
    main()
