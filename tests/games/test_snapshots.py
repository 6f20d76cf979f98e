"""Several tables read at once (``selectors.table_snapshots``), as the live room reads
them when every socket comes back after a restart: each shows its viewers exactly what
its own read shows, in the same queries whatever the number of tables."""

from __future__ import annotations

import gc

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from accounts.models import User
from games import renderers, selectors, services
from games.models import Hand, Rating, Table
from tests.factories import make_table, make_user, play_to_pan_on_time, seated_users

pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def tables_in_every_state() -> list[Table]:
    waiting = make_table(players=3)
    playing = make_table(players=2, base_seconds=600)
    services.match_start(table_id=playing.pk, by=playing.owner)
    hand = Hand.objects.get(match__table=playing)
    move = hand.engine_state.legal_moves()[0]
    seat_to_move = hand.engine_state.to_move
    mover = hand.match.players.get(seat=seat_to_move).user
    services.execute(
        services.move_action(
            {"type": "play", "cards": list(move.cards)},
            hand_id=hand.pk,
            version=hand.version,
            user=mover,
        )
    )
    finished = make_table(players=2, base_seconds=60)
    play_to_pan_on_time(finished)
    rematched = make_table(players=2, base_seconds=60)
    play_to_pan_on_time(rematched)
    services.match_start(table_id=rematched.pk, by=rematched.owner)  # its latest match
    private = make_table(players=2, is_public=False)
    return [waiting, playing, finished, rematched, private]


def shown(snapshot: selectors.TableSnapshot, viewer) -> str:
    with translation.override("pl"):
        view = selectors.table_view(snapshot=snapshot, viewer=viewer, with_chat=False)
        return renderers.table_fragments(view)


def test_tables_read_together_show_what_each_read_alone_shows():
    tables = tables_in_every_state()
    now = timezone.now()
    together = selectors.table_snapshots([t.pk for t in tables] + [10**9], now=now)
    assert sorted(together) == sorted(t.pk for t in tables)  # a missing table left out
    for table in tables:
        alone = selectors.table_snapshot(table_id=table.pk, now=now)
        read = together[table.pk]
        assert (read.match and read.match.pk, read.hand and read.hand.pk) == (
            alone.match and alone.match.pk,
            alone.hand and alone.hand.pk,
        )
        assert sorted(read.rating_changes) == sorted(alone.rating_changes)
        for viewer in [*seated_users(table), None]:
            assert shown(read, viewer) == shown(alone, viewer), (table.name, viewer)
    rematched = together[tables[3].pk]
    assert rematched.hand.number == 1 and rematched.match.status == "playing"


def test_any_number_of_tables_is_read_in_the_same_queries():
    tables = tables_in_every_state()
    with CaptureQueriesContext(connection) as two:  # one in play, one finished
        selectors.table_snapshots([tables[1].pk, tables[2].pk])
    with CaptureQueriesContext(connection) as five:
        selectors.table_snapshots([t.pk for t in tables])
    assert len(five) == len(two) <= 8


def test_who_may_watch_a_table_is_read_from_the_tables_read():
    table = make_table(players=2, is_public=False)
    snapshot = selectors.table_snapshot(table_id=table.pk)
    owner, guest = seated_users(table)
    stranger = make_user()
    assert selectors.sees_table(snapshot, owner, []) and selectors.sees_table(snapshot, guest, [])
    assert not selectors.sees_table(snapshot, stranger, [])
    assert not selectors.sees_table(snapshot, None, [])
    assert selectors.sees_table(snapshot, stranger, [table.pk])  # invited
    for user in (owner, guest, stranger, None):
        assert selectors.sees_table(snapshot, user, []) == selectors.can_view_table(table, user, [])


def test_a_tables_read_leaves_no_reference_cycle_of_its_players():
    """A daphne reads its tables all the time: what a read leaves must go when it is
    dropped, not wait for the collector's complete pass (a player's instance in a cycle
    holds his ratings and rows with it)."""
    tables = tables_in_every_state()
    finished = tables[2]
    rated = seated_users(finished)[0]
    Rating.objects.update_or_create(
        user=rated, speed=finished.speed, defaults={"mu": 30.0, "matches": 12}
    )
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what the collector finds unreachable stays in gc.garbage
    try:
        for read in (
            lambda: selectors.table_snapshot(table_id=finished.pk),
            lambda: selectors.table_snapshots([t.pk for t in tables]),
            lambda: selectors.lobby_tables(),
        ):
            assert read()  # read, shown (below), then dropped
            gc.collect()
            assert not [o for o in gc.garbage if isinstance(o, (User, Rating))], read
            gc.garbage.clear()
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    snapshot = selectors.table_snapshot(table_id=finished.pk)
    assert f"{1500 + 24 * 5}" in shown(snapshot, None)  # his rating, read without the cycle
