"""Play at a table: a match's start (and rematch), dealing, the moves of a hand
(``hand_act``, the hot path), its clock's timeouts, recording each action, finishing a
hand and dealing the next; and the moderators' stop of a hand or annulment of a match.

Each service runs in one transaction and locks the row it changes
(``select_for_update``); a refusal raises :class:`Refused` with a message a player can
read, and nothing is half-applied. Broadcasts and Celery tasks leave only after the
commit (``transaction.on_commit``), so nobody sees a state that was rolled back.

Lock order, to stay free of deadlocks: table, then match, then hand.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games import events, ratings, refusals, rows, signals
from games.engine import (
    Clock,
    HandState,
    IllegalMove,
    MalformedMove,
    MatchState,
    Timeout,
    deal,
    move_from_json,
    move_to_json,
    seed_commitment,
)
from games.models import (
    MIN_SEATS,
    STATES,
    Action,
    Hand,
    Match,
    MatchPlayer,
    Table,
    to_instant,
)
from games.services._common import _locked_table, _require_owner, _require_seating_open

NEXT_HAND_DELAY = 4.0  # seconds the result of a hand stays on screen


# --- matches and hands ------------------------------------------------------------------


def match_start(*, table_id: int, by: User, now: datetime | None = None) -> Match:
    """The owner starts a match with everyone seated (at least two); the first hand is dealt.

    Also serves as the rematch: after a match ends, the same seats start a new one.
    """
    now = now or timezone.now()
    with transaction.atomic():
        table = _locked_table(table_id)
        _require_owner(table, by)
        _require_seating_open(table)
        seats = [s for s in table.seats.select_related("user") if not s.is_empty]
        if len(seats) < MIN_SEATS:
            raise Refused(_("At least two players are needed to start."))
        rules = table.rules
        try:
            rules.validate_for_players(len(seats))
        except ValueError as exc:
            raise Refused(str(exc)) from exc
        first_dealer = secrets.randbelow(len(seats))
        match = Match.objects.create(
            table=table, state=MatchState.new(len(seats), first_dealer).to_json()
        )
        MatchPlayer.objects.bulk_create(
            MatchPlayer(
                match=match,
                seat=i,
                table_position=s.position,
                user=s.user,
                bot_level=s.bot_level,
                # A bot's name is its level's, in each reader's language.
                display_name=s.user.username if s.user else "",
            )
            for i, s in enumerate(seats)
        )
        table.status = Table.Status.PLAYING
        table.save(update_fields=["status", "updated_at"])
        _deal_hand(match=match, table=table, number=1, dealer=first_dealer, now=now)
        events.table_changed_on_commit(table.pk)  # the seats' controls change too
        events.lobby_changed_on_commit()
    return match


def match_rematch(*, table_id: int, by: User, now: datetime | None = None) -> Match:
    """A new match with the same seats once the previous one is over."""
    with transaction.atomic():
        table = _locked_table(table_id)
        if table.status != Table.Status.FINISHED:
            raise Refused(_("A rematch can start only after the match has ended."))
    return match_start(table_id=table_id, by=by, now=now)


def _deal_hand(*, match: Match, table: Table, number: int, dealer: int, now: datetime) -> Hand:
    players = match.match_state.players
    seed, salt = secrets.token_hex(32), secrets.token_hex(16)
    state = deal(table.rules, players, dealer, seed)
    hand = Hand(
        match=match,
        number=number,
        dealer=dealer,
        seed=seed,
        salt=salt,
        commitment=seed_commitment(seed, salt),
        state=state.to_json(),
    )
    clock = Clock.new(players, table.base_seconds * 1000, table.increment_seconds * 1000)
    hand.clock = clock.start(state.to_move, to_instant(now))
    hand.save(force_insert=True)
    events.hand_changed_on_commit(hand, table_id=table.pk)
    return hand


def _locked_hand(hand_id: int) -> Hand:
    try:
        return Hand.objects.select_for_update().select_related("match").get(pk=hand_id)
    except Hand.DoesNotExist:
        raise Refused(_("This hand does not exist.")) from None


def hand_act(
    *,
    hand_id: int,
    move: dict[str, Any],
    version: int,
    user: User | None = None,
    as_bot: bool = False,
    now: datetime | None = None,
) -> Hand:
    """The player to move plays or picks up (``move`` is the engine's move JSON); returns
    the hand after the move.

    Locks the hand row. An overdue clock is applied first (the timeout is committed
    and the move refused). Then who is asking, his seat, his turn and ``version`` are
    checked before the engine judges the move. ``as_bot`` acts for a bot's seat.
    """
    now = now or timezone.now()
    with transaction.atomic():
        hand = _locked_hand(hand_id)
        require_in_play(hand)
        if _apply_overdue_timeout(hand, now):
            timed_out = True
        else:
            timed_out = False
            players = rows.match_players(hand.match_id)  # who moves, who is a bot: one query
            judged = judge_move(
                hand, players, move=move, version=version, user=user, as_bot=as_bot, now=now
            )
            _record(hand, judged, now=now, players=players)
    if timed_out:
        raise Refused(_("Your time ran out: the timeout was applied first."), resync=True)
    return hand


def require_in_play(hand: Hand) -> None:
    """Refuse a move on a hand that is over, or whose clocks a tournament stopped."""
    if hand.is_over:
        raise Refused(_("This hand is over."), resync=True)
    if hand.deadline is None:  # only a paused tournament stops a hand's clocks
        raise Refused(_("Play is paused: the clocks are stopped."), resync=True)


@dataclass(frozen=True)
class Judged:
    """A move the engine accepted: the hand's state before and after it, the time it
    charged the acting seat and the clock as it leaves it (stopped if the hand is over)."""

    before: HandState
    after: HandState
    used_ms: int
    clock: Clock


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
    ``move`` on the locked ``hand`` (in play, its clock not run out). Raises Refused."""
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


def hand_timeout(*, hand_id: int, version: int | None = None, now: datetime | None = None) -> bool:
    """Apply the timeout of the player to move if his deadline has passed.

    With ``version``, only if the hand is still at that version (compare-and-set: a
    task left over from an earlier turn does nothing). Returns whether it applied.
    """
    now = now or timezone.now()
    with transaction.atomic():
        hand = _locked_hand(hand_id)
        if version is not None and hand.version != version:
            return False
        return _apply_overdue_timeout(hand, now)


def _apply_overdue_timeout(hand: Hand, now: datetime) -> bool:
    if hand.is_over:
        return False
    clock = hand.clock
    deadline = clock.deadline()
    if deadline is None or clock.flagged(to_instant(now)) is None:
        return False
    state = hand.engine_state
    # The clock ran out at the deadline; the hand ends now (the lateness is measurable).
    judged = Judged(state, state.timeout(), clock.elapsed_ms(deadline), clock.stop(deadline))
    _record(hand, judged, now=now)
    return True


def _record(
    hand: Hand, judged: Judged, *, now: datetime, players: list[MatchPlayer] | None = None
) -> None:
    """Save the judged action on the hand (version + 1) and log it; finish the hand if it
    ended. (``players``: the match's, when the caller read them.)"""
    rows.insert(record(hand, judged, now=now))
    rows.save_fields(hand, RECORDED_FIELDS)
    table_id = hand.match.table_id
    if judged.after.outcome is not None:
        _finish_hand(hand, judged.after, now=now)
    events.hand_changed_on_commit(hand, table_id=table_id, players=players)


RECORDED_FIELDS = (
    "state",
    "version",
    "clock_ms",
    "turn_started_at",
    "deadline",
    "outcome",
    "finished_at",
)


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


def match_next_hand(
    *, match_id: int, after_number: int, now: datetime | None = None
) -> Hand | None:
    """Deal the hand after hand ``after_number`` (safe to repeat: only once, only if due)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().select_related("table").get(pk=match_id)
        if match.status != Match.Status.PLAYING or match.table.managed:
            return None  # a tournament deals its own tables (tournament_hand_deal)
        last = match.hands.order_by("-number").first()
        if last is None or last.number != after_number or not last.is_over:
            return None
        state = match.match_state
        return _deal_hand(
            match=match, table=match.table, number=after_number + 1, dealer=state.dealer, now=now
        )


def hand_check_deadline(*, hand_id: int, now: datetime | None = None) -> bool:
    """Layer 1 of the clock on connect: apply an overdue timeout before showing the table."""
    return hand_timeout(hand_id=hand_id, now=now)


# --- moderation -------------------------------------------------------------------------
# Helpers for moderation.services (which checks the moderator's permission and writes the
# audit entry). Lock order as above: table, then match, then hand.


def _stop_hand_in_play(match: Match, now: datetime) -> Hand | None:
    """End the hand in play of ``match`` (locked by the caller) with no letter for anybody:
    the engine's ``abort()``, whose outcome (reason ``aborted``) the hand stores as it
    stores any other.

    The clocks stop, the version moves on (a pending timeout or bot task becomes stale)
    and the table is told. Returns None when no hand is in play.
    """
    hand = Hand.objects.select_for_update().filter(match=match).order_by("-number").first()
    if hand is None or hand.is_over:
        return None
    aborted = hand.engine_state.abort()
    hand.clock = hand.clock.stop(to_instant(now))
    hand.state = aborted.to_json()
    hand.outcome = aborted.outcome.to_json()
    hand.finished_at = now
    hand.version += 1
    hand.match = match
    hand.save()
    STATES.remember(hand.pk, hand.version, hand.state, aborted)
    events.hand_changed_on_commit(hand, table_id=match.table_id)
    return hand


def hand_stop_without_letter(*, table_id: int, now: datetime | None = None) -> Hand:
    """Moderation: abort the hand in play at a table; nobody gets a letter, the match goes on.

    Locks the table, its match and the hand. The dealer moves on as after a tie and the
    next hand is dealt after the usual pause. The caller checks who may do this.
    """
    now = now or timezone.now()
    with transaction.atomic():
        table = _locked_table(table_id)
        match = table.matches.select_for_update().filter(status=Match.Status.PLAYING).first()
        hand = _stop_hand_in_play(match, now) if match is not None else None
        if hand is None:
            raise Refused(_("No hand is being played here."))
        match.state = match.match_state.after_hand(hand.engine_state.outcome).to_json()
        match.save(update_fields=["state"])
        events.schedule_next_hand_on_commit(match.pk, hand.number, delay=NEXT_HAND_DELAY)
    return hand


def match_set_annulled(*, match_id: int, now: datetime | None = None) -> Match:
    """Moderation: annul a match (in play or finished); a hand in play stops, no letter.

    Locks the table, then the match and its hand. A table whose match is annulled in
    play is left finished, so its owner can start a rematch. The caller checks who may.
    """
    now = now or timezone.now()
    with transaction.atomic():
        table_id = Match.objects.filter(pk=match_id).values_list("table_id", flat=True).first()
        if table_id is None:
            raise Refused(_("This match does not exist."))
        table = _locked_table(table_id)
        match = Match.objects.select_for_update().get(pk=match_id)
        if match.status == Match.Status.ANNULLED:
            raise Refused(_("This match has already been annulled."))
        was_playing = match.status == Match.Status.PLAYING
        _stop_hand_in_play(match, now)
        match.status = Match.Status.ANNULLED
        match.finished_at = match.finished_at or now
        match.save(update_fields=["status", "finished_at"])
        ratings.ratings_replay_after(match=match)  # with the annulment, or not at all
        if was_playing and table.status == Table.Status.PLAYING:
            table.status = Table.Status.FINISHED
            table.save(update_fields=["status", "updated_at"])
        events.table_changed_on_commit(table.pk, version=None)
        events.lobby_changed_on_commit()
    return match
