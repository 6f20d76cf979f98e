"""An arena on the real stack (PostgreSQL, Redis, `celery worker`, `celery beat`), with the
worker and the beat killed half-way and started again: nobody is ever in two games at
once, no game is lost, and the points agree with a recount from the hands."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

import pytest
from django.db.models import Q
from django.utils import timezone

from bench.processes import kill_group
from games.models import Hand
from tests.games.test_clocks import celery_beat
from tests.tournaments.test_arena import make_arena
from tests.tournaments.test_tasks import fast_worker, wait_until
from tournaments.arena_selectors import arena_recount
from tournaments.models import ArenaGame, ArenaPlayer, Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


def test_an_arena_survives_a_restart_of_its_worker_and_beat(tmp_path):
    arena = make_arena(
        bots=10,
        max_actions=30,
        base_seconds=15,
        increment_seconds=0,
        seconds_between_hands=0.2,
        starts_in=3,
    )
    finished = ArenaGame.objects.filter(tournament=arena, finished_at__isnull=False)
    with celery_beat(tmp_path) as beat, fast_worker(tmp_path, "worker-1") as worker:
        wait_until(lambda: finished.count() >= 4, timeout=120, what="four games")
        kill_group(worker)  # SIGKILL both mid-arena: whatever they held is lost
        kill_group(beat)
    seen = finished.count()
    with celery_beat(tmp_path), fast_worker(tmp_path, "worker-2"):
        wait_until(lambda: finished.count() >= seen + 6, timeout=180, what="six more games")
        # The countdown ends now: the games in play finish and the leaderboard freezes.
        Tournament.objects.filter(pk=arena.pk).update(ends_at=timezone.now())
        wait_until(
            lambda: Tournament.objects.get(pk=arena.pk).status == Tournament.Status.FINISHED,
            timeout=120,
            what="the arena to finish",
        )
    arena.refresh_from_db()
    # Nobody was in two games at once: each player's games follow one another.
    for entry in arena.entries.all():
        spans = list(
            ArenaPlayer.objects.filter(entry=entry)
            .order_by("game__started_at")
            .values_list("game__started_at", "game__finished_at")
        )
        for (_start, end), (next_start, _end) in pairwise(spans):
            assert end is not None and next_start >= end, entry.display_name
    # No game is lost: each has ended; a counted one's hand is over, and every hand dealt
    # at the arena's tables is one of its games.
    games = ArenaGame.objects.filter(tournament=arena)
    assert not games.filter(finished_at__isnull=True).exists()
    hands = Hand.objects.filter(match__table__tournament_table__tournament=arena)
    assert hands.count() == games.count()
    assert not hands.filter(Q(outcome__isnull=True)).exists()
    assert all(hand_of_game.outcome for hand_of_game in hands)
    assert sorted(arena.entries.values_list("place", flat=True)) == list(range(1, 11))
    recount = arena_recount(arena)
    assert all(recount[e.pk] == e.points for e in arena.entries.all())
    assert arena.ends_at is not None and arena.finished_at >= arena.ends_at - timedelta(seconds=1)
