"""The one move pipeline (services.moves) from the event loop (``execute_async``) on
PostgreSQL and the Redis layer: it records and refuses as ``execute`` does, writes the
end of a hand and a clock run out with their consequences, judges on the live room's
copy when it is at the page's version, and two moves at once never both land."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from core.errors import Refused
from games import events, selectors, services
from games.engine import Rules, move_to_json
from games.models import Action, Hand, Match
from tests.factories import make_table

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]

QUICK = Rules(max_actions=10, max_actions_result="most_cards")  # the 10th action ends it


@database_sync_to_async
def started(rules: Rules | None = None) -> tuple[Hand, dict]:
    table = make_table(players=2, base_seconds=600, rules=rules)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.select_related("match").get(match__table=table)
    return hand, {p.seat: p.user for p in hand.match.players.select_related("user")}


@database_sync_to_async
def fresh(hand: Hand) -> tuple[Hand, list[Action]]:
    row = Hand.objects.get(pk=hand.pk)
    return row, list(Action.objects.filter(hand=row).order_by("index"))


@database_sync_to_async
def shown(hand: Hand) -> selectors.TableSnapshot:
    """The table as a daphne's live room keeps it, before a move."""
    return selectors.table_snapshot(table_id=hand.match.table_id)


def applied(frame: selectors.TableSnapshot, event: dict) -> Hand:
    """The hand a process that showed ``frame`` makes of a move's event, without a read."""
    after = selectors.snapshot_after_change(
        frame, hand_id=event["hand"], version=event["version"], change=event["change"]
    )
    assert after is not None
    return after.hand


def first_legal(hand: Hand) -> dict:
    return move_to_json(hand.engine_state.legal_moves()[0])


@database_sync_to_async
def known(hand: Hand) -> tuple[Hand, list, int]:
    """What a daphne keeps of the table: the hand as last shown, its match's players."""
    row = Hand.objects.select_related("match").get(pk=hand.pk)
    return row, list(row.match.players.order_by("seat")), row.match.table_id


async def test_a_move_in_the_loop_is_recorded_and_announced_as_hand_act_does_it():
    hand, by_seat = await started()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(events.table_group(hand.match.table_id), channel)
    state, mover_seat = hand.engine_state, hand.engine_state.to_move
    move = first_legal(hand)
    now = hand.turn_started_at + timedelta(seconds=7)
    frame = await shown(hand)

    after = await services.execute_async(
        services.move_action(move, hand_id=hand.pk, version=1, user=by_seat[mover_seat]), now=now
    )

    assert after is not None and after.version == 2
    row, actions = await fresh(hand)
    assert row.version == 2 and row.state == after.state
    assert row.engine_state.to_move != mover_seat
    assert [(a.index, a.seat, a.move, a.time_used_ms) for a in actions] == [
        (0, mover_seat, move, 7000)
    ]
    assert actions[0].created_at is not None
    # The mover was charged 7 s (and got his increment); the other seat's clock runs.
    assert row.clock_ms[mover_seat] == 600_000 - 7000 + hand.increment_ms
    assert row.turn_started_at == now
    assert row.deadline == now + timedelta(milliseconds=row.clock_ms[1 - mover_seat])
    assert row.engine_state.history_length == state.history_length + 1
    event = await asyncio.wait_for(layer.receive(channel), 5)
    assert (event["type"], event["hand"], event["version"]) == ("table.changed", hand.pk, 2)
    # The consumers make the move on the table they show, without a read, and have the row.
    made = applied(frame, event)
    assert (made.state, made.clock_ms, made.deadline) == (row.state, row.clock_ms, row.deadline)


