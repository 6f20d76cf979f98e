"""Timers cost O(live hands), not O(moves): a move hands no timer task to the broker."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from celery.signals import after_task_publish

from fairplay.services import cases as fairplay
from games import services
from games.engine import move_to_json
from games.models import Hand, Match
from puzzles.services import PUZZLE_TASK, hand_qualifies
from tests.factories import make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


@contextmanager
def published() -> Iterator[list[str]]:
    """The names of the tasks this process hands to the broker meanwhile (Celery's
    ``after_task_publish``: sent, whoever takes them; a worker of another test run on the
    same Redis may empty a queue before it is read)."""
    names: list[str] = []

    def record(sender: str | None = None, headers: dict | None = None, **kwargs: object) -> None:
        names.append((headers or {}).get("task") or sender)

    after_task_publish.connect(record, weak=False)
    try:
        yield names
    finally:
        after_task_publish.disconnect(record)


def play(moves: int) -> list[Hand]:
    """Make ``moves`` moves, hand after hand, table after table; returns the hands ended."""
    ended = []
    match = None
    while moves:
        if match is None or match.status != Match.Status.PLAYING:
            table = make_table(players=2, base_seconds=600)
            match = services.match_start(table_id=table.pk, by=table.owner)
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            ended.append(hand)
            services.match_next_hand(match_id=match.pk, after_number=hand.number)
        else:
            state = hand.engine_state
            services.execute(
                services.move_action(
                    move_to_json(state.legal_moves()[0]),
                    hand_id=hand.pk,
                    version=hand.version,
                    user=hand.match.players.get(seat=state.to_move).user,
                )
            )
            moves -= 1
        match.refresh_from_db()
    return ended


def test_fifty_moves_leave_no_timer_task_in_the_broker():
    with published() as sent:
        ended = play(50)
    # Nothing but what each hand that ended sends (the deal of the next, the puzzle
    # search of one hand in so many, the fair-play check of a rated one): no task per move.
    searched = [hand for hand in ended if hand_qualifies(hand)]
    judged = [hand for hand in ended if fairplay.hand_qualifies(hand)]
    assert sorted(sent) == sorted(
        ["games.match_next_hand"] * len(ended)
        + [PUZZLE_TASK] * len(searched)
        + [fairplay.FAIRPLAY_TASK] * len(judged)
    )
