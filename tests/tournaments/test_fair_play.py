"""Fair play in tournaments: linked accounts (one device, or one connection lately) are
registered as anyone, and then never seated at one table of an elimination where the
seating can part them, nor in one game of an arena."""

from __future__ import annotations

import logging

import pytest

from accounts.models import User
from tests.factories import make_user, share_device
from tests.tournaments.helpers import (
    advance,
    give_letters,
    hand_at,
    hands_in_play,
    make_tournament,
    seating,
    started,
    time_out,
)
from tests.tournaments.test_arena import games_in_play, make_arena, start
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def tables_of(tournament: Tournament) -> dict[int, int]:
    """The table number of every user still in, by user id."""
    return dict(
        tournament.entries.filter(eliminated_at__isnull=True).values_list(
            "user_id", "table__number"
        )
    )


def link_across(these: list[User], those: list[User]) -> None:
    """Every one of ``these`` shares a device with every one of ``those``."""
    for one in these:
        for other in those:
            share_device(one, other)


def test_linked_accounts_are_registered_and_seated_at_different_tables_from_the_start():
    left, right = [make_user() for _ in range(4)], [make_user() for _ in range(4)]
    # Only one seating of eight at two tables of four parts every linked pair.
    link_across(left, right)
    tournament = started(make_tournament(users=left + right, seats_per_table=4))
    assert sorted(seating(tournament).values()) == [4, 4]
    tables = tables_of(tournament)
    assert len({tables[u.pk] for u in left}) == 1 and len({tables[u.pk] for u in right}) == 1
    assert tables[left[0].pk] != tables[right[0].pk]


def test_where_no_seating_parts_them_they_play_at_one_table_and_the_log_says_so(caplog):
    users = [make_user() for _ in range(3)]
    share_device(*users)
    with caplog.at_level(logging.WARNING, logger="tournaments.formats.rolling"):
        tournament = started(make_tournament(users=users, seats_per_table=4))
    assert seating(tournament) == {1: 3} and len(hands_in_play(tournament)) == 1
    assert "3 pair(s) of linked accounts sit at one table" in caplog.text
    for user in users:
        assert user.username not in caplog.text


def test_the_player_who_moves_to_balance_the_tables_is_one_linked_to_nobody_there():
    users = [make_user() for _ in range(11)]
    tournament = started(make_tournament(users=users, seats_per_table=4))
    small = next(n for n, c in seating(tournament).items() if c == 3)
    give_letters(tournament, small, 2)
    time_out(hand_at(tournament, small))  # one of the three is out: 2, 4, 4
    for hand in hands_in_play(tournament):
        time_out(hand)
    before = tables_of(tournament)
    staying = [u for u in users if before.get(u.pk) == small]
    # At each big table, all but one are linked to the two left at the small one.
    free = {}
    for number in {n for n in before.values() if n != small}:
        at_it = [u for u in users if before.get(u.pk) == number]
        free[number] = at_it[0]
        link_across(staying, at_it[1:])
    assert advance(tournament).moved == 1
    after = tables_of(tournament)
    [moved] = [u for u in after if before[u] != after[u]]
    assert after[moved] == small and moved == free[before[moved]].pk


def test_an_arena_never_seats_two_linked_accounts_in_one_game():
    people = [make_user() for _ in range(4)]
    share_device(people[0], people[1])
    # The four people outrank the random bots: without the rule they would play together.
    tournament = start(make_arena(bots=4, users=people))
    games = games_in_play(tournament)
    assert len(games) == 2
    together = [{p.entry.user_id for p in game.players.select_related("entry")} for game in games]
    assert all(not {people[0].pk, people[1].pk} <= users for users in together)