async def test_refused_moves_change_nothing():
    hand, by_seat = await started()
    mover = by_seat[hand.engine_state.to_move]
    other = by_seat[1 - hand.engine_state.to_move]
    move = first_legal(hand)
    illegal = {"type": "pickup", "count": 3}  # nothing to pick up before the first play
    cases = [
        ({"move": move, "version": 1, "user": other}, "It is not your turn."),
        ({"move": move, "version": 5, "user": mover}, "The table has changed"),
        ({"move": illegal, "version": 1, "user": mover}, ""),
        ({"move": {"type": "dance"}, "version": 1, "user": mover}, "That is not a move"),
    ]
    for kwargs, message in cases:
        with pytest.raises(Refused) as refused:
            action = services.move_action(kwargs.pop("move"), hand_id=hand.pk, **kwargs)
            await services.execute_async(action)
        assert message in str(refused.value.message)
    row, actions = await fresh(hand)
    assert (row.version, row.state, actions) == (1, hand.state, [])


async def test_a_clock_run_out_is_applied_and_the_move_refused():
    hand, by_seat = await started()
    mover = by_seat[hand.engine_state.to_move]
    late = hand.deadline + timedelta(seconds=1)

    with pytest.raises(Refused) as refused:
        await services.execute_async(
            services.move_action(first_legal(hand), hand_id=hand.pk, version=1, user=mover),
            now=late,
        )

    assert refused.value.resync
    assert "Your time ran out" in str(refused.value.message)
    row, actions = await fresh(hand)
    assert row.version == 2 and row.outcome is not None
    assert row.outcome["reason"] == "timeout" and [a.seat for a in actions] == [
        hand.engine_state.to_move
    ]


async def test_the_move_that_ends_the_hand_is_written_with_the_letter():
    hand, by_seat = await started(rules=QUICK)
    while True:
        row, _actions = await fresh(hand)
        if row.outcome is not None:
            break
        await services.execute_async(
            services.move_action(
                first_legal(row),
                hand_id=hand.pk,
                version=row.version,
                user=by_seat[row.engine_state.to_move],
            )
        )
    assert row.version == 11  # the 10th action ended it
    match = await database_sync_to_async(Match.objects.get)(pk=hand.match_id)
    outcome = row.engine_state.outcome
    expected = tuple(int(seat == outcome.loser) for seat in range(2))
    assert match.match_state.letters == expected


@pytest.mark.parametrize("kept", [False, True], ids=["read", "kept copy"])
async def test_two_moves_at_once_land_once(kept: bool):
    hand, by_seat = await started()
    mover = by_seat[hand.engine_state.to_move]
    move, now = first_legal(hand), timezone.now()
    copy = await known(hand) if kept else None

    def one() -> asyncio.Future:
        return services.execute_async(
            services.move_action(move, hand_id=hand.pk, version=1, user=mover), now=now, known=copy
        )

    results = await asyncio.gather(one(), one(), return_exceptions=True)
    landed = [r for r in results if isinstance(r, Hand)]
    refused = [r for r in results if isinstance(r, Refused)]
    assert len(landed) == 1 and len(refused) == 1
    # The second was judged on version 1 and its write found the version gone, or it
    # read the row after the first's write; judged on the kept copy, it is refused in
    # the words of the row read again.
    said = str(refused[0].message)
    assert said == "It is not your turn." or (not kept and said.startswith("The table has"))
    row, actions = await fresh(hand)
    assert row.version == 2 and len(actions) == 1


# --- a move judged on the hand the process keeps (the live room's frame) -------------------


