"""What leaves after a commit: group events to the websockets, and Celery tasks.

Called inside a service's transaction; nothing here runs until the transaction
commits (Zulip's ``send_event_on_commit``), so a rolled-back change is never seen.
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from datetime import datetime
from typing import TYPE_CHECKING

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from core.broadcast import group_send, publish_from_loop, send_on_commit, user_group
from core.cached import forget_on_commit
from core.tasks import task_on_commit, task_send
from games import signals
from games.engine import move_to_json

if TYPE_CHECKING:
    from games.models import Hand, MatchPlayer

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
# To a player's sockets: the games waiting for his move may have changed (the header's
# count on the page's own socket, social.consumers).
MY_GAMES_CHANGED = "my_games.changed"
# The tasks (games.tasks) by their registered names: events never import the tasks module.
TASK_BOT_ACT, TASK_NEXT_HAND = "games.bot_act", "games.match_next_hand"
BOT_DELAY = (0.6, 1.4)  # seconds: a short, human-like pause before a bot acts


def waiting_key(user_id: int) -> str:
    """The cache's key of the player's count of games waiting for his move
    (``selectors.waiting_count``), forgotten whenever it may change."""
    return f"waiting-games:{user_id}"


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def lobby_changed_on_commit() -> None:
    """Tell the lobby's sockets; the id lets one process render the change once per language."""
    event = {"type": "lobby.changed", "id": uuid.uuid4().hex}
    send_on_commit(LOBBY_GROUP, event)


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
    send_on_commit(
        table_group(table_id), table_changed_event(hand_id=hand_id, version=version, moved=moved)
    )


def table_changed_event(
    *, hand_id: int | None = None, version: int | None = None, moved: Hand | None = None
) -> dict:
    """The event of ``table_changed_on_commit``."""
    return {
        "type": "table.changed",
        "hand": hand_id,
        "version": version,
        "id": uuid.uuid4().hex,
        "change": hand_change(moved) if moved is not None and moved.outcome is None else None,
    }


