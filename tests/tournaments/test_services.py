"""Tournament services on PostgreSQL: registration, start, letters, eliminations, balancing,
pause, disqualification, cancellation and the end."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from games import services as games
from games.engine import move_to_json
from games.models import Hand, Match, Seat, Table
from games.services import Refused
from tests.factories import make_user
from tests.inbox import Inbox
from tests.tournaments.helpers import (
    advance,
    entry_to_move,
    give_letters,
    hand_at,
    hands_in_play,
    make_staff,
    make_tournament,
    seating,
    started,
    time_out,
)
from tournaments import services
from tournaments.models import Tournament, TournamentEntry
from tournaments.selectors import tournament_audit
from tournaments.services import TournamentSettings

pytestmark = pytest.mark.django_db


def in_(tournament: Tournament) -> int:
    return tournament.entries.filter(eliminated_at__isnull=True).count()


# --- create and register --------------------------------------------------------------------


def test_only_staff_create_and_the_rules_make_every_cut_off_hand_a_loss():
    soon = timezone.now() + timedelta(hours=1)
    with pytest.raises(Refused):
        services.tournament_create(by=make_user(), settings=TournamentSettings("Cup", soon))
    tournament = services.tournament_create(
        by=make_staff(), settings=TournamentSettings("Cup", soon, max_actions=30)
    )
    assert tournament.status == Tournament.Status.SCHEDULED
    assert tournament.rules.max_actions_result == "most_cards"
    assert tournament.rules.max_actions == 30


@pytest.mark.parametrize(
    "bad",
    [
        {"min_players": 2},
        {"max_players": 513},
        {"min_players": 10, "max_players": 9},
        {"seats_per_table": 1},
        {"seats_per_table": 5},
        {"profile": "nonsense"},
        {"base_seconds": 1},
        {"seconds_between_hands": 61.0},
        {"name": " "},
    ],
)
def test_settings_outside_the_bounds_are_refused(bad):
    soon = timezone.now() + timedelta(hours=1)
    settings = TournamentSettings(**{"name": "Cup", "starts_at": soon, **bad})
    with pytest.raises(Refused):
        services.tournament_create(by=make_staff(), settings=settings)
    with pytest.raises(Refused):
        services.tournament_create(
            by=make_staff(), settings=TournamentSettings("Cup", timezone.now())
        )


def test_registration_is_open_until_the_start_and_up_to_the_maximum():
    tournament = make_tournament(min_players=3, max_players=3, bots_allowed=False)
    ola, janek, ewa, piotr = (make_user() for _ in range(4))
    for user in (ola, janek, ewa):
        services.tournament_register(tournament_id=tournament.pk, user=user)
    with pytest.raises(Refused, match="already registered"):
        services.tournament_register(tournament_id=tournament.pk, user=ola)
    with pytest.raises(Refused, match="full"):
        services.tournament_register(tournament_id=tournament.pk, user=piotr)
    with pytest.raises(Refused, match="Bots may not"):
        services.tournament_register_bot(
            tournament_id=tournament.pk, by=tournament.created_by, level="random"
        )
    services.tournament_unregister(tournament_id=tournament.pk, user=janek)
    services.tournament_register(tournament_id=tournament.pk, user=piotr)
    late = tournament.starts_at + timedelta(seconds=1)
    with pytest.raises(Refused, match="closed"):
        services.tournament_unregister(tournament_id=tournament.pk, user=piotr, now=late)
    assert sorted(tournament.entries.values_list("display_name", flat=True)) == sorted(
        [ola.username, ewa.username, piotr.username]
    )


def test_bots_get_names_of_their_own_and_only_staff_register_them():
    tournament = make_tournament(bots=3)
    assert sorted(tournament.entries.values_list("display_name", flat=True)) == [
        "Bot 1",
        "Bot 2",
        "Bot 3",
    ]
    with pytest.raises(Refused):
        services.tournament_register_bot(
            tournament_id=tournament.pk, by=make_user(), level="greedy"
        )


# --- the start ----------------------------------------------------------------------------------


def test_with_too_few_registered_the_start_cancels_and_tells_them(
    django_capture_on_commit_callbacks,
):
    ola = make_user("ola_few", email="ola@example.com")
    tournament = make_tournament(users=[ola], bots=1, min_players=3)
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_cause == Tournament.CancelCause.TOO_FEW
    assert not Table.objects.exists()
    assert [m.to for m in mail.outbox] == [["ola@example.com"]]
    assert tournament.name in mail.outbox[0].subject
    assert mail.outbox[0].subject.startswith("[Pan online] ")


def test_the_start_waits_for_its_time_and_happens_once():
    tournament = make_tournament(bots=10, seats_per_table=4)
    early = tournament.starts_at - timedelta(seconds=1)
    services.tournament_start(tournament_id=tournament.pk, now=early)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.SCHEDULED
    services.tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    services.tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    # 10 players, tables of 4: 4, 3, 3; every table deals at once.
    assert sorted(seating(tournament).values(), reverse=True) == [4, 3, 3]
    assert len(hands_in_play(tournament)) == 3
    for link in tournament.tables.select_related("table"):
        table = link.table
        assert table.is_public and table.status == Table.Status.PLAYING
        match = table.matches.get()
        positions = set(match.players.values_list("table_position", flat=True))
        assert positions == set(link.entries.values_list("position", flat=True))
        assert match.match_state.letters == (0,) * len(positions)
        names = set(match.players.values_list("display_name", flat=True))
        assert names == set(link.entries.values_list("display_name", flat=True))
    with pytest.raises(Refused, match="already started"):
        services.tournament_start(tournament_id=tournament.pk, by=tournament.created_by)


def test_tournament_tables_refuse_casual_seating():
    ola = make_user()
    tournament = started(make_tournament(bots=2, users=[ola]))
    table = tournament.tables.get().table
    with pytest.raises(Refused):
        games.table_sit(table_id=table.pk, user=make_user())
    with pytest.raises(Refused):
        games.table_leave(table_id=table.pk, user=ola)
    with pytest.raises(Refused):
        games.match_start(table_id=table.pk, by=tournament.created_by)


# --- letters, eliminations ----------------------------------------------------------------------


def test_the_loser_carries_his_letter_and_the_table_deals_again_after_the_pause():
    tournament = started(make_tournament(bots=3))
    hand = hands_in_play(tournament)[0]
    loser = entry_to_move(hand)
    time_out(hand)
    loser.refresh_from_db()
    assert loser.letters == 1
    # Not before the pause between hands (the table shows the result meanwhile).
    services.tournament_advance(tournament_id=tournament.pk, now=hand.deadline)
    assert not hands_in_play(tournament)
    report = advance(tournament)
    assert report.dealt == 1
    (next_hand,) = hands_in_play(tournament)
    assert next_hand.match_id == hand.match_id and next_hand.number == 2
    # Repeating the step changes nothing.
    assert advance(tournament).dealt == 0


def test_completing_pan_eliminates_at_once_and_the_table_goes_on_with_the_letters():
    tournament = started(make_tournament(bots=4, seats_per_table=4), letters=2)
    hand = hands_in_play(tournament)[0]
    loser = entry_to_move(hand)
    time_out(hand)
    loser.refresh_from_db()
    assert loser.letters == 3
    assert loser.eliminated_at is not None and loser.place == 4
    assert loser.table is None
    table = hand.match.table
    assert not Seat.objects.filter(
        table=table,
        position=hand.match.players.get(display_name=loser.display_name).table_position,
        bot_level="random",
    ).exists()
    assert Match.objects.get(pk=hand.match_id).status == Match.Status.FINISHED
    advance(tournament)
    match = table.matches.order_by("-pk").first()
    assert match.pk != hand.match_id and match.status == Match.Status.PLAYING
    assert match.match_state.letters == (2, 2, 2)
    assert loser.display_name not in set(match.players.values_list("display_name", flat=True))


def test_players_eliminated_at_the_same_moment_share_the_place():
    tournament = started(make_tournament(bots=8, seats_per_table=4), letters=2)
    first, second = hands_in_play(tournament)
    out = [entry_to_move(first), entry_to_move(second)]
    moment = max(first.deadline, second.deadline) + timedelta(seconds=1)
    time_out(first, now=moment)
    time_out(second, now=moment)
    for entry in out:
        entry.refresh_from_db()
    assert [e.place for e in out] == [7, 7]  # 6 still in: both seventh, no eighth
    assert in_(tournament) == 6
    # The next one out, a moment later, is sixth.
    advance(tournament)
    hand = hands_in_play(tournament)[0]
    third = entry_to_move(hand)
    time_out(hand)
    third.refresh_from_db()
    assert third.place == 6


def test_places_follow_the_moments_even_when_a_later_one_commits_first():
    """Two hands end at nearly the same time on two workers; the later one takes the lock
    first. The earlier elimination still places behind it."""
    tournament = started(make_tournament(bots=8, seats_per_table=4), letters=2)
    first, second = hands_in_play(tournament)
    earlier = max(first.deadline, second.deadline) + timedelta(seconds=1)
    out_first, out_second = entry_to_move(first), entry_to_move(second)
    time_out(second, now=earlier + timedelta(milliseconds=5))  # commits first
    out_second.refresh_from_db()
    assert out_second.place == 8
    time_out(first, now=earlier)
    out_first.refresh_from_db()
    out_second.refresh_from_db()
    assert (out_first.place, out_second.place) == (8, 7)


# --- balancing ------------------------------------------------------------------------------------


def test_a_break_waits_for_the_tables_concerned_to_be_between_hands():
    tournament = started(make_tournament(bots=9, seats_per_table=4))
    assert seating(tournament) == {1: 3, 2: 3, 3: 3}
    give_letters(tournament, 3, 2)
    # Table 3 (of three players) loses one: 8 players fit at two tables of four.
    time_out(hand_at(tournament, 3))
    assert seating(tournament) == {1: 3, 2: 3, 3: 2}
    report = advance(tournament)
    assert report.held == 1 and report.moved == 0  # tables 1 and 2 are still in a hand
    assert hand_at(tournament, 3) is None  # table 3 is held, not dealt
    time_out(hand_at(tournament, 1))
    assert advance(tournament).moved == 0  # table 2 still plays
    assert hand_at(tournament, 1) is None
    time_out(hand_at(tournament, 2))
    report = advance(tournament)
    assert report.moved == 2 and report.closed == 1 and report.started == 2
    assert seating(tournament) == {1: 4, 2: 4}
    for number in (1, 2):
        hand = hand_at(tournament, number)
        link = hand.match.table.tournament_table
        expected = sorted(link.entries.values_list("letters", flat=True))
        assert sorted(hand.match.match_state.letters) == expected
    closed = tournament.tables.get(number=3)
    assert closed.closed_at is not None and closed.table.status == Table.Status.CLOSED


@pytest.mark.redis
def test_tables_differing_by_two_move_one_player_from_the_largest_to_the_smallest(
    django_capture_on_commit_callbacks,
):
    # Only people, so that whoever the draw moves is told on his open pages.
    users = [make_user() for _ in range(11)]
    tournament = started(make_tournament(users=users, seats_per_table=4))
    assert sorted(seating(tournament).values()) == [3, 4, 4]
    small = next(n for n, c in seating(tournament).items() if c == 3)
    give_letters(tournament, small, 2)
    time_out(hand_at(tournament, small))
    for hand in hands_in_play(tournament):
        time_out(hand)
    before = _tables_of(tournament)
    with Inbox([f"user-{user.pk}" for user in users]) as inbox:
        with django_capture_on_commit_callbacks(execute=True):
            report = advance(tournament)
        announced = inbox.events()
    assert report.moved == 1
    assert sorted(seating(tournament).values()) == [3, 3, 4]
    assert len(hands_in_play(tournament)) == 3
    after = _tables_of(tournament)
    moved = [user for user, number in after.items() if before[user] != number]
    assert len(moved) == 1
    assert before[moved[0]] != small and after[moved[0]] == small
    follows = [e for e in announced if e["type"] == "user.follow"]
    assert follows == [{"type": "user.follow", "tournament": tournament.pk, "kind": "moved"}]


def _tables_of(tournament: Tournament) -> dict[int, int]:
    """The table number of every user still in, by user id."""
    return dict(
        tournament.entries.filter(eliminated_at__isnull=True).values_list(
            "user_id", "table__number"
        )
    )


def test_the_last_two_tables_merge_into_the_final_table_and_a_winner_comes_out():
    tournament = started(make_tournament(bots=5, seats_per_table=4))
    assert sorted(seating(tournament).values()) == [2, 3]
    # Every timeout at its own moment: two hands started together have equal deadlines,
    # and players eliminated at the same moment would rightly share a place.
    moment = timezone.now()
    for _ in range(200):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        in_play = hands_in_play(tournament)
        if not in_play:
            advance(tournament)
            continue
        hand = in_play[0]
        hand.refresh_from_db()
        moment = max(hand.deadline + timedelta(seconds=1), moment + timedelta(milliseconds=1))
        time_out(hand, now=moment)
    else:
        pytest.fail("the tournament did not finish")
    advance(tournament)  # the tables close
    places = sorted(tournament.entries.values_list("place", flat=True))
    assert places == [1, 2, 3, 4, 5]
    winner = tournament.entries.get(place=1)
    assert winner.eliminated_at is None and winner.letters < 3
    assert not tournament.entries.exclude(pk=winner.pk).exclude(letters=3).exists()
    assert not tournament.tables.filter(closed_at__isnull=True).exists()
    assert not Table.objects.exclude(status=Table.Status.CLOSED).exists()
    tournament.refresh_from_db()
    assert tournament_audit(tournament=tournament) == []


# --- staff: pause, disqualify, cancel ---------------------------------------------------------


def test_pause_stops_every_clock_and_refuses_moves_until_resume():
    ola = make_user()
    tournament = started(make_tournament(bots=2, users=[ola]))
    staff = tournament.created_by
    hand = hands_in_play(tournament)[0]
    to_move = hand.engine_state.to_move
    left_before = hand.clock_ms[to_move]
    pause_at = hand.turn_started_at + timedelta(seconds=10)
    services.tournament_pause(tournament_id=tournament.pk, by=staff, now=pause_at)
    hand.refresh_from_db()
    assert hand.deadline is None and hand.turn_started_at is None
    assert hand.clock_ms[to_move] == left_before - 10_000
    state = hand.engine_state
    move = move_to_json(state.legal_moves()[0])
    with pytest.raises(Refused, match="paused"):
        games.execute(games.move_action(move, hand_id=hand.pk, version=hand.version, as_bot=True))
    far = pause_at + timedelta(hours=1)
    assert not games.execute(games.Timeout(hand_id=hand.pk), now=far)
    assert advance(tournament).dealt == 0
    with pytest.raises(Refused):
        services.tournament_pause(tournament_id=tournament.pk, by=staff)
    services.tournament_resume(tournament_id=tournament.pk, by=staff, now=far)
    hand.refresh_from_db()
    assert hand.deadline == far + timedelta(milliseconds=left_before - 10_000)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING


def test_a_disqualified_player_is_out_at_the_current_place_and_his_hand_stops():
    tournament = started(make_tournament(bots=6, seats_per_table=3))
    hand = hands_in_play(tournament)[0]
    cheat = entry_to_move(hand)
    others = list(
        hand.match.table.tournament_table.entries.exclude(pk=cheat.pk).values_list("pk", "letters")
    )
    with pytest.raises(Refused):
        services.tournament_disqualify(
            tournament_id=tournament.pk, entry_id=cheat.pk, by=make_user()
        )
    services.tournament_disqualify(
        tournament_id=tournament.pk, entry_id=cheat.pk, by=tournament.created_by, reason="bot"
    )
    cheat.refresh_from_db()
    assert cheat.disqualified and cheat.place == 6 and cheat.letters == 0
    hand.refresh_from_db()
    assert hand.outcome["loser"] is None  # stopped: nobody got a letter
    assert (
        list(
            TournamentEntry.objects.filter(pk__in=[p for p, _ in others]).values_list(
                "pk", "letters"
            )
        )
        == others
    )
    advance(tournament)
    assert sum(seating(tournament).values()) == 5
    with pytest.raises(Refused, match="already out"):
        services.tournament_disqualify(
            tournament_id=tournament.pk, entry_id=cheat.pk, by=tournament.created_by
        )


def test_cancelling_a_running_tournament_stops_the_hands_and_closes_the_tables(
    django_capture_on_commit_callbacks,
):
    ola = make_user(email="ola.cancel@example.com")
    tournament = started(make_tournament(bots=4, users=[ola]))
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_cancel(
            tournament_id=tournament.pk, by=tournament.created_by, reason="server move"
        )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert not hands_in_play(tournament)
    assert not Table.objects.exclude(status=Table.Status.CLOSED).exists()
    assert Hand.objects.filter(outcome__reason="aborted").count() == 2
    assert [m.to for m in mail.outbox] == [["ola.cancel@example.com"]]
    assert "server move" in mail.outbox[0].body
    with pytest.raises(Refused, match="already over"):
        services.tournament_cancel(tournament_id=tournament.pk, by=tournament.created_by)


def test_announcements_are_posted_by_the_staff():
    tournament = make_tournament()
    with pytest.raises(Refused):
        services.tournament_announce(tournament_id=tournament.pk, by=make_user(), text="hi")
    services.tournament_announce(
        tournament_id=tournament.pk, by=tournament.created_by, text="  Round two   at 20:00 "
    )
    assert list(tournament.announcements.values_list("text", flat=True)) == ["Round two at 20:00"]


def test_after_the_start_only_name_and_description_can_be_edited():
    tournament = started(make_tournament(bots=3))
    settings = TournamentSettings.of(tournament)
    from dataclasses import replace

    services.tournament_update(
        tournament_id=tournament.pk,
        by=tournament.created_by,
        settings=replace(settings, name="Renamed", description="New words"),
    )
    assert Tournament.objects.get(pk=tournament.pk).name == "Renamed"
    with pytest.raises(Refused):
        services.tournament_update(
            tournament_id=tournament.pk,
            by=tournament.created_by,
            settings=replace(settings, seats_per_table=2),
        )
