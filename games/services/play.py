"""Play at a table: a match's start (and rematch), dealing a hand and the next; and the
moderators' stop of a hand or annulment of a match. (The actions on a hand, moves,
timeouts and stops, go through ``moves``.)

Each service runs in one transaction and locks the row it changes
(``select_for_update``); a refusal raises :class:`Refused` with a message a player can
read, and nothing is half-applied. Broadcasts and Celery tasks leave only after the
commit (``transaction.on_commit``), so nobody sees a state that was rolled back.

Lock order, to stay free of deadlocks: table, then match, then hand.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games import events, ratings
from games.engine import Clock, MatchState, deal, seed_commitment
from games.models import MIN_SEATS, MS_PER_DAY, Hand, Match, MatchPlayer, Table, to_instant
from games.services._common import (
    _linked_people,
    _locked_table,
    _require_owner,
    _require_seating_open,
)
from games.services.moves import NEXT_HAND_DELAY, NewHand, Stop, execute

# --- matches and hands ------------------------------------------------------------------


def match_start(*, table_id: int, by: User, now: datetime | None = None) -> Match:
    """The owner starts a match with everyone seated (at least two); the first hand is dealt.
    A rated table refuses while two of its players' accounts are linked (fair play).

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
        if _linked_people(table, [s.user_id for s in seats if s.user_id]):
            # They sat before their accounts were seen together: neither is named.
            raise Refused(
                _(
                    "This rated match cannot start: two players here share a device or a "
                    "connection. One of them must leave the table, or a moderator can allow it."
                ),
                code="linked_accounts",
            )
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
    clock = clock_for(table, players)
    hand.clock = clock.start(state.to_move, to_instant(now))
    execute(NewHand(hand, table.pk), now=now)
    return hand


def clock_for(table: Table, players: int) -> Clock:
    """A new hand's clock at ``table``: days per move on a correspondence table, else
    minutes per hand with the increment."""
    if table.move_days:
        return Clock.per_move(players, table.move_days * MS_PER_DAY)
    return Clock.new(players, table.base_seconds * 1000, table.increment_seconds * 1000)


def match_next_hand(
    *, match_id: int, after_number: int, now: datetime | None = None
) -> Hand | None:
    """Deal the hand after hand ``after_number`` (safe to repeat: only once, only if due;
    a match gone meanwhile, its table deleted, has nothing to deal)."""
    now = now or timezone.now()
    with transaction.atomic():
        match = (
            Match.objects.select_for_update().select_related("table").filter(pk=match_id).first()
        )
        if match is None or match.status != Match.Status.PLAYING or match.table.managed:
            return None  # a tournament deals its own tables (tournament_hand_deal)
        last = match.hands.order_by("-number").first()
        if last is None or last.number != after_number or not last.is_over:
            return None
        state = match.match_state
        return _deal_hand(
            match=match, table=match.table, number=after_number + 1, dealer=state.dealer, now=now
        )


# --- moderation -------------------------------------------------------------------------
# Helpers for moderation.services (which checks the moderator's permission and writes the
# audit entry). Lock order as above: table, then match, then hand.


def _stop_hand_in_play(match: Match, now: datetime) -> Hand | None:
    """End the hand in play of ``match`` (locked by the caller) with no letter for anybody
    (``moves.Stop``); None when no hand is in play."""
    hand = Hand.objects.select_for_update().filter(match=match).order_by("-number").first()
    if hand is None or hand.is_over:
        return None
    execute(Stop(hand, match), now=now)
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
        events.schedule_next_hand_on_commit(
            match.pk, hand.number, delay=NEXT_HAND_DELAY, correspondence=bool(hand.move_ms)
        )
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