def hand_change(hand: Hand) -> dict:
    """What a move (or a clock's stop and start) changes on a hand in play, as the channel
    layer carries it (msgpack: no datetimes): the clock, and for the state only its last
    action, how many its history holds and who is to move. A process that shows the
    version before makes that action with the engine (``selectors.snapshot_after_change``)
    instead of decoding the state: late in a hand the state is tens of kilobytes, its
    history most of it, too much to encode, send and decode at every move."""
    state = hand.engine_state
    length = state.history_length
    last = state.history_since(length - 1)[0] if length else None
    return {
        "history": length,
        "last": None if last is None else {"seat": last.seat, "move": move_to_json(last.move)},
        "to_move": state.to_move,
        "clock_ms": list(hand.clock_ms),
        "bare_seats": hand.bare_seats,
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
    send_on_commit(table_group(table_id), {"type": "chat.changed"})


def hand_changed(
    hand: Hand,
    *,
    table_id: int,
    players: list[MatchPlayer] | None = None,
    committed: bool = False,
) -> None:
    """The outbox of a change of a hand (an action, a deal, a clock's stop or start): the
    table's event (``table_changed_event`` with what changed), and a bot's task if a
    bot is to move, both leaving once the change is committed. (No timer to arm: the
    clock tickers read the new deadline from the row, games.clock.) ``players``: the
    match's, when the caller has them (else one query asks whether a bot is to move).

    From a thread, inside the change's transaction: they leave when it commits.
    ``committed``: the caller is in the event loop and its write has committed (the
    move's one statement, ``services.moves``); they leave now, and the mover waits on
    neither the publish nor the broker. (A correspondence hand's change is never
    ``committed`` so: its turn's receivers use the ORM, ``services.moves``.)"""
    if not committed:
        table_changed_on_commit(table_id, hand_id=hand.pk, version=hand.version, moved=hand)
        schedule_bot_if_needed_on_commit(hand, players=players)
        if hand.move_ms:
            correspondence_changed_on_commit(hand, table_id=table_id, players=players)
        return
    try:
        event = table_changed_event(hand_id=hand.pk, version=hand.version, moved=hand)
        publish_from_loop(table_group(table_id), event)
        if hand.outcome is None and players is not None and bot_to_move(hand, players):
            delay = random.uniform(*BOT_DELAY)
            loop = asyncio.get_running_loop()
            loop.run_in_executor(None, _schedule_bot_logged, hand.pk, hand.version, delay)
    except Exception:  # as core.broadcast: a failed send must not undo a committed move
        logger.exception("telling table %s of hand %s failed", table_id, hand.pk)


def correspondence_changed_on_commit(
    hand: Hand, *, table_id: int, players: list[MatchPlayer] | None = None
) -> None:
    """After a correspondence hand's change commits: every human player's count of the
    games waiting for his move is forgotten by the cache and told to change, and if the
    turn passed to a person (not a bot's seat nor a bot account)
    ``signals.correspondence_turn`` is sent, once for this version of the hand, that is
    once per turn; before it ``signals.correspondence_changed`` says which turn stands
    now (the others are over)."""
    from accounts.models import User
    from games.models import Hand, MatchPlayer

    if players is None:
        players = list(MatchPlayer.objects.filter(match_id=hand.match_id))
    humans = {p.seat: p.user_id for p in players if p.user_id and not p.bot_level}
    to_move = humans.get(hand.state["to_move"]) if hand.outcome is None else None
    hand_id, deadline = hand.pk, hand.deadline

    forget_on_commit(waiting_key(user_id) for user_id in humans.values())

    def publish() -> None:
        for user_id in humans.values():
            group_send(user_group(user_id), {"type": MY_GAMES_CHANGED})
        turn = (to_move, deadline) if to_move is not None and deadline is not None else None
        signals.correspondence_changed.send(
            sender=Hand, hand_id=hand_id, user_ids=list(humans.values()), turn=turn
        )
        if turn is None:
            return
        if User.objects.filter(pk=to_move, is_bot_account=False).exists():
            signals.correspondence_turn.send(
                sender=Hand, table_id=table_id, hand_id=hand_id, user_id=to_move, deadline=deadline
            )

    transaction.on_commit(publish)


def schedule_bot_if_needed_on_commit(
    hand: Hand, *, players: list[MatchPlayer] | None = None
) -> None:
    if hand.outcome is not None or hand.deadline is None:
        return  # over, or paused: nobody moves until the clocks start
    if players is not None:
        bot = bot_to_move(hand, players)
    else:
        bot = hand.match.players.filter(seat=hand.state["to_move"]).exclude(bot_level="").exists()
    if bot:
        version, correspondence = hand.version, bool(hand.move_ms)
        delay = random.uniform(*BOT_DELAY)
        transaction.on_commit(
            lambda: schedule_bot(hand.pk, version, delay, correspondence=correspondence)
        )


def bot_to_move(hand: Hand, players: list[MatchPlayer]) -> bool:
    """Whether a bot holds the seat to move on ``hand`` (in play)."""
    to_move = hand.state["to_move"]
    return any(p.seat == to_move and p.bot_level for p in players)


def follow_up_queue(*, correspondence: bool) -> str | None:
    """The queue of a hand's follow-up (its bot's move, the next hand's deal): a
    correspondence game's has its own (settings.CELERY_CORRESPONDENCE_QUEUE), so that a
    burst of them never holds up a live game's; None: the main one."""
    return settings.CELERY_CORRESPONDENCE_QUEUE if correspondence else None


def schedule_next_hand_on_commit(
    match_id: int, after_number: int, *, delay: float, correspondence: bool = False
) -> None:
    """The deal of the hand after ``after_number`` in ``delay`` seconds, once committed;
    ``correspondence``: the match is played at days per move."""
    queue = follow_up_queue(correspondence=correspondence)
    task_on_commit(TASK_NEXT_HAND, (match_id, after_number), countdown=delay, queue=queue)


def schedule_bot(hand_id: int, version: int, delay: float, *, correspondence: bool = False) -> None:
    queue = follow_up_queue(correspondence=correspondence)
    task_send(TASK_BOT_ACT, (hand_id, version), countdown=delay, queue=queue)


def _schedule_bot_logged(hand_id: int, version: int, delay: float) -> None:
    """``schedule_bot`` in a thread nobody waits on: a failure is logged, not lost."""
    try:
        schedule_bot(hand_id, version, delay)
    except Exception:
        logger.exception("queueing the bot's move on hand %s failed", hand_id)
