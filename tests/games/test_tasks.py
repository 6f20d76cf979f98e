"""The beat sweep (layer 3): it deals the hands that are due and wakes the bots that wait,
each found with one query however many tables play."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services, tasks
from games.models import Hand
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def _started(players: int = 2, *, bot: bool = False) -> Hand:
    table = make_table(players=players, base_seconds=600)
    if bot:
        services.table_add_bot(table_id=table.pk, by=table.owner, position=players, level="greedy")
    services.match_start(table_id=table.pk, by=table.owner)
    return Hand.objects.get(match__table=table)


def _long_ago(hand: Hand, **fields: object) -> None:
    Hand.objects.filter(pk=hand.pk).update(**fields)


def test_the_sweep_deals_a_hand_whose_pause_is_long_over_and_only_once():
    ended = _started()
    services.execute(services.Timeout(hand_id=ended.pk), now=ended.deadline + timedelta(seconds=1))
    recent = _started()
    services.execute(
        services.Timeout(hand_id=recent.pk), now=recent.deadline + timedelta(seconds=1)
    )
    _long_ago(ended, finished_at=timezone.now() - timedelta(minutes=1))
    _long_ago(recent, finished_at=timezone.now())  # its pause is not over yet
    in_play = _started()

    assert tasks.sweep_hands()["dealt"] == 1
    assert ended.match.hands.count() == 2
    assert recent.match.hands.count() == 1 and in_play.match.hands.count() == 1
    assert tasks.sweep_hands()["dealt"] == 0


def _bot_to_move(hand: Hand) -> bool:
    return bool(hand.match.players.get(seat=hand.engine_state.to_move).bot_level)


def test_the_sweep_wakes_only_bots_that_wait_for_their_turn():
    hands: list[Hand] = []
    while not (any(map(_bot_to_move, hands)) and not all(map(_bot_to_move, hands))):
        assert len(hands) < 30, "the deal never gave the first turn to both kinds"
        hands.append(_started(1, bot=True))  # a person and a bot: either may start
    hands.append(_started())  # two people
    for hand in hands:
        _long_ago(hand, turn_started_at=timezone.now() - timedelta(minutes=1))
    bots_to_move = [h for h in hands if _bot_to_move(h)]

    with CaptureQueriesContext(connection) as queries:
        woken = tasks.sweep_hands()["bots"]
    assert woken == len(bots_to_move)
    # Not a query per hand: the deals and the bots are found with one query each.
    assert len(queries) < 8


def test_a_next_hand_task_for_a_match_gone_meanwhile_does_nothing():
    """A task queued before its table was deleted (or before the database was made
    again) finds no match: nothing to deal, and no error in the worker's log."""
    table = make_table(players=2)
    match = services.match_start(table_id=table.pk, by=table.owner)
    match_id = match.pk
    table.delete()
    assert tasks.match_next_hand_task(match_id, 1) is False