async def test_a_move_judged_on_the_kept_hand_is_written_as_one_read_from_the_row():
    hand, by_seat = await started()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(events.table_group(hand.match.table_id), channel)
    mover_seat, move = hand.engine_state.to_move, first_legal(hand)
    now = hand.turn_started_at + timedelta(seconds=7)
    kept = await known(hand)
    kept_state = kept[0].state
    frame = await shown(hand)

    after = await services.execute_async(
        services.move_action(move, hand_id=hand.pk, version=1, user=by_seat[mover_seat]),
        now=now,
        known=kept,
    )

    assert kept[0].version == 1 and kept[0].state == kept_state  # the kept copy unchanged
    row, actions = await fresh(hand)
    assert after is not None and row.version == after.version == 2
    assert row.state == after.state and row.engine_state.to_move != mover_seat
    assert [(a.index, a.seat, a.move, a.time_used_ms) for a in actions] == [
        (0, mover_seat, move, 7000)
    ]
    assert row.clock_ms[mover_seat] == 600_000 - 7000 + hand.increment_ms
    assert row.turn_started_at == now
    assert row.deadline == now + timedelta(milliseconds=row.clock_ms[1 - mover_seat])
    event = await asyncio.wait_for(layer.receive(channel), 5)
    assert (event["hand"], event["version"]) == (hand.pk, 2)
    assert applied(frame, event).state == row.state


async def test_a_clock_run_out_on_the_kept_copy_is_applied_whichever_seat_it_is():
    for _attempt in range(20):  # a deal where seat 0 leads: its flag is seat number 0
        hand, by_seat = await started()
        if hand.engine_state.to_move == 0:
            break
    assert hand.engine_state.to_move == 0
    kept = await known(hand)
    late = hand.deadline + timedelta(seconds=1)

    with pytest.raises(Refused) as refused:
        await services.execute_async(
            services.move_action(first_legal(hand), hand_id=hand.pk, version=1, user=by_seat[0]),
            now=late,
            known=kept,
        )

    assert "Your time ran out" in str(refused.value.message)
    row, actions = await fresh(hand)
    assert row.version == 2 and row.outcome["reason"] == "timeout" and len(actions) == 1


async def test_a_kept_copy_behind_the_page_is_not_used_and_the_move_lands():
    hand, by_seat = await started()
    kept = await known(hand)  # version 1
    first = by_seat[hand.engine_state.to_move]
    await services.execute_async(
        services.move_action(first_legal(hand), hand_id=hand.pk, version=1, user=first)
    )
    row, _actions = await fresh(hand)

    # The page shows version 2; this process still holds version 1.
    after = await services.execute_async(
        services.move_action(
            first_legal(row), hand_id=hand.pk, version=2, user=by_seat[row.engine_state.to_move]
        ),
        known=kept,
    )

    assert after is not None and after.version == 3
    row, actions = await fresh(hand)
    assert row.version == 3 and [a.index for a in actions] == [0, 1]


async def test_a_kept_copy_the_row_has_left_writes_nothing():
    hand, by_seat = await started()
    kept = await known(hand)
    mover = by_seat[hand.engine_state.to_move]
    move = first_legal(hand)
    # Another process made the move; this one still holds version 1.
    await services.execute_async(services.move_action(move, hand_id=hand.pk, version=1, user=mover))

    with pytest.raises(Refused) as refused:
        await services.execute_async(
            services.move_action(move, hand_id=hand.pk, version=1, user=mover), known=kept
        )

    # Judged on the copy, written by nobody: the version had gone; the row says why.
    assert str(refused.value.message) == "It is not your turn."
    row, actions = await fresh(hand)
    assert row.version == 2 and len(actions) == 1


async def test_a_seat_handed_to_a_bot_since_the_copy_was_kept_writes_nothing():
    hand, by_seat = await started()
    kept = await known(hand)
    mover = by_seat[hand.engine_state.to_move]

    @database_sync_to_async
    def hand_his_seat_to_a_bot() -> None:  # as a player who leaves mid-match does
        hand.match.players.filter(user=mover).update(bot_level="greedy")

    await hand_his_seat_to_a_bot()

    with pytest.raises(Refused) as refused:
        await services.execute_async(
            services.move_action(first_legal(hand), hand_id=hand.pk, version=1, user=mover),
            known=kept,
        )

    # Judged on the copy; the write found the players changed, and the row says why.
    assert str(refused.value.message) == "A bot plays your former seat now."
    row, actions = await fresh(hand)
    assert (row.version, actions) == (1, [])
