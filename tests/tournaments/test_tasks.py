"""A whole tournament on the real stack: PostgreSQL, Redis, `celery worker`, `celery beat`.

Twelve bots register; Celery starts the tournament at its start time, the tables deal
and balance through the tasks, a worker is killed half-way and another takes over, and
the tournament runs to its winner. The final places must agree with the Hand records.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.processes import (
    ROOT,
    celery_worker_args,
    kill_group,
    running,
    wait_for_log,
    wait_until,
)
from games.models import Hand, Table
from tests.games.test_clocks import celery_beat, process_env
from tests.tournaments.helpers import make_tournament
from tournaments import tasks
from tournaments.models import Tournament
from tournaments.selectors import tournament_audit

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


@contextmanager
def fast_worker(tmp_path: Path, name: str) -> Iterator[subprocess.Popen]:
    """A real worker (see fast_worker.py: bots act without the pause for watchers)."""
    log = tmp_path / f"{name}.log"
    script = ROOT / "tests" / "tournaments" / "fast_worker.py"
    worker = celery_worker_args()
    args = [sys.executable, str(script), *worker[worker.index("worker") :]]
    with running(args, env=process_env(), log=log) as proc:
        wait_for_log(log, "ready.", proc=proc)
        yield proc


def test_twelve_bots_play_a_tournament_to_the_end_through_the_tasks(tmp_path):
    tournament = make_tournament(
        bots=12,
        seats_per_table=4,
        max_actions=30,
        base_seconds=5,
        increment_seconds=0,
        seconds_between_hands=0.2,
        starts_in=4,
    )
    eliminated = tournament.entries.filter(eliminated_at__isnull=False)
    with celery_beat(tmp_path):
        with fast_worker(tmp_path, "worker-1") as first:
            wait_until(lambda: eliminated.count() >= 2, timeout=120, what="two eliminations")
            kill_group(first)  # SIGKILL mid-tournament: whatever it held is lost
        with fast_worker(tmp_path, "worker-2"):
            wait_until(
                lambda: (
                    Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
                ),
                timeout=240,
                what="the tournament to finish",
            )
            wait_until(
                lambda: not Table.objects.exclude(status=Table.Status.CLOSED).exists(),
                timeout=30,
                what="every table to close",
            )
    tournament.refresh_from_db()
    entries = list(tournament.entries.order_by("place"))
    winner, *others = entries
    assert winner.place == 1 and [e.place for e in entries].count(1) == 1
    assert winner.eliminated_at is None and winner.letters < 3
    assert all(e.letters == 3 and e.eliminated_at for e in others)
    # Each place is one more than the players still in at that elimination; players
    # eliminated at the same moment share it (so 8, 8, 10 is right, 8, 9, 9 is not).
    for entry in others:
        still_in = sum(
            1 for e in entries if e.eliminated_at is None or e.eliminated_at > entry.eliminated_at
        )
        assert entry.place == still_in + 1, (entry.display_name, entry.place, still_in)
    assert tournament_audit(tournament=tournament) == []
    hands = Hand.objects.filter(match__table__tournament_table__tournament=tournament)
    assert hands.filter(outcome__isnull=True).count() == 0
    assert hands.count() >= 33  # eleven players lost three hands each
    assert tournament.tables.count() == 3


def test_the_sweep_starts_what_is_due_and_is_safe_to_repeat():
    # Time to register its bots, even on a busy machine, before it is due.
    tournament = make_tournament(bots=5, starts_in=3)
    time.sleep(3.1)
    assert tasks.tournament_sweep() == {"started": 1, "advanced": 1}
    assert tasks.tournament_sweep() == {"started": 0, "advanced": 1}
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.tables.count() == 2
    assert Hand.objects.filter(outcome__isnull=True).count() == 2
