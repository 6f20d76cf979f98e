"""A player's move made in the event loop: ``hand_act`` without a thread.

The live room's hot path. The same checks and the same engine judgement as
``play.hand_act`` (``require_in_play``, ``judge_move``), the same rows written
(``play.record``) in one transaction on an async connection (``core.adb``), with the
hand's row locked as the synchronous service locks it (only the hand: it is last in the
lock order, so no deadlock with the services that lock the table or the match first).

A move on a hand this process keeps in memory at the version the page showed (the live
room's frame, ``consumers.LiveTables``) is judged on that copy and written in ONE
statement (``rows.move_if_unchanged_async``: no lock taken, no read, one round trip),
which writes only if the row is still at that version and the players still sit as in
the copy; otherwise nothing is written and the move is made again as below, on the row
read and locked. A refusal is always the locked path's, on what the database holds.

What a move does beyond its hand goes to the synchronous service, which does it all:
a move that ends the hand (the letter, the match, a tournament's turn), a clock that has
run out (the timeout is applied first), and any database but PostgreSQL. Then
``hand_act_in_loop`` returns None and changes nothing; the caller runs ``hand_act``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from accounts.models import User
from core import adb
from core.errors import Refused
from games import events, rows
from games.models import Hand, MatchPlayer, to_instant
from games.services.play import RECORDED_FIELDS, judge_move, record, require_in_play


@dataclass
class KnownMoves:
    """How the moves judged on a hand kept in memory went, in this process."""

    written: int = 0  # in one statement
    missed: int = 0  # the row had moved on (or the players changed): made again, locked


KNOWN = KnownMoves()


async def hand_act_in_loop(
    *,
    hand_id: int,
    move: dict[str, Any],
    version: int,
    user: User,
    now: datetime | None = None,
    known: tuple[Hand, list[MatchPlayer], int] | None = None,
) -> Hand | None:
    """``user`` plays ``move`` on the hand at ``version``: the hand after it, committed and
    announced; None if ``hand_act`` must make it (nothing changed). Raises Refused.

    ``known``: the hand (not changed here), its match's players and its table's id as
    this process holds them, to judge the move on without reading them."""
    if not adb.available():
        return None
    now = now or timezone.now()
    if known is not None:
        hand = await _act_on_known(
            *known, hand_id=hand_id, move=move, version=version, user=user, now=now
        )
        if hand is not None:
            return hand
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


async def _act_on_known(
    known: Hand,
    players: list[MatchPlayer],
    table_id: int,
    *,
    hand_id: int,
    move: dict[str, Any],
    version: int,
    user: User,
    now: datetime,
) -> Hand | None:
    """The move judged on ``known`` and written in one statement; None when that cannot
    be (another hand or version, a refusal, a clock run out, the hand's end) or the row
    has moved on: then nothing was written."""
    if known.pk != hand_id or known.version != version or not players:
        return None
    if known.is_over or known.deadline is None:
        return None
    if known.clock.flagged(to_instant(now)) is not None:  # seat 0 is a seat too
        return None
    hand = rows.copied(known)  # the frame stays as it was for whoever holds it
    try:
        judged = judge_move(hand, players, move=move, version=version, user=user, now=now)
    except Refused:
        return None  # refused on what the database holds, in the locked path's words
    if judged.after.outcome is not None:
        return None
    actions = record(hand, judged, now=now)
    async with adb.CONNECTIONS.connection() as conn:
        written = await rows.move_if_unchanged_async(
            conn, hand, RECORDED_FIELDS, actions, version=version, players=players
        )
    if not written:
        KNOWN.missed += 1
        return None
    KNOWN.written += 1
    hand.table_id = table_id
    await events.hand_changed_now(hand, table_id=table_id, players=players)
    return hand
