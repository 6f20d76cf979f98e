"""A player's move made in the event loop: ``hand_act`` without a thread.

The live room's hot path. The same checks and the same engine judgement as
``play.hand_act`` (``require_in_play``, ``judge_move``), the same rows written
(``play.record``) in one transaction on an async connection (``core.adb``), with the
hand's row locked as the synchronous service locks it (only the hand: it is last in the
lock order, so no deadlock with the services that lock the table or the match first).

What a move does beyond its hand goes to the synchronous service, which does it all:
a move that ends the hand (the letter, the match, a tournament's turn), a clock that has
run out (the timeout is applied first), and any database but PostgreSQL. Then
``hand_act_in_loop`` returns None and changes nothing; the caller runs ``hand_act``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from accounts.models import User
from core import adb
from games import events, rows
from games.models import Hand, to_instant
from games.services.play import RECORDED_FIELDS, judge_move, record, require_in_play


async def hand_act_in_loop(
    *,
    hand_id: int,
    move: dict[str, Any],
    version: int,
    user: User,
    now: datetime | None = None,
) -> Hand | None:
    """``user`` plays ``move`` on the hand at ``version``: the hand after it, committed and
    announced; None if ``hand_act`` must make it (nothing changed). Raises Refused."""
    if not adb.available():
        return None
    now = now or timezone.now()
    async with adb.CONNECTIONS.transaction() as conn:
        hand, players = await rows.hand_for_move_async(conn, hand_id)
        if hand is None:
            return None  # hand_act says so, in its words
        require_in_play(hand)
        if hand.clock.flagged(to_instant(now)) is not None:
            return None  # hand_act applies the timeout first, and commits it
        judged = judge_move(hand, players, move=move, version=version, user=user, now=now)
        if judged.after.outcome is not None:
            return None  # the hand ends: a letter, maybe the match and a tournament
        actions = record(hand, judged, now=now)
        await rows.insert_async(conn, actions)
        await rows.save_fields_async(conn, hand, RECORDED_FIELDS)
    await events.hand_changed_now(hand, table_id=hand.table_id, players=players)
    return hand
