"""Timers cost O(live hands), not O(moves): a move leaves no timer task in the broker."""

from __future__ import annotations

import json

import pytest
import redis
from django.conf import settings

from games import services
from games.engine import move_to_json
from games.models import Hand, Match
from puzzles.services import PUZZLE_TASK, hand_qualifies
from tests.factories import make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


def broker_messages() -> dict[str, dict]:
    """Every message waiting in this site's queues, by id: its Celery headers (no worker
    runs in this test, so a task sent stays in its queue, eta or not)."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    messages = {}
    # Every queue named after this site's: its own, its priority steps, any other it adds.
    for key in client.scan_iter(match=f"{settings.CELERY_TASK_DEFAULT_QUEUE}*", _type="list"):
        for raw in client.lrange(key, 0, -1):
            headers = json.loads(raw)["headers"]
            messages[headers["id"]] = headers
    return messages


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
    before = broker_messages()
    ended = play(50)
    sent = [headers for key, headers in broker_messages().items() if key not in before]
    # Nothing but what each hand that ended sends (the deal of the next, and the puzzle
    # search of one hand in so many): no task per move.
    searched = [hand for hand in ended if hand_qualifies(hand)]
    assert sorted(headers["task"] for headers in sent) == sorted(
        ["games.match_next_hand"] * len(ended) + [PUZZLE_TASK] * len(searched)
    )
