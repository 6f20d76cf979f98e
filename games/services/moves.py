"""The one way an action reaches a hand: ``execute(action)``, over typed actions.

- ``Play``, ``PickUp``: the player to move (``user``; ``as_bot`` for a bot's seat) on the
  hand at ``version``, from his socket (``execute_async``), a bot's task or the API;
  ``move_action`` reads a move's JSON into one of them.
- ``Timeout``: the clock's (the tickers, a page that finds it run out), if it has.
- ``Stop``: moderation or a tournament ends a hand in play with no letter.
- ``SetClocks``: a tournament's pause, resume or Berserk.
- ``NewHand``: a new hand's row (dealt, its clock started).

Nothing else writes a hand's row (tests/games/test_hand_writes.py finds any other
writer). Every action but a new hand goes through the same three steps:

1. **Judge**: the hand and its match's players (for a move, the live room's copy when it
   holds that version, else a read of the row, without a lock); for a move, who is
   asking, his seat, his turn and the version, then the engine (``refusals.judged_move``).
   A clock that has run out is applied instead, and the move refused.
2. **Write** (``_write``, the one write routine): the action's rows (``record``), then
   its compare-and-set (``rows.CompareAndSet``): only if the hand's row is still at the
   version judged and its players still sit as they did. Else nothing is written and
   the action is refused: the page gets the table as it is now. An action that ends the
   hand is written with its consequences (the letter, the match's end, a tournament's
   turn: ``_finish_hand``) in the same transaction.
3. **Publish** (``events.hand_changed``): the table's event and a bot's task, once the
   write has committed.

The routine is driven on Django's connection inside a transaction (``rows.run``:
threads, the embedded SQLite mode, and a move that ends the hand or a correspondence
hand's, whose consequences use the ORM) or, for a player's move in daphne's event loop
(``execute_async``), on an async connection in one statement (``rows.run_async``),
published from the loop. Same judgement, same rows, same statement, same events.
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
from core.errors import Refused
from games import engine, events, refusals, rows, signals
from games.engine import Clock, HandState, move_to_json
from games.models import STATES, Action, Hand, Match, MatchPlayer, Seat, Table, to_instant
from live import adb
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


# --- the actions ------------------------------------------------------------------------


@dataclass(frozen=True)
class Play:
    """The player to move lays ``cards`` (card codes, judged by the engine) on the pile of
    hand ``hand_id``, as his page showed it at ``version``. ``user``: who asks;
    ``as_bot``: a bot's task acts for a bot's seat."""

    hand_id: int
    version: int
    cards: tuple[str, ...]
    user: User | None = None
    as_bot: bool = False

    def move(self) -> dict[str, Any]:
        return {"type": "play", "cards": list(self.cards)}


@dataclass(frozen=True)
class PickUp:
    """The player to move picks up ``count`` cards from the pile (as ``Play``)."""

    hand_id: int
    version: int
    count: int
    user: User | None = None
    as_bot: bool = False

    def move(self) -> dict[str, Any]:
        return {"type": "pickup", "count": self.count}


@dataclass(frozen=True)
class Timeout:
    """The clock: the timeout of the player to move, if his deadline has passed; with
    ``version``, only if the hand is still at it (a tick from an earlier turn)."""

    hand_id: int
    version: int | None = None


@dataclass(frozen=True)
class Stop:
    """Moderation or a tournament ends ``hand`` (in play; ``match`` locked by the caller)
    with no letter for anybody, the engine's ``abort()``: the clocks stop, the version
    moves on (a pending timeout or bot task becomes stale), the table is told; what
    comes next for the match is the caller's."""

    hand: Hand
    match: Match


@dataclass(frozen=True)
class SetClocks:
    """A tournament's pause, resume or Berserk: ``hand`` (in play; its row locked by the
    caller) keeps its cards and takes ``clock``. A clock that has run out is applied
    first, as before any action, and then ``clock`` is not."""

    hand: Hand
    clock: Clock


@dataclass(frozen=True)
class NewHand:
    """A new hand's row (dealt, its clock started), inside the caller's transaction."""

    hand: Hand
    table_id: int


Move = Play | PickUp
HandAction = Play | PickUp | Timeout | Stop | SetClocks | NewHand


def move_action(
    move: Any, *, hand_id: int, version: int, user: User | None = None, as_bot: bool = False
) -> Move:
    """A move's JSON (the engine's form: a bot's choice, the API's body) as the action.
    Raises Refused for something that is no move a player can make."""
    parsed = refusals.parsed_move(move)
    if isinstance(parsed, engine.PickUp):
        return PickUp(hand_id, version, parsed.count, user, as_bot)
    return Play(hand_id, version, parsed.cards, user, as_bot)


# --- the executor -----------------------------------------------------------------------


