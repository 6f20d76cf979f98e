"""The header of every signed-in page (the bell, the count of games waiting for a move)
is read from the cache, on the real Redis, and stays right when it changes."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import act_first_legal, client_for, first_hand, make_table

pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def header(client) -> tuple[int, int, list[str]]:
    """A signed-in page's bell (unread notices) and count of games waiting for his move,
    and the queries the page made."""
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/rules/").content.decode()
    bell = re.search(r'data-testid="bell-count" aria-hidden="true">(\d+)<', page)
    waiting = re.search(r'data-testid="my-games-count" data-count="(\d+)"', page)
    assert waiting is not None
    return int(bell.group(1)) if bell else 0, int(waiting.group(1)), [q["sql"] for q in queries]


def test_the_header_is_read_once_and_stays_right_when_a_turn_passes_or_a_notice_is_read(
    django_capture_on_commit_callbacks,
):
    table = make_table(players=2, move_days=3, name="Listy")
    ola, janek = (seat.user for seat in table.seats.order_by("position")[:2])
    clients = {ola.pk: client_for(ola), janek.pk: client_for(janek)}
    for client in clients.values():
        *first, first_queries = header(client)
        *again, queries = header(client)
        assert first == again == [0, 0]
        # The bell's two queries and the count's one are gone from the page read again.
        assert len(queries) <= len(first_queries) - 3
        assert not [q for q in queries if "notifications_notification" in q or "games_hand" in q]

    # The match starts: its first turn reaches the header of the one to move.
    with django_capture_on_commit_callbacks(execute=True):
        hand = first_hand(table, timezone.now())
    mover = hand.match.players.get(seat=hand.engine_state.to_move).user_id
    other = janek.pk if mover == ola.pk else ola.pk
    assert header(clients[mover])[:2] == (1, 1)
    assert header(clients[other])[:2] == (0, 0)

    # He moves: the turn (and its notice) passes to the other.
    with django_capture_on_commit_callbacks(execute=True):
        act_first_legal(hand, timezone.now())
    assert header(clients[mover])[:2] == (0, 0)
    assert header(clients[other])[:2] == (1, 1)

    # The other reads his notices: the bell is empty, the game still waits for him.
    with django_capture_on_commit_callbacks(execute=True):
        clients[other].post("/notifications/read/")
    assert header(clients[other])[:2] == (0, 1)
    *_, queries = header(clients[other])
    assert not [q for q in queries if "notifications_notification" in q or "games_hand" in q]
