"""Python's garbage collector in a long-running server process (daphne).

A full collection walks every object the process holds. A daphne with a live room of
hundreds of tables holds hundreds of thousands of them, so a full pass takes a large
fraction of a second, and every move in flight waits on it.

So what has lived a while is set aside from the collections (``gc.freeze``) every
``freeze_every`` seconds: a full pass then walks only what came since. Refcounting still
frees what is set aside; only garbage in reference cycles among it (a closed socket's
consumer, its tasks) waits for the rare complete pass, every ``full_every`` seconds,
which takes everything back, collects, and sets the survivors aside again.

Why every second: the middle generation is what survived the young collections since
its last pass, and in a server most of that is the objects that replace others (a
table's new snapshot, a socket's next receive task): their count grows while the ones
they replace are freed, so the young passes come no sooner, and the middle generation
grows to tens of thousands of objects whose passes stall the loop about once a second.
Set aside every second, it stays small; the process's memory stays the same.

What dies in a cycle after it was set aside holds its resources until the complete
pass: nothing that holds a scarce one may be left to the collector, and the young
generation is collected just before each freeze (a fraction of a millisecond; the middle
one too cost 2 % of a busy daphne's time), so that a cycle that died moments before is
freed, not set aside. An HTTP request's
database connection is closed when the request ends (``pan_site.asgi``): left to the
collector, a daphne serving the browser tests held 64 of PostgreSQL's 100 connections
after a minute.

The complete pass walks the whole live room: a third of a second at 250 tables, while
every move waits. A closed table socket used to end in a reference cycle (its pinger
task, cancelled, kept the CancelledError whose traceback held the socket); it lets go of
the task now (tests/games/test_socket_garbage.py). The pass stays on its schedule for
what else may die in cycles; the soak prints how many dead cycles each pass freed.
Every collection's pause is measured (``Pauses``) and the longest logged each
``report_every`` seconds.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

FREEZE_EVERY = 1.0
FULL_EVERY = 600.0
REPORT_EVERY = 60.0


class Pauses:
    """How long the collections stopped the process (``gc.callbacks``): how many since
    the last ``take``, and the longest with its generation and the CPU its thread spent
    in it (less than the pause when the machine's other processes took the core)."""

    def __init__(self) -> None:
        self.started = self.started_cpu = 0.0
        self.count = 0
        self.longest = self.longest_cpu = 0.0
        self.generation = -1

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started, self.started_cpu = time.perf_counter(), time.thread_time()
            return
        pause = time.perf_counter() - self.started
        self.count += 1
        if pause > self.longest:
            self.longest, self.generation = pause, info["generation"]
            self.longest_cpu = time.thread_time() - self.started_cpu

    def take(self) -> tuple[int, float, float, int]:
        """(collections, the longest pause and its CPU in seconds, its generation) since
        the last take; then from nothing again."""
        taken = (self.count, self.longest, self.longest_cpu, self.generation)
        self.count, self.longest, self.longest_cpu, self.generation = 0, 0.0, 0.0, -1
        return taken


class Freezer:
    """When to set the long-lived objects aside and when to collect everything."""

    def __init__(
        self,
        *,
        freeze_every: float = FREEZE_EVERY,
        full_every: float = FULL_EVERY,
        report_every: float = REPORT_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.freeze_every, self.full_every, self.clock = freeze_every, full_every, clock
        self.report_every = report_every
        self.frozen_at = self.full_at = self.reported_at = clock()
        self.pauses = Pauses()

    def tick(self) -> str:
        """Do what is due: ``"full"`` (everything collected, then set aside), ``"freeze"``
        or ``""``; and say how long the collections paused, when that is due."""
        now = self.clock()
        if now - self.reported_at >= self.report_every:
            self.report(now)
        if now - self.full_at >= self.full_every:
            self.collect_all()
            return "full"
        if now - self.frozen_at >= self.freeze_every:
            gc.collect(0)  # the young cycles go first: set aside, only a complete pass frees them
            gc.freeze()
            self.frozen_at = now
            return "freeze"
        return ""

    def watch_pauses(self) -> None:
        """Measure every collection of the process from now (``Pauses``)."""
        if self.pauses not in gc.callbacks:
            gc.callbacks.append(self.pauses)

    def report(self, now: float) -> None:
        count, longest, cpu, generation = self.pauses.take()
        logger.info(
            "collections in the last %.0f s: %d, the longest %.1f ms (generation %d, "
            "%.1f ms of CPU); %d objects set aside",
            now - self.reported_at,
            count,
            longest * 1e3,
            generation,
            cpu * 1e3,
            gc.get_freeze_count(),
        )
        self.reported_at = now

    def collect_all(self) -> None:
        """The complete pass: take everything back, collect, and set the survivors aside
        again (when it is due, or at a moment the caller knows to be quiet)."""
        started = time.perf_counter()
        aside = gc.get_freeze_count()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.full_at = self.frozen_at = self.clock()
        logger.info(
            "complete collection in %.0f ms: of %d objects set aside, %d were dead cycles",
            (time.perf_counter() - started) * 1e3,
            aside,
            found,
        )


def keep_long_lived_aside(freezer: Freezer | None = None) -> threading.Thread:
    """Set aside what the process built to start, then keep ``freezer``'s schedule in a
    thread of its own for the life of the process, measuring the collections' pauses."""
    freezer = freezer or Freezer()
    gc.collect()
    gc.freeze()
    freezer.watch_pauses()

    def run() -> None:
        while True:
            time.sleep(min(freezer.freeze_every, freezer.full_every, freezer.report_every) / 2)
            freezer.tick()

    thread = threading.Thread(target=run, name="gc-freezer", daemon=True)
    thread.start()
    return thread