def execute(action: HandAction, *, now: datetime | None = None) -> Hand | None:
    """Apply ``action``: judged, written with compare-and-set, published on commit (see
    the module's docstring). Returns the hand after it, or None when it did nothing: a
    timeout not due or stale, a ``SetClocks`` whose clock had run out (its timeout was
    applied instead).

    A move runs in its own transaction and raises Refused (nothing written, or only the
    timeout that found the clock run out); ``Stop``, ``SetClocks`` and ``NewHand`` run
    in the caller's, which holds the rows, and raise Refused when the row had moved on."""
    now = now or timezone.now()
    match action:
        case Play() | PickUp():
            hand, players = _read(action.hand_id)
            judged = _judge(action, hand, players, now=now)
            _run_atomic(_write(hand, judged, players, now=now))
            return _done(hand, judged)
        case Timeout(hand_id=hand_id, version=version):
            hand, players = _read(hand_id)
            judged = _overdue(hand, now)
            if judged is None or version not in (None, hand.version):
                return None
            try:
                return _run_atomic(_write(hand, judged, players, now=now))
            except Refused:
                return None  # a move or another timer changed the hand meanwhile
        case Stop(hand=hand, match=match):
            hand.match = match
            state = hand.engine_state
            judged = Judged(state, state.abort(), 0, hand.clock.stop(to_instant(now)))
            players = rows.match_players(match.pk)
            return rows.run(_write(hand, judged, players, now=now, finish=False))
        case SetClocks(hand=hand, clock=clock):
            players = rows.match_players(hand.match_id)
            overdue = _overdue(hand, now)
            if overdue is not None:
                rows.run(_write(hand, overdue, players, now=now))
                return None
            state = hand.engine_state
            judged = Judged(state, state, 0, clock, clocks_only=True)
            return rows.run(_write(hand, judged, players, now=now))
        case NewHand(hand=hand, table_id=table_id):
            hand.save(force_insert=True)
            events.hand_changed(hand, table_id=table_id)
            return hand
    raise TypeError(f"not an action on a hand: {action!r}")


async def execute_async(
    action: Move,
    *,
    now: datetime | None = None,
    known: tuple[Hand, list[MatchPlayer], int] | None = None,
) -> Hand:
    """``execute`` of a player's move in the event loop, for his socket. ``known``: the
    hand (left unchanged), its match's players and its table's id as this process last
    showed them (the live room's copy): the move is judged on it when it is at the
    action's version. The write is ``execute``'s, on the loop's own connection; in a
    thread for a move that ends the hand or a correspondence hand's (their
    consequences use the ORM) and in the embedded SQLite mode."""
    now = now or timezone.now()
    if not adb.available():
        return await in_pool(execute)(action, now=now)
    on_copy = known is not None and known[0].pk == action.hand_id
    if on_copy and known[0].version == action.version:
        hand, players = copy.copy(known[0]), known[1]  # the live room's stays as it was
        hand.table_id = known[2]
    else:
        on_copy = False
        hand, players = await _read_async(action.hand_id)
    judged = _judge(action, hand, players, now=now)
    write = _write(hand, judged, players, now=now)
    if judged.after.outcome is not None or hand.move_ms:
        await in_pool(_run_atomic)(write)
        return _done(hand, judged)
    try:
        await rows.run_async(write)
    except Refused:
        if on_copy:  # refused on what the database holds, in its words
            row, row_players = await _read_async(action.hand_id)
            _judge(action, row, row_players, now=now)
        raise
    return _done(hand, judged)


def _run_atomic(write: rows.WriteRoutine[Hand]) -> Hand:
    with transaction.atomic():
        return rows.run(write)


# --- judge ----------------------------------------------------------------------------------


def _judge(action: Move, hand: Hand, players: list[MatchPlayer], *, now: datetime) -> Judged:
    """Who is asking, his seat, his turn and the action's version, then the engine's
    judgement of the move on ``hand``; the clock's timeout instead when it has run out
    (the move is refused after the timeout is written). Raises Refused."""
    if hand.is_over:
        raise Refused(_("This hand is over."), resync=True)
    if hand.deadline is None:  # only a paused tournament stops a hand's clocks
        raise Refused(_("Play is paused: the clocks are stopped."), resync=True)
    overdue = _overdue(hand, now)
    if overdue is not None:
        return overdue
    state = hand.engine_state
    player = next(p for p in players if p.seat == state.to_move)
    user = action.user
    if action.as_bot:
        if not player.bot_level:
            raise Refused(_("It is not a bot's turn."), resync=True)
    elif user is None or player.user_id != user.pk:
        if user is not None and any(p.user_id == user.pk for p in players):
            raise Refused(_("It is not your turn."))
        raise Refused(_("You are not playing in this hand."))
    elif player.bot_level:
        # He left or was removed: the bot that took his seat plays it now.
        raise Refused(_("A bot plays your former seat now."))
    if action.version != hand.version:
        raise Refused(_("The table has changed; here is the current state."), resync=True)
    _move, new_state = refusals.judged_move(state, action.move())
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
) -> rows.WriteRoutine[Hand]:
    """The one write routine of every action, driven on a cursor by ``rows.run`` (inside
    the caller's transaction) or ``rows.run_async``: the judged action recorded on
    ``hand``, its compare-and-set on the hand's version and players, then, if the hand
    ended (and ``finish``), what follows; published once committed. Raises Refused
    (nothing written) when the row had moved on."""
    version = hand.version
    actions = record(hand, judged, now=now)
    written = yield rows.CompareAndSet(hand, RECORDED_FIELDS, actions, version, players)
    if not written.ok:
        raise _stale()
    table_id = getattr(hand, "table_id", None) or hand.match.table_id
    if hand.move_ms and not (judged.timeout or judged.clocks_only):
        _seen_by_mover(judged, players, hand_id=hand.pk, table_id=table_id)
    if finish and judged.after.outcome is not None:
        _finish_hand(hand, judged.after, now=now)
    events.hand_changed(hand, table_id=table_id, players=players, committed=written.committed)
    return hand


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
        events.schedule_next_hand_on_commit(
            match.pk, hand.number, delay=NEXT_HAND_DELAY, correspondence=bool(hand.move_ms)
        )


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
