"""A move's event carries the move, not the state: a process that showed the version
before makes it with the engine and shows what a read of the row shows; when it cannot
(an event missed, a change it cannot follow) it reads the table instead."""

from __future__ import annotations

from datetime import timedelta

import msgpack
import pytest

from games import events, selectors, services
from games.engine import move_to_json
from games.models import Hand
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def started() -> tuple[Hand, dict]:
    table = make_table(players=3, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.select_related("match").get(match__table=table)
    return hand, {p.seat: p.user for p in hand.match.players.select_related("user")}


def move(hand: Hand, by_seat: dict, index: int = 0) -> Hand:
    """The player to move makes his ``index``-th legal move (picking up when he can, so
    that the hand grows long)."""
    state = hand.engine_state
    legal = state.legal_moves()
    choice = move_to_json(legal[index % len(legal)])
    return services.execute(
        services.move_action(
            choice, hand_id=hand.pk, version=hand.version, user=by_seat[state.to_move]
        )
    )


def after(frame: selectors.TableSnapshot, hand: Hand) -> selectors.TableSnapshot | None:
    change = msgpack.unpackb(msgpack.packb(events.hand_change(hand)))  # as Redis carries it
    return selectors.snapshot_after_change(
        frame, hand_id=hand.pk, version=hand.version, change=change
    )


def test_every_move_of_a_long_hand_is_made_from_its_event_as_the_row_has_it():
    hand, by_seat = started()
    frame = selectors.table_snapshot(table_id=hand.match.table_id)
    moves = 0
    while moves < 60:
        hand = move(hand, by_seat, index=moves)
        if hand.is_over:
            break
        frame = after(frame, hand)
        assert frame is not None, f"move {moves} was not followed"
        row = Hand.objects.get(pk=hand.pk)
        assert frame.hand.version == row.version
        assert frame.hand.state == row.state
        assert frame.state.to_json() == row.state
        assert (frame.hand.clock_ms, frame.hand.deadline) == (row.clock_ms, row.deadline)
        # However long the hand, what travels is its last action and the clock.
        assert len(msgpack.packb(events.hand_change(hand))) < 400
        moves += 1
    assert moves >= 10


def test_a_process_that_missed_a_move_reads_the_table_again():
    hand, by_seat = started()
    frame = selectors.table_snapshot(table_id=hand.match.table_id)
    hand = move(hand, by_seat)
    hand = move(hand, by_seat)  # the frame is two versions behind
    assert after(frame, hand) is None


def test_a_change_whose_action_does_not_lead_where_it_says_is_read_instead():
    hand, by_seat = started()
    frame = selectors.table_snapshot(table_id=hand.match.table_id)
    hand = move(hand, by_seat)
    change = events.hand_change(hand)
    wrong_seat = {**change, "last": {**change["last"], "seat": (change["last"]["seat"] + 1) % 3}}
    wrong_turn = {**change, "to_move": (change["to_move"] + 1) % 3}
    older_release = {k: v for k, v in change.items() if k not in ("history", "last")}
    for bad in (wrong_seat, wrong_turn, older_release):
        assert (
            selectors.snapshot_after_change(
                frame, hand_id=hand.pk, version=hand.version, change=bad
            )
            is None
        )


def test_a_clock_stopped_and_started_again_keeps_the_cards_and_moves_the_clock():
    hand, by_seat = started()
    hand = move(hand, by_seat)
    frame = selectors.table_snapshot(table_id=hand.match.table_id)
    locked = Hand.objects.select_related("match").get(pk=hand.pk)
    now = hand.turn_started_at + timedelta(seconds=1)
    assert services.tournament_clocks_stop(hand=locked, now=now)
    stopped = after(frame, locked)
    assert stopped is not None and stopped.hand.deadline is None
    assert stopped.state is frame.state and stopped.hand.version == hand.version + 1
