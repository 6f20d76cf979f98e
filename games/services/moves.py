"""The one way an action reaches a hand: a player's move (from his socket, or a bot's
task), the clock's timeout, a moderator's or a tournament's stop, a tournament's pause
and resume of the clocks (``clocks_set``), a new hand's row (``hand_insert``). Nothing
else writes a hand's row (tests/games/test_hand_writes.py finds any other writer).

Every action goes through the same three steps:

1. **Judge** (``judge_move``): the hand as the mover's page showed it, and its match's
   players (the live room's copy when it holds that version, else a read of the row,
   without a lock); who is asking, his seat, his turn and the version, then the engine.
   A clock that has run out is applied instead, and the move refused.
2. **Write** (``_write``): the action's rows (``record``) go to the database with
   compare-and-set: only if the hand's row is still at the version judged and its
   players still sit as they did (``rows.move_if_unchanged``). Else nothing is written
   and the action is refused: the page gets the table as it is now. An action that
   ends the hand is written with its consequences (the letter, the match's end, a
   tournament's turn: ``_finish_hand``) in the same transaction.
3. **Publish** (``events.hand_changed``): the table's event and a bot's task, once the
   write has committed.

The hot path, a player's move in daphne's event loop (``hand_act_async``), writes on
an async connection (``core.adb``) in one statement and publishes from the loop; an
action that ends the hand, and every action in a thread (``hand_act``, ``hand_timeout``:
bots, the clock, the API, the embedded SQLite mode), is written on Django's connection
inside a transaction, and published when it commits. Same judgement, same rows, same
statement, same events.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core import adb
from core.errors import Refused
from games import events, refusals, rows, signals
from games.engine import (
    Clock,
    HandState,
    IllegalMove,
    MalformedMove,
    Timeout,
    move_from_json,
    move_to_json,
)
from games.models import STATES, Action, Hand, Match, MatchPlayer, Seat, Table, to_instant
from live.db import in_pool

NEXT_HAND_DELAY = 4.0  # seconds the result of a hand stays on screen

RECORDED_FIELDS = (
    "state",
    "version",
    "clock_ms",
    "bare_seats",
    "turn_started_at",
    "deadline",
    "outcome",
    "finished_at",
)


@dataclass(frozen=True)
class Judged:
    """An action the engine accepted: the hand's state before and after it, the time it
    charged the acting seat and the clock as it leaves it (stopped if the hand is over).
    ``timeout``: the clock's, applied in place of the move that found it run out;
    ``clocks_only``: no action, the clocks stopped or started (a tournament's pause)."""

    before: HandState
    after: HandState
    used_ms: int
    clock: Clock
    timeout: bool = False
    clocks_only: bool = False


# --- the entry points ---------------------------------------------------------------------


def hand_act(
    *,
    hand_id: int,
    move: dict[str, Any],
    version: int,
    user: User | None = None,
    as_bot: bool = False,
    now: datetime | None = None,
) -> Hand:
    """The player to move plays or picks up (``move`` is the engine's move JSON) on the
    hand at ``version``; returns the hand after the move. ``as_bot`` acts for a bot's
    seat. From a thread (a bot's task, the API, a test). Raises Refused."""
    now = now or timezone.now()
    hand, players = _read(hand_id)
    judged = judge_move(
        hand, players, move=move, version=version, user=user, as_bot=as_bot, now=now
    )
    with transaction.atomic():
        _write(hand, judged, players, now=now)
    return _done(hand, judged)


async def hand_act_async(
    *,
    hand_id: int,
    move: dict[str, Any],
    version: int,
    user: User,
    now: datetime | None = None,
    known: tuple[Hand, list[MatchPlayer], int] | None = None,
) -> Hand:
    """``hand_act`` in the event loop, for a player's socket. ``known``: the hand (left
    unchanged), its match's players and its table's id as this process last showed
    them (the live room's copy): the move is judged on it when it is at ``version``."""
    now = now or timezone.now()
    if not adb.available():  # the embedded SQLite mode: Django's connection, in a thread
        return await in_pool(hand_act)(
            hand_id=hand_id, move=move, version=version, user=user, now=now
        )
    on_copy = known is not None and known[0].pk == hand_id and known[0].version == version
    if on_copy:
        hand, players = copy.copy(known[0]), known[1]  # the live room's stays as it was
        hand.table_id = known[2]
    else:
        hand, players = await _read_async(hand_id)
    judged = judge_move(hand, players, move=move, version=version, user=user, now=now)
    # In a thread, on Django's connection: a move that ends the hand (with its
    # consequences), and a correspondence move (its turn's receivers use the ORM).
    if judged.after.outcome is not None or hand.move_ms:

        def write() -> None:
            with transaction.atomic():
                _write(hand, judged, players, now=now)

        await in_pool(write)()
    else:
        actions = record(hand, judged, now=now)
        async with adb.CONNECTIONS.connection() as conn:
            written = await rows.move_if_unchanged_async(
                conn, hand, RECORDED_FIELDS, actions, version=version, players=players
            )
        if not written:
            if on_copy:  # refused on what the database holds, in its words
                row, row_players = await _read_async(hand_id)
                judge_move(row, row_players, move=move, version=version, user=user, now=now)
            raise _stale()
        events.hand_changed(hand, table_id=hand.table_id, players=players, committed=True)
    return _done(hand, judged)


def hand_timeout(*, hand_id: int, version: int | None = None, now: datetime | None = None) -> bool:
    """The clock: apply the timeout of the player to move if his deadline has passed.

    With ``version``, only if the hand is still at that version (a task left over from
    an earlier turn does nothing). Returns whether it applied."""
    now = now or timezone.now()
    hand, players = _read(hand_id)
    if version is not None and hand.version != version:
        return False
    judged = _overdue(hand, now)
    if judged is None:
        return False
    try:
        with transaction.atomic():
            _write(hand, judged, players, now=now)
    except Refused:
        return False  # a move or another timer changed the hand meanwhile
    return True


def hand_check_deadline(*, hand_id: int, now: datetime | None = None) -> bool:
    """Layer 1 of the clock on connect: apply an overdue timeout before showing the table."""
    return hand_timeout(hand_id=hand_id, now=now)


def timeout_if_overdue(hand: Hand, now: datetime) -> bool:
    """Inside a service that holds the hand's row (a tournament's pause): apply its overdue
    timeout, as before any move; whether it applied."""
    judged = _overdue(hand, now)
    if judged is None:
        return False
    _write(hand, judged, rows.match_players(hand.match_id), now=now)
    return True


def stop_in_play(hand: Hand, match: Match, now: datetime) -> None:
    """Moderation or a tournament: end ``hand`` (in play; its match locked by the caller)
    with no letter for anybody, the engine's ``abort()``. The clocks stop, the version
    moves on (a pending timeout or bot task becomes stale) and the table is told; what
    comes next for the match is the caller's."""
    aborted = hand.engine_state.abort()
    judged = Judged(hand.engine_state, aborted, 0, hand.clock.stop(to_instant(now)))
    hand.match = match
    _write(hand, judged, rows.match_players(match.pk), now=now, finish=False)


def clocks_set(hand: Hand, clock: Clock, *, now: datetime) -> None:
    """A tournament's pause or resume: ``hand`` (in play; its row locked by the caller)
    keeps its cards and takes ``clock`` (stopped with the time left, or running again).
    Written as any action is: the version moves on (a pending timeout or bot task
    becomes stale) with compare-and-set, and the table is told on commit. Raises
    Refused (nothing written) when the row had moved on."""
    state = hand.engine_state
    judged = Judged(state, state, 0, clock, clocks_only=True)
    _write(hand, judged, rows.match_players(hand.match_id), now=now)


def hand_insert(hand: Hand, *, table_id: int) -> None:
    """A new hand's row (dealt, its clock started), inside the caller's transaction; the
    table is told, and a bot to move gets its task, on commit."""
    hand.save(force_insert=True)
    events.hand_changed(hand, table_id=table_id)


# --- judge ----------------------------------------------------------------------------------


def require_in_play(hand: Hand) -> None:
    """Refuse a move on a hand that is over, or whose clocks a tournament stopped."""
    if hand.is_over:
        raise Refused(_("This hand is over."), resync=True)
    if hand.deadline is None:  # only a paused tournament stops a hand's clocks
        raise Refused(_("Play is paused: the clocks are stopped."), resync=True)


def judge_move(
    hand: Hand,
    players: list[MatchPlayer],
    *,
    move: dict[str, Any],
    version: int,
    user: User | None,
    as_bot: bool = False,
    now: datetime,
) -> Judged:
    """Who is asking, his seat, his turn and ``version``, then the engine's judgement of
    ``move`` on ``hand``; the clock's timeout instead when it has run out (the move is
    refused after the timeout is written). Raises Refused."""
    require_in_play(hand)
    overdue = _overdue(hand, now)
    if overdue is not None:
        return overdue
    state = hand.engine_state
    player = next(p for p in players if p.seat == state.to_move)
    if as_bot:
        if not player.bot_level:
            raise Refused(_("It is not a bot's turn."), resync=True)
    elif user is None or player.user_id != user.pk:
        if user is not None and any(p.user_id == user.pk for p in players):
            raise Refused(_("It is not your turn."))
        raise Refused(_("You are not playing in this hand."))
    elif player.bot_level:
        # He left or was removed: the bot that took his seat plays it now.
        raise Refused(_("A bot plays your former seat now."))
    if version != hand.version:
        raise Refused(_("The table has changed; here is the current state."), resync=True)
    try:
        engine_move = move_from_json(move)
        if isinstance(engine_move, Timeout):
            raise Refused(refusals.timeout_not_a_move_text())
        new_state = state.apply(engine_move)
    except IllegalMove as exc:
        raise Refused(refusals.illegal_move_text(exc)) from exc
    except MalformedMove as exc:
        raise Refused(refusals.malformed_move_text(exc)) from exc
    clock, at = hand.clock, to_instant(now)
    next_seat = new_state.to_move if new_state.outcome is None else None
    return Judged(state, new_state, clock.elapsed_ms(at), clock.step(at, next_seat))


def _overdue(hand: Hand, now: datetime) -> Judged | None:
    """The timeout of the seat to move if its clock has run out: it ran out at the
    deadline, and the hand ends now (the lateness is measurable)."""
    if hand.is_over:
        return None
    clock = hand.clock
    deadline = clock.deadline()
    if deadline is None or clock.flagged(to_instant(now)) is None:
        return None
    state = hand.engine_state
    return Judged(
        state, state.timeout(), clock.elapsed_ms(deadline), clock.stop(deadline), timeout=True
    )


# --- write ----------------------------------------------------------------------------------


def record(hand: Hand, judged: Judged, *, now: datetime) -> list[Action]:
    """Put the judged action on ``hand`` (its ``RECORDED_FIELDS``, version + 1, the clock as
    the action left it) and return the log's new rows, one per public history entry, the
    first charged the time used; the caller writes both."""
    before, after = judged.before, judged.after
    base_index = before.history_length
    actions = [
        Action(
            hand=hand,
            index=base_index + i,
            seat=entry.seat,
            move=move_to_json(entry.move),
            entry=entry.to_json(),
            time_used_ms=judged.used_ms if i == 0 else 0,
        )
        for i, entry in enumerate(after.history_since(base_index))
    ]
    hand.state = after.to_json()
    hand.version += 1
    STATES.remember(hand.pk, hand.version, hand.state, after)
    hand.clock = judged.clock
    if after.outcome is not None:
        hand.outcome = after.outcome.to_json()
        hand.finished_at = now
    return actions


def _write(
    hand: Hand,
    judged: Judged,
    players: list[MatchPlayer],
    *,
    now: datetime,
    finish: bool = True,
) -> None:
    """Write the judged action on Django's connection, inside the caller's transaction:
    compare-and-set on the hand's version and players, then, if the hand ended (and
    ``finish``), what follows; published on commit. Raises Refused (nothing written)
    when the row had moved on."""
    version = hand.version
    actions = record(hand, judged, now=now)
    if not rows.move_if_unchanged(hand, RECORDED_FIELDS, actions, version=version, players=players):
        raise _stale()
    table_id = getattr(hand, "table_id", None) or hand.match.table_id
    if hand.move_ms and not (judged.timeout or judged.clocks_only):
        _seen_by_mover(judged, players, hand_id=hand.pk, table_id=table_id)
    if finish and judged.after.outcome is not None:
        _finish_hand(hand, judged.after, now=now)
    events.hand_changed(hand, table_id=table_id, players=players)


def _seen_by_mover(
    judged: Judged, players: list[MatchPlayer], *, hand_id: int, table_id: int
) -> None:
    """A correspondence table's player has seen its hand up to his own move: his next
    visit marks only what came after it (``table_visit``)."""
    mover = next((p for p in players if p.seat == judged.before.to_move), None)
    if mover is not None and mover.user_id and not mover.bot_level:
        Seat.objects.filter(table_id=table_id, user_id=mover.user_id).update(
            seen_hand_id=hand_id, seen_actions=judged.after.history_length
        )


def _finish_hand(hand: Hand, state: HandState, *, now: datetime) -> None:
    """Give the loser his letter; end the match at PAN, else deal again after a pause.

    A managed table's organiser (a tournament) decides what comes next: it hears of the
    hand through ``signals.hand_finished``, in this transaction, and the table stays in
    play for it.
    """
    match = Match.objects.select_for_update().get(pk=hand.match_id)
    after = match.match_state.after_hand(state.outcome)
    match.state = after.to_json()
    managed = Table.objects.filter(pk=match.table_id, managed=True).exists()
    if after.is_over:
        match.status = Match.Status.FINISHED
        match.finished_at = now
        for place, seat in after.ranking():
            match.players.filter(seat=seat).update(place=place)
        if not managed:
            Table.objects.filter(pk=match.table_id).update(
                status=Table.Status.FINISHED, updated_at=now
            )
            events.lobby_changed_on_commit()
    match.save()
    if after.is_over:
        events.table_changed_on_commit(match.table_id)  # the ranking, the seats' controls
        signals.match_finished.send(sender=Match, match=match, now=now)
    hand.match = match
    signals.hand_finished.send(sender=Hand, hand=hand, now=now, managed=managed)
    if not managed and not after.is_over:
        events.schedule_next_hand_on_commit(match.pk, hand.number, delay=NEXT_HAND_DELAY)


# --- helpers --------------------------------------------------------------------------------


def _read(hand_id: int) -> tuple[Hand, list[MatchPlayer]]:
    hand, players = rows.hand_for_move(hand_id)
    _require_hand(hand)
    return hand, players


async def _read_async(hand_id: int) -> tuple[Hand, list[MatchPlayer]]:
    async with adb.CONNECTIONS.connection(pipeline=True) as conn:
        hand, players = await rows.hand_for_move_async(conn, hand_id)
    _require_hand(hand)
    return hand, players


def _require_hand(hand: Hand | None) -> None:
    if hand is None:
        raise Refused(_("This hand does not exist."))


def _stale() -> Refused:
    return Refused(_("The table has changed; here is the current state."), resync=True)


def _done(hand: Hand, judged: Judged) -> Hand:
    """The hand after a written action; a move that found its clock run out is refused
    after the timeout was written."""
    if judged.timeout:
        raise Refused(_("Your time ran out: the timeout was applied first."), resync=True)
    return hand
