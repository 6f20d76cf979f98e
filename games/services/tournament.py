"""Helpers for tournaments.services, which holds the tournament's lock and decides who sits
where. A tournament table stays PLAYING while the tournament uses it (so no casual
seating command applies to it) and is CLOSED when it breaks. Each seating of a table
plays its own match, in which every player starts with the letters he carries."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from accounts.models import User
from games import events
from games.engine import MatchState, Rules
from games.models import Hand, Match, MatchPlayer, Seat, Table, to_instant
from games.services._common import TABLE_NAME_MAX, _seating_changed
from games.services.moves import SetClocks, execute
from games.services.play import _deal_hand, _stop_hand_in_play


@dataclass(frozen=True)
class SeatedPlayer:
    """Who sits in seat ``position`` of a tournament table, with the letters he carries."""

    position: int
    user: User | None
    bot_level: str
    display_name: str
    letters: int


def tournament_table_create(
    *,
    owner: User,
    name: str,
    rules: Rules,
    profile: str,
    seats: int,
    base_seconds: int,
    increment_seconds: int,
    rated: bool = False,
) -> Table:
    """A public table (anyone may watch) with ``seats`` empty seats, in play from the start;
    ``rated``: its matches are rated (a rated arena's; an elimination's never are)."""
    table = Table.objects.create(
        owner=owner,
        name=name[:TABLE_NAME_MAX],
        profile=profile,
        rules_json=rules.to_json(),
        seats_count=seats,
        base_seconds=base_seconds,
        increment_seconds=increment_seconds,
        is_public=True,
        rated=rated,
        managed=True,
        status=Table.Status.PLAYING,
    )
    Seat.objects.bulk_create(Seat(table=table, position=p) for p in range(seats))
    events.lobby_changed_on_commit()
    return table


def tournament_table_seat(*, table: Table, players: list[SeatedPlayer]) -> None:
    """Sit ``players`` in their seats and empty every other seat (between hands only)."""
    by_position = {p.position: p for p in players}
    changed = []
    for seat in table.seats.select_for_update().order_by("position"):
        player = by_position.get(seat.position)
        user, level = (player.user, player.bot_level) if player else (None, "")
        if seat.user_id != (user.pk if user else None) or seat.bot_level != level:
            seat.user, seat.bot_level = user, level
            changed.append(seat)
    if changed:
        Seat.objects.bulk_update(changed, ["user", "bot_level"])
        _seating_changed(table)


def tournament_match_start(*, table: Table, players: list[SeatedPlayer], now: datetime) -> Match:
    """Start a match of ``players`` (2-4, seated), each with his letters (0-2); deal hand 1.

    The caller holds the tournament's lock and has closed the table's previous match.
    """
    players = sorted(players, key=lambda p: p.position)
    first_dealer = secrets.randbelow(len(players))
    state = MatchState(
        players=len(players), dealer=first_dealer, letters=tuple(p.letters for p in players)
    )
    match = Match.objects.create(table=table, state=state.to_json())
    MatchPlayer.objects.bulk_create(
        MatchPlayer(
            match=match,
            seat=i,
            table_position=p.position,
            user=p.user,
            bot_level=p.bot_level,
            display_name=p.display_name,
        )
        for i, p in enumerate(players)
    )
    if table.status != Table.Status.PLAYING:
        table.status = Table.Status.PLAYING
        table.save(update_fields=["status", "updated_at"])
    _deal_hand(match=match, table=table, number=1, dealer=first_dealer, now=now)
    return match


def tournament_match_close(*, match: Match, now: datetime) -> None:
    """End a tournament match between hands without a result: its seating changes."""
    if match.status == Match.Status.PLAYING:
        match.status = Match.Status.FINISHED
        match.finished_at = now
        match.save(update_fields=["status", "finished_at"])


def tournament_hand_deal(*, match: Match, now: datetime) -> Hand | None:
    """Deal the next hand of a tournament match whose last hand is over (else None)."""
    if match.status != Match.Status.PLAYING:
        return None
    last = match.hands.order_by("-number").first()
    if last is None or not last.is_over:
        return None
    return _deal_hand(
        match=match,
        table=match.table,
        number=last.number + 1,
        dealer=match.match_state.dealer,
        now=now,
    )


def tournament_table_close(*, table: Table, now: datetime) -> None:
    """The tournament no longer uses the table: closed, and out of the lobby."""
    Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED, updated_at=now)
    events.table_changed_on_commit(table.pk, version=None)
    events.lobby_changed_on_commit()


def tournament_hand_stop(*, match: Match, now: datetime) -> Hand | None:
    """Stop the hand in play of a match (locked by the caller) with no letter for anybody."""
    return _stop_hand_in_play(match, now)


def tournament_clocks_stop(*, hand: Hand, now: datetime) -> bool:
    """Pause a hand (locked by the caller): the clock to move stops with the time left.

    An overdue clock is applied first, as before any move. Returns whether it stopped.
    """
    if hand.is_over or hand.deadline is None:
        return False
    return execute(SetClocks(hand, hand.clock.stop(to_instant(now))), now=now) is not None


def tournament_clocks_start(*, hand: Hand, now: datetime) -> bool:
    """Resume a paused hand (locked by the caller): the clock to move runs from what is left."""
    if hand.is_over or hand.deadline is not None:
        return False
    clock = hand.clock.start(hand.state["to_move"], to_instant(now))
    return execute(SetClocks(hand, clock), now=now) is not None


def tournament_berserk(*, hand: Hand, seat: int, now: datetime) -> bool:
    """An arena's Berserk (the hand locked by the caller, in play): ``seat``'s time left
    is halved and he gains no increment in this hand (``Clock.berserk``); the seats show
    it. An overdue clock is applied first, as before any move: then nothing else
    happens and this returns False."""
    if hand.is_over or hand.deadline is None:
        return False
    return execute(SetClocks(hand, hand.clock.berserk(seat, to_instant(now))), now=now) is not None


def tournament_seat_vacate(*, table_id: int, position: int) -> None:
    """An eliminated player leaves his seat at once. The table's row is not locked: this
    runs inside the hand's transaction, which takes no table lock after the hand's."""
    Seat.objects.filter(table_id=table_id, position=position).update(user=None, bot_level="")
    events.table_changed_on_commit(table_id, version=None)
