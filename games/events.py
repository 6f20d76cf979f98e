"""What leaves after a commit: group events to the websockets, and Celery tasks.

Called inside a service's transaction; nothing here runs until the transaction
commits (Zulip's ``send_event_on_commit``), so a rolled-back change is never seen.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

if TYPE_CHECKING:
    from games.models import Hand, MatchPlayer

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
BOT_DELAY = (0.6, 1.4)  # seconds: a short, human-like pause before a bot acts


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def user_group(user_id: int) -> str:
    """Every open socket (table or lobby) of one signed-in user: moderation reaches them all."""
    return f"user-{user_id}"


def user_event_on_commit(user_id: int, event: dict) -> None:
    """Send ``event`` to every open socket of a user once the transaction commits."""
    transaction.on_commit(lambda: _group_send(user_group(user_id), event))


def _group_send(group: str, event: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        if _loop_runs_here():
            # A sync caller inside a running loop (a test driving a browser): asgiref
            # refuses to block that loop's thread, so the send gets a thread of its own.
            with ThreadPoolExecutor(max_workers=1) as pool:
                pool.submit(async_to_sync(layer.group_send), group, event).result()
        else:
            async_to_sync(layer.group_send)(group, event)
    except Exception:  # a broadcast failure must not undo a committed move
        logger.exception("group_send to %s failed", group)


def _loop_runs_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def lobby_changed_on_commit() -> None:
    """Tell the lobby's sockets; the id lets one process render the change once per language."""
    event = {"type": "lobby.changed", "id": uuid.uuid4().hex}
    transaction.on_commit(lambda: _group_send(LOBBY_GROUP, event))


def table_changed_on_commit(
    table_id: int,
    *,
    hand_id: int | None = None,
    version: int | None = None,
    moved: Hand | None = None,
) -> None:
    """Tell a table's sockets it changed.

    With ``hand_id`` and ``version``: only the hand moved (the consumers send the hand's
    parts, and drop an event older than what they showed: versions start again with each
    hand, hand ids grow). Without: anything may have changed (seats, the match), and
    everything is sent again. The event's id lets the consumers of one process read the
    table once and render each kind of view once.

    With ``moved`` (the hand, saved, still in play), the event carries what a move changes
    on it (``hand_change``): a process that showed the version before applies it without
    reading the database.
    """
    event = {
        "type": "table.changed",
        "hand": hand_id,
        "version": version,
        "id": uuid.uuid4().hex,
        "change": hand_change(moved) if moved is not None and moved.outcome is None else None,
    }
    transaction.on_commit(lambda: _group_send(table_group(table_id), event))


def hand_change(hand: Hand) -> dict:
    """What a move (or a clock's stop and start) changes on a hand in play, as the channel
    layer carries it (msgpack: no datetimes)."""
    return {
        "state": hand.state,
        "clock_ms": list(hand.clock_ms),
        "turn_started_at": _iso(hand.turn_started_at),
        "deadline": _iso(hand.deadline),
    }


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


async def presence_changed(table_id: int, user_id: int, *, connected: bool) -> None:
    """A player's socket came or went: a small event of its own, no re-render of the table."""
    layer = get_channel_layer()
    if layer is not None:
        event = {"type": "presence.changed", "user": user_id, "on": connected}
        await layer.group_send(table_group(table_id), event)


def chat_changed_on_commit(table_id: int) -> None:
    transaction.on_commit(lambda: _group_send(table_group(table_id), {"type": "chat.changed"}))


def hand_changed_on_commit(
    hand: Hand, *, table_id: int, players: list[MatchPlayer] | None = None
) -> None:
    """After a hand changed: tell the table and wake a bot whose turn it is. (No timer to
    arm: the clock tickers read the new deadline from the row, games.clock.) ``players``:
    the match's, when the caller has them (else one query asks whether a bot is to move)."""
    table_changed_on_commit(table_id, hand_id=hand.pk, version=hand.version, moved=hand)
    schedule_bot_if_needed_on_commit(hand, players=players)


def schedule_bot_if_needed_on_commit(
    hand: Hand, *, players: list[MatchPlayer] | None = None
) -> None:
    if hand.outcome is not None:
        return
    to_move = hand.state["to_move"]
    if players is not None:
        bot_to_move = any(p.seat == to_move and p.bot_level for p in players)
    else:
        bot_to_move = hand.match.players.filter(seat=to_move).exclude(bot_level="").exists()
    if bot_to_move:
        version = hand.version
        delay = random.uniform(*BOT_DELAY)
        transaction.on_commit(lambda: schedule_bot(hand.pk, version, delay))


def schedule_next_hand_on_commit(match_id: int, after_number: int, *, delay: float) -> None:
    from games import tasks

    transaction.on_commit(
        lambda: tasks.match_next_hand_task.apply_async((match_id, after_number), countdown=delay)
    )


def schedule_bot(hand_id: int, version: int, delay: float) -> None:
    from games import tasks

    tasks.bot_act_task.apply_async((hand_id, version), countdown=delay)
