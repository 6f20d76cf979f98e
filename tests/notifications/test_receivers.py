"""Each kind of notice, raised through the real service whose event it tells of."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone, translation

from games import selectors as games_selectors
from games import services
from games.models import Hand
from games.signals import correspondence_turn
from moderation.services import users as moderation_users
from notifications.models import Kind, Notification
from notifications.texts import notice_text
from social import services as social
from tests.factories import make_moderator, make_table, make_user, play_to_pan_on_time, seated_users
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
from tournaments import services as tournaments
from tournaments.models import TournamentEntry

pytestmark = pytest.mark.django_db


def notices(user, kind: str) -> list[Notification]:
    return list(Notification.objects.filter(owner=user, kind=kind))


def text_of(notification: Notification, language: str = "en") -> str:
    with translation.override(language):
        return notice_text(notification)


def test_the_turn_of_a_correspondence_game_is_told_once_per_turn():
    table = make_table(name="Listy")
    ola = table.owner
    deadline = timezone.now() + timedelta(days=3)
    for _ in range(2):  # the signal told twice (a retried task): one notice
        correspondence_turn.send(
            sender=None, table_id=table.pk, hand_id=7, user_id=ola.pk, deadline=deadline
        )
    (turn,) = notices(ola, Kind.YOUR_TURN)
    assert text_of(turn) == "Your move at the table Listy."
    assert text_of(turn, "pl") == "Twój ruch przy stole Listy."
    assert turn.link == f"/tables/{table.pk}/"
    assert turn.mail == Notification.Mail.PENDING
    correspondence_turn.send(
        sender=None,
        table_id=table.pk,
        hand_id=7,
        user_id=ola.pk,
        deadline=deadline + timedelta(days=3),
    )
    assert len(notices(ola, Kind.YOUR_TURN)) == 2  # the next turn is a notice of its own


def test_a_challenge_and_its_answer_are_told_to_the_other_player():
    ola, janek = make_user("ola_ch"), make_user("janek_ch")
    challenge = social.challenge_create(challenger=ola, challenged=janek, seats=2, profile="kurnik")
    (challenged,) = notices(janek, Kind.CHALLENGED)
    assert text_of(challenged) == "ola_ch challenges you."
    assert challenged.link == f"/challenges/{challenge.pk}/"
    assert challenged.mail == Notification.Mail.PENDING
    assert notices(ola, Kind.CHALLENGED) == []

    social.challenge_accept(challenge_id=challenge.pk, user=janek)
    (answer,) = notices(ola, Kind.CHALLENGE_ANSWERED)
    challenge.refresh_from_db()
    assert text_of(answer) == "janek_ch accepted your challenge."
    assert answer.link == f"/tables/{challenge.table_id}/"
    # Answered: the challenge is no news by e-mail any more.
    challenged.refresh_from_db()
    assert challenged.mail == Notification.Mail.SKIPPED


def test_a_declined_challenge_is_told_to_the_challenger():
    ola, janek = make_user("ola_dc"), make_user("janek_dc")
    challenge = social.challenge_create(challenger=ola, challenged=janek, seats=2, profile="kurnik")
    social.challenge_decline(challenge_id=challenge.pk, user=janek, reason="later")
    (answer,) = notices(ola, Kind.CHALLENGE_ANSWERED)
    assert text_of(answer, "pl") == "janek_dc odrzuca twoje wyzwanie."


def test_a_registered_player_hears_that_the_tournament_starts_in_a_minute():
    ola = make_user("ola_cup")
    tournament = make_tournament(users=[ola], name="Winter cup", starts_in=50)
    assert tournaments.tournament_remind_due(now=timezone.now())
    (reminder,) = notices(ola, Kind.TOURNAMENT_STARTS)
    assert text_of(reminder) == "The tournament Winter cup starts in a minute."
    assert reminder.link == tournament.get_absolute_url()


def test_a_player_moved_to_another_table_and_his_followers_hear_of_it():
    users = [make_user() for _ in range(11)]
    fan = make_user("fan")
    social.follow_create(follower=fan, followed=users[0])
    tournament = started(make_tournament(users=users, seats_per_table=4, name="Spring cup"))
    (seated,) = notices(fan, Kind.FOLLOWED_PLAYS)
    assert text_of(seated) == (
        f"{users[0].username}, whom you follow, starts a game in the tournament Spring cup."
    )

    small = next(n for n, c in seating(tournament).items() if c == 3)
    give_letters(tournament, small, 2)
    time_out(hand_at(tournament, small))
    for hand in hands_in_play(tournament):
        time_out(hand)
    advance(tournament)
    moved = Notification.objects.filter(kind=Kind.TOURNAMENT_MOVED)
    assert moved.count() == 1
    mover = moved.get().owner
    assert TournamentEntry.objects.get(tournament=tournament, user=mover).table.number == small
    assert text_of(moved.get()) == "You were moved to another table in the tournament Spring cup."


def test_a_moderators_ban_is_told_to_its_target_with_the_reason():
    ola = make_user("ola_banned")
    moderation_users.user_ban(by=make_moderator(), user_id=ola.pk, reason="insults")
    (notice,) = notices(ola, Kind.MODERATION)
    assert text_of(notice) == "A moderator: ban (insults)."


def test_the_end_of_a_match_is_told_to_the_players_who_were_away_only():
    table = make_table(name="Away")
    here, away = seated_users(table)
    cache.set(games_selectors.presence_key(table.pk, here.pk), True, 60)
    try:
        match = play_to_pan_on_time(table)
    finally:
        cache.delete(games_selectors.presence_key(table.pk, here.pk))
    assert notices(here, Kind.MATCH_ENDED) == []
    (ended,) = notices(away, Kind.MATCH_ENDED)
    assert ended.key == f"match:{match.pk}:ended"
    assert text_of(ended) == "The match at the table Away ended while you were away."


def test_a_turn_that_the_clock_ends_leaves_the_bell_and_the_next_turn_is_told(
    django_capture_on_commit_callbacks,
):
    table = make_table(name="Zegar", move_days=1)
    t0 = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        services.match_start(table_id=table.pk, by=table.owner, now=t0)
    hand = Hand.objects.get(match__table=table)
    late = hand.match.players.get(seat=hand.engine_state.to_move).user
    (turn,) = notices(late, Kind.YOUR_TURN)
    assert turn.read_at is None and turn.mail == Notification.Mail.PENDING
    # Nobody moves: the day runs out, the hand ends with his letter, the next is dealt.
    with django_capture_on_commit_callbacks(execute=True):
        services.execute(
            services.Timeout(hand_id=hand.pk), now=hand.deadline + timedelta(seconds=1)
        )
    turn.refresh_from_db()
    assert turn.read_at is not None and turn.mail == Notification.Mail.SKIPPED
    with django_capture_on_commit_callbacks(execute=True):
        services.match_next_hand(
            match_id=hand.match_id, after_number=hand.number, now=hand.deadline + timedelta(hours=1)
        )
    second = Hand.objects.get(match_id=hand.match_id, number=hand.number + 1)
    (next_turn,) = Notification.objects.filter(kind=Kind.YOUR_TURN, read_at__isnull=True)
    assert next_turn.key.startswith(f"turn:{second.pk}:")
    assert next_turn.mail == Notification.Mail.PENDING
