"""Python's garbage collector in a long-running server process (daphne).

A full collection walks every object the process holds. At 250 live tables (1,000
sockets) a daphne holds 350,000 to 480,000 of them, a full pass took 0.3 to 0.45 s,
and one came every 10 to 20 s: every move in flight waited on it (make bench-load: p95
346 ms where the median was 24 ms).

So what has lived a while is set aside from the collections (``gc.freeze``) every
``freeze_every`` seconds: a full pass then walks only what came since. Refcounting still
frees what is set aside; only garbage in reference cycles among it (a closed socket's
consumer, its tasks) waits for the rare complete pass, every ``full_every`` seconds,
which takes everything back, collects, and sets the survivors aside again. Measured at
250 tables: full passes of 30 to 70 ms setting aside every 10 s, 70 to 170 ms every
30 s, 300 to 450 ms never.

Every second, since: the middle generation is what survived the young collections
since its last pass, and in a server most of that is the objects that replace others
(a table's new snapshot, a socket's next receive task): their count grows while the
ones they replace are freed, so the young passes come no sooner, and the middle
generation held 15,000 to 75,000 objects. Its passes took 30 to 80 ms, about one a
second. Set aside every second, 5 to 20 ms (make bench-load at 250 tables on one
daphne, three runs each way in turn: p99 31 to 33 ms against 63 to 120 ms; the
process's memory after 150 s of play the same, 262 against 261 MB).

What dies in a cycle after it was set aside holds its resources until the complete
pass: nothing that holds a scarce one may be left to the collector. An HTTP request's
database connection is closed when the request ends (``pan_site.asgi``): left to the
collector, a daphne serving the browser tests held 64 of PostgreSQL's 100 connections
after a minute.
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


class Freezer:
    """When to set the long-lived objects aside and when to collect everything."""

    def __init__(
        self,
        *,
        freeze_every: float = FREEZE_EVERY,
        full_every: float = FULL_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.freeze_every, self.full_every, self.clock = freeze_every, full_every, clock
        self.frozen_at = self.full_at = clock()

    def tick(self) -> str:
        """Do what is due: ``"full"`` (everything collected, then set aside), ``"freeze"``
        or ``""``."""
        now = self.clock()
        if now - self.full_at >= self.full_every:
            started = time.perf_counter()
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self.full_at = self.frozen_at = now
            logger.info("complete collection in %.0f ms", (time.perf_counter() - started) * 1e3)
            return "full"
        if now - self.frozen_at >= self.freeze_every:
            gc.freeze()
            self.frozen_at = now
            return "freeze"
        return ""


def keep_long_lived_aside(freezer: Freezer | None = None) -> threading.Thread:
    """Set aside what the process built to start, then keep ``freezer``'s schedule in a
    thread of its own for the life of the process."""
    freezer = freezer or Freezer()
    gc.collect()
    gc.freeze()

    def run() -> None:
        while True:
            time.sleep(min(freezer.freeze_every, freezer.full_every) / 2)
            freezer.tick()

    thread = threading.Thread(target=run, name="gc-freezer", daemon=True)
    thread.start()
    return thread
