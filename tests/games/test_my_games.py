"""My games (/games/): every table of the player's, the most urgent first; the header's
count of correspondence games waiting for his move; the table page's mark on the
actions since his last visit. Time is passed in."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from games import selectors
from games.models import Hand
from tests.factories import act_first_legal, client_for, first_hand, make_table, make_user

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


def to_move(hand: Hand):
    return hand.match.players.get(seat=hand.engine_state.to_move).user


def game_with(ola, *, days: int, now, ola_to_move: bool, name: str) -> Hand:
    """A started table of ``days`` per move where ``ola`` sits with another player, with
    the turn his or the other's as asked (moves are made until it is)."""
    table = make_table(ola, players=2, move_days=days, name=name)
    hand = first_hand(table, now)
    while (to_move(hand) == ola) != ola_to_move:
        hand = act_first_legal(hand, now)
    return hand


def test_my_games_lists_his_move_first_by_deadline_then_the_others_then_open_tables():
    ola = make_user("ola_games")
    t0 = timezone.now()
    theirs_soon = game_with(ola, days=1, now=t0, ola_to_move=False, name="Theirs soon")
    mine_late = game_with(ola, days=7, now=t0, ola_to_move=True, name="Mine late")
    game_with(ola, days=2, now=t0, ola_to_move=True, name="Mine soon")
    real_time = make_table(ola, players=2, name="Real time")
    first_hand(real_time, t0)  # 3 minutes per hand: his or the other's move, soonest of all
    make_table(ola, players=1, name="Still open", move_days=3)
    make_table(make_user(), players=2, name="Not his")
    games = selectors.my_games(user=ola, now=t0 + timedelta(hours=1))
    names = [g.table.name for g in games]
    real_time_mine = games[names.index("Real time")].my_turn
    expected_mine = ["Real time"] * real_time_mine + ["Mine soon", "Mine late"]
    expected_theirs = ["Real time"] * (not real_time_mine) + ["Theirs soon"]
    assert names == [*expected_mine, *expected_theirs, "Still open"]
    soon = games[names.index("Mine soon")]
    assert soon.my_turn and soon.left_ms == (2 * 24 - 1) * 3_600_000
    assert games[names.index("Theirs soon")].to_move == to_move(theirs_soon).username

    page = client_for(ola).get("/games/").content.decode()
    shown = re.findall(r'data-testid="my-game" data-table="(\d+)"', page)
    assert shown == [str(g.table.pk) for g in games]
    assert "Your move" in page and "2 days per move" in page
    assert mine_late.match.table.name in page
    assert client_for().get("/games/").status_code == 302  # signed in only


def test_the_header_counts_the_correspondence_games_waiting_for_his_move():
    ola = make_user("ola_count")
    t0 = timezone.now()
    game_with(ola, days=1, now=t0, ola_to_move=True, name="A")
    game_with(ola, days=3, now=t0, ola_to_move=True, name="B")
    game_with(ola, days=3, now=t0, ola_to_move=False, name="C")
    assert selectors.waiting_count(user=ola) == 2
    page = client_for(ola).get("/rules/").content.decode()
    assert re.search(r'data-testid="my-games-count" data-count="2"', page)


def test_the_table_marks_the_actions_since_the_players_last_visit():
    ola = make_user("ola_seen")
    t0 = timezone.now()
    table = make_table(ola, players=2, move_days=2)
    hand = first_hand(table, t0)
    if to_move(hand) == ola:
        hand = act_first_legal(hand, t0 + timedelta(hours=1))
    client = client_for(ola)
    client.get(table.get_absolute_url())  # her visit: she has seen the hand as it is
    seen = hand.engine_state.history_length
    hand = act_first_legal(hand, t0 + timedelta(hours=5))  # the other's move, while she is away
    page = client.get(table.get_absolute_url()).content.decode()
    new = hand.engine_state.history_length - seen
    assert new >= 1 and page.count('data-testid="unseen-action"') == new
    assert "new since your last visit" in page
    again = client.get(table.get_absolute_url()).content.decode()  # seen now
    assert 'data-testid="unseen-action"' not in again


def test_his_own_move_is_not_new_to_him_at_his_next_visit():
    ola = make_user("ola_own")
    t0 = timezone.now()
    table = make_table(ola, players=2, move_days=2)
    hand = first_hand(table, t0)
    hand = act_first_legal(hand, t0 + timedelta(hours=1))  # someone's move: new to the other
    mover = to_move(hand)
    client = client_for(mover)
    assert 'data-testid="unseen-action"' in client.get(table.get_absolute_url()).content.decode()
    act_first_legal(hand, t0 + timedelta(hours=2))  # his own move
    assert (
        'data-testid="unseen-action"' not in client.get(table.get_absolute_url()).content.decode()
    )
