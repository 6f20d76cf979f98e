"""A move racing a tournament's pause or resume, or a moderator's stop: each is a
compare-and-set on the hand's version through the one executor (``services.moves``), so
whichever commits first wins, the other either follows it (it waited on the row's lock
and read the row after) or is refused; the hand ends at one consistent version and the
table shows that version.

Each race is made for real on PostgreSQL: the first change is written in a transaction
left open while the second runs in a thread until it waits on the row's lock; then the
first commits."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.db import connection, transaction

from core.errors import Refused
from games import selectors
from games import services as games
from games.engine import move_to_json
from games.models import Action, Hand
from live import adb
from moderation import services as moderation
from tests.factories import make_moderator, make_table
from tests.tournaments.helpers import hands_in_play, make_tournament, started
from tournaments import services as tournaments

pytestmark = pytest.mark.django_db(transaction=True)


class Racer(threading.Thread):
    """``work`` in a thread of its own, with its own database connection; what it
    returned or raised."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.work = work
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as exc:  # the test reads it
            self.error = exc
        finally:
            connection.close()


def race(first: Callable[[], Any], second: Callable[[], Any]) -> Racer:
    """``first`` written and left uncommitted while ``second`` runs until it waits on a
    lock (or ends, refused on the row as committed); then ``first`` commits and
    ``second`` goes on. Returns the second's racer."""
    with transaction.atomic():
        first()
        racer = Racer(second)
        racer.start()
        wait_until_a_backend_waits_on_a_lock(racer)
    racer.join(timeout=30)
    assert not racer.is_alive()
    return racer


def wait_until_a_backend_waits_on_a_lock(racer: Racer) -> None:
    params = adb.wrapper().get_connection_params()
    params.pop("cursor_factory", None)
    with psycopg.connect(**params, autocommit=True) as watcher:
        for _ in range(300):
            waiting = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone()[0]
            if waiting or not racer.is_alive():
                return
            time.sleep(0.02)
    raise AssertionError("the second change never waited on the row")


def next_move(hand: Hand) -> dict:
    state = hand.engine_state
    return move_to_json(state.legal_moves()[0])


def a_bot_moves(hand: Hand) -> Callable[[], Hand]:
    move, version = next_move(hand), hand.version
    return lambda: games.execute(
        games.move_action(move, hand_id=hand.pk, version=version, as_bot=True)
    )


def shown(hand: Hand) -> selectors.TableSnapshot:
    return selectors.table_snapshot(table_id=hand.match.table_id)


def tournament_hand() -> tuple[Any, Hand]:
    tournament = started(make_tournament(bots=3))
    return tournament, hands_in_play(tournament)[0]


def test_a_pause_that_commits_first_refuses_the_move_that_waited_on_it():
    tournament, hand = tournament_hand()
    actions = Action.objects.filter(hand=hand).count()
    move = a_bot_moves(hand)

    def pause() -> None:
        tournaments.tournament_pause(tournament_id=tournament.pk, by=tournament.created_by)

    racer = race(pause, move)

    assert isinstance(racer.error, Refused)
    row = Hand.objects.get(pk=hand.pk)
    assert row.version == hand.version + 1 and row.deadline is None
    assert Action.objects.filter(hand=hand).count() == actions
    frame = shown(hand)
    assert frame.hand.version == row.version and frame.hand.deadline is None


def test_a_move_that_commits_first_is_paused_after_with_its_clock():
    tournament, hand = tournament_hand()
    move = a_bot_moves(hand)
    pause_at = hand.turn_started_at + timedelta(seconds=5)

    def pause() -> None:
        tournaments.tournament_pause(
            tournament_id=tournament.pk, by=tournament.created_by, now=pause_at
        )

    racer = race(move, pause)

    assert racer.error is None
    row = Hand.objects.get(pk=hand.pk)
    assert row.version == hand.version + 2  # the move, then the pause on it
    assert row.deadline is None and row.state["to_move"] != hand.state["to_move"]
    frame = shown(hand)
    assert frame.hand.version == row.version and frame.state.to_json() == row.state


def test_a_resume_racing_a_move_on_the_paused_hand_leaves_the_clock_running():
    tournament, hand = tournament_hand()
    staff = tournament.created_by
    tournaments.tournament_pause(tournament_id=tournament.pk, by=staff)
    paused = Hand.objects.get(pk=hand.pk)
    move = a_bot_moves(paused)  # sent during the resume: it reads the row still paused

    def resume() -> None:
        tournaments.tournament_resume(tournament_id=tournament.pk, by=staff)

    racer = race(resume, move)

    assert isinstance(racer.error, Refused)
    row = Hand.objects.get(pk=hand.pk)
    assert row.version == paused.version + 1 and row.deadline is not None
    assert row.state == paused.state
    assert shown(hand).hand.version == row.version


def table_hand() -> tuple[Hand, Callable[[], Hand], Callable[[], Hand]]:
    """A hand in play at a table of two players; its next move (by the player to move,
    on this version) and a moderator's stop of it."""
    table = make_table(players=2, base_seconds=600)
    games.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.select_related("match").get(match__table=table)
    mover = next(p.user for p in hand.match.players.all() if p.seat == hand.state["to_move"])
    move, version = next_move(hand), hand.version
    moderator = make_moderator()

    def stop() -> Hand:
        return moderation.hand_abort(table_id=table.pk, by=moderator, reason="test")

    def player_moves() -> Hand:
        return games.execute(games.move_action(move, hand_id=hand.pk, version=version, user=mover))

    return hand, player_moves, stop


def test_a_moderators_stop_that_commits_first_refuses_the_move():
    hand, player_moves, stop = table_hand()
    version = hand.version

    racer = race(stop, player_moves)

    assert isinstance(racer.error, Refused)
    row = Hand.objects.get(pk=hand.pk)
    assert row.version == version + 1 and row.outcome is not None
    assert row.outcome["loser"] is None
    frame = shown(hand)
    assert frame.hand.version == row.version and frame.hand.outcome == row.outcome


def test_a_move_that_commits_first_is_stopped_after_by_the_moderator():
    hand, player_moves, stop = table_hand()
    version = hand.version

    racer = race(player_moves, stop)

    assert racer.error is None
    row = Hand.objects.get(pk=hand.pk)
    assert row.version == version + 2 and row.outcome["loser"] is None
    assert Action.objects.filter(hand=hand, index=row.engine_state.history_length - 1).exists()
    assert shown(hand).hand.version == row.version


def test_a_pause_that_commits_first_refuses_the_live_rooms_move():
    """The live room's move (its one statement on the event loop's own connection, no
    transaction around it) waits on the row as a thread's does, then finds it moved on."""
    hand, _player_moves, _stop = table_hand()
    mover = next(p.user for p in hand.match.players.all() if p.seat == hand.state["to_move"])
    move, version = next_move(hand), hand.version

    def pause() -> None:
        locked = Hand.objects.select_for_update().select_related("match").get(pk=hand.pk)
        assert games.tournament_clocks_stop(hand=locked, now=locked.turn_started_at)

    def live_move() -> Hand:
        return asyncio.run(
            games.execute_async(
                games.move_action(move, hand_id=hand.pk, version=version, user=mover)
            )
        )

    racer = race(pause, live_move)

    assert isinstance(racer.error, Refused)
    row = Hand.objects.get(pk=hand.pk)
    assert row.version == version + 1 and row.deadline is None
    assert not Action.objects.filter(hand=hand).exists()
    assert shown(hand).hand.version == row.version
