"""Follows and challenges through their services on PostgreSQL: who may challenge whom,
an accepted challenge seats both players at one table with its settings, declines with a
reason, cancels, and expiry with the time passed in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import Refused
from games.engine import PROFILES
from games.models import Match, Table
from social import selectors, services
from social.models import Challenge, DeclineReason, Follow
from tests.factories import make_user, share_device

pytestmark = pytest.mark.django_db


def challenge(challenger, challenged, **settings):
    return services.challenge_create(challenger=challenger, challenged=challenged, **settings)


def test_following_twice_keeps_one_follow_and_unfollowing_ends_it():
    ola, janek = make_user(), make_user()
    services.follow_create(follower=ola, followed=janek)
    services.follow_create(follower=ola, followed=janek)
    assert list(Follow.objects.values_list("follower", "followed")) == [(ola.pk, janek.pk)]
    assert services.follow_delete(follower=ola, followed=janek)
    assert not Follow.objects.exists()
    assert not services.follow_delete(follower=ola, followed=janek)


def test_nobody_follows_or_challenges_himself():
    ola = make_user()
    with pytest.raises(Refused, match="cannot follow yourself"):
        services.follow_create(follower=ola, followed=ola)
    with pytest.raises(Refused, match="cannot challenge yourself") as refused:
        challenge(ola, ola)
    assert refused.value.code == "challenge_self"
    assert not Challenge.objects.exists()


def test_a_player_who_takes_challenges_from_people_he_follows_refuses_a_stranger():
    ola, janek, stranger = make_user("ola"), make_user("janek"), make_user("obcy")
    services.preferences_set(user=janek, challenges_from_followed_only=True)
    services.follow_create(follower=janek, followed=ola)
    with pytest.raises(Refused, match="janek accepts challenges only from the people") as refused:
        challenge(stranger, janek)
    assert refused.value.code == "challenge_followed_only"
    assert not Challenge.objects.filter(challenger=stranger).exists()
    # Following janek does not help: janek must follow the challenger.
    services.follow_create(follower=stranger, followed=janek)
    with pytest.raises(Refused):
        challenge(stranger, janek)
    assert challenge(ola, janek).status == Challenge.Status.CREATED


def test_a_blocked_player_is_neither_challenged_nor_challenges():
    ola, janek = make_user(), make_user()
    janek.banned_until = timezone.now() + timedelta(days=1)
    janek.save()
    with pytest.raises(Refused, match="cannot be challenged"):
        challenge(ola, janek)
    with pytest.raises(Refused, match="blocked account cannot challenge"):
        challenge(janek, ola)
    assert not Challenge.objects.exists()


def test_a_second_open_challenge_to_the_same_player_is_refused_until_the_first_ends():
    ola, janek = make_user(), make_user("janek")
    first = challenge(ola, janek)
    with pytest.raises(Refused, match="already challenged janek") as refused:
        challenge(ola, janek)
    assert refused.value.code == "challenge_duplicate"
    services.challenge_cancel(challenge_id=first.pk, user=ola)
    assert challenge(ola, janek).status == Challenge.Status.CREATED


def test_settings_a_table_would_refuse_make_no_challenge():
    ola, janek = make_user(), make_user()
    with pytest.raises(Refused, match="2 to 4 seats"):
        challenge(ola, janek, seats=5)
    with pytest.raises(Refused, match="Unknown rules"):
        challenge(ola, janek, profile="chess")
    with pytest.raises(Refused, match="between 5 seconds and 60 minutes") as refused:
        challenge(ola, janek, base_seconds=2)
    assert refused.value.code == "bad_time_control"
    assert not Challenge.objects.exists()


def test_too_many_challenges_in_a_few_minutes_are_refused():
    ola = make_user()
    for _ in range(services.CHALLENGES_PER_WINDOW):
        challenge(ola, make_user())
    with pytest.raises(Refused, match="wait a while") as refused:
        challenge(ola, make_user())
    assert refused.value.code == "challenge_rate"
    later = timezone.now() + services.CHALLENGE_WINDOW + timedelta(seconds=1)
    assert challenge(ola, make_user(), now=later).status == Challenge.Status.CREATED


def test_an_accepted_challenge_of_two_seats_starts_the_match_with_its_settings():
    ola, janek = make_user(), make_user()
    sent = challenge(ola, janek, profile="piki_cofane", base_seconds=300, increment_seconds=3)
    accepted = services.challenge_accept(challenge_id=sent.pk, user=janek)
    assert accepted.status == Challenge.Status.ACCEPTED
    table = Table.objects.get(pk=accepted.table_id)
    assert table.owner == ola
    assert [s.user for s in table.seats.order_by("position")] == [ola, janek]
    assert (table.seats_count, table.base_seconds, table.increment_seconds) == (2, 300, 3)
    assert table.profile == "piki_cofane" and table.rules == PROFILES["piki_cofane"].rules
    assert table.rated
    assert table.status == Table.Status.PLAYING
    assert Match.objects.get(table=table).status == Match.Status.PLAYING


def test_a_rated_challenge_between_linked_accounts_is_refused_at_acceptance_a_casual_one_not():
    ola, alt = make_user(), make_user()
    share_device(ola, alt)
    sent = challenge(ola, alt)
    with pytest.raises(Refused) as refused:
        services.challenge_accept(challenge_id=sent.pk, user=alt)
    assert refused.value.code == "linked_accounts" and ola.username not in refused.value.message
    assert not Table.objects.filter(owner=ola).exists()  # nothing was made
    sent.refresh_from_db()
    assert sent.status == Challenge.Status.CREATED
    casual = challenge(alt, ola, rated=False)
    accepted = services.challenge_accept(challenge_id=casual.pk, user=ola)
    assert Table.objects.get(pk=accepted.table_id).status == Table.Status.PLAYING


def test_a_correspondence_challenge_makes_a_table_of_days_per_move():
    ola, janek = make_user(), make_user()
    sent = challenge(ola, janek, move_days=7)
    assert "7 days per move" in selectors.challenge_summary(sent)
    assert selectors.challenge_json(sent)["timeControl"] == {
        "type": "correspondence",
        "daysPerTurn": 7,
        "show": "7 days per move",
    }
    accepted = services.challenge_accept(challenge_id=sent.pk, user=janek)
    table = Table.objects.get(pk=accepted.table_id)
    assert table.move_days == 7 and table.status == Table.Status.PLAYING
    hand = Match.objects.get(table=table).hands.get()
    assert hand.deadline - hand.turn_started_at == timedelta(days=7)
    with pytest.raises(Refused, match="Days per move"):
        challenge(janek, ola, move_days=10)
    assert not Challenge.objects.filter(challenger=janek).exists()


def test_an_accepted_challenge_of_four_seats_leaves_two_seats_open_and_waits():
    ola, janek = make_user(), make_user()
    sent = challenge(ola, janek, seats=4, profile="kurnik", rated=False)
    table = services.challenge_accept(challenge_id=sent.pk, user=janek).table
    seats = list(table.seats.order_by("position"))
    assert [s.user for s in seats] == [ola, janek, None, None]
    assert not any(s.bot_level for s in seats)
    assert table.status == Table.Status.OPEN and not table.rated
    assert not Match.objects.filter(table=table).exists()


def test_only_the_challenged_player_accepts_or_declines():
    ola, janek, ewa = make_user(), make_user(), make_user()
    sent = challenge(ola, janek)
    for someone in (ola, ewa):
        with pytest.raises(Refused, match="Only the challenged player can accept"):
            services.challenge_accept(challenge_id=sent.pk, user=someone)
        with pytest.raises(Refused, match="Only the challenged player can decline"):
            services.challenge_decline(challenge_id=sent.pk, user=someone)
    sent.refresh_from_db()
    assert sent.status == Challenge.Status.CREATED and sent.table is None
    assert not Table.objects.exists()


def test_a_declined_challenge_keeps_its_reason_and_cannot_be_accepted_after():
    ola, janek = make_user(), make_user()
    sent = challenge(ola, janek)
    declined = services.challenge_decline(
        challenge_id=sent.pk, user=janek, reason=DeclineReason.TOO_FAST
    )
    assert (declined.status, declined.decline_reason) == ("declined", "too_fast")
    assert "too fast for me" in declined.get_decline_reason_display()
    with pytest.raises(Refused, match="has been declined"):
        services.challenge_accept(challenge_id=sent.pk, user=janek)
    with pytest.raises(Refused, match="Unknown reason"):
        services.challenge_decline(challenge_id=sent.pk, user=janek, reason="rude")


def test_only_the_challenger_cancels_and_a_canceled_challenge_is_not_accepted():
    ola, janek = make_user(), make_user()
    sent = challenge(ola, janek)
    with pytest.raises(Refused, match="Only the challenger can cancel"):
        services.challenge_cancel(challenge_id=sent.pk, user=janek)
    assert services.challenge_cancel(challenge_id=sent.pk, user=ola).status == "canceled"
    with pytest.raises(Refused, match="has been canceled"):
        services.challenge_accept(challenge_id=sent.pk, user=janek)
    assert not Table.objects.exists()


def test_a_challenge_nobody_keeps_alive_expires_after_twenty_seconds():
    ola, janek = make_user(), make_user()
    start = timezone.now()
    sent = challenge(ola, janek, now=start)
    just_before = start + timedelta(seconds=19)
    assert services.challenge_expire_due(now=just_before) == 0
    late = start + timedelta(seconds=21)
    with pytest.raises(Refused, match="has expired") as refused:
        services.challenge_accept(challenge_id=sent.pk, user=janek, now=late)
    assert refused.value.code == "challenge_expired"
    sent.refresh_from_db()
    assert sent.status == Challenge.Status.EXPIRED  # written, though the accept was refused
    assert not Table.objects.exists()


def test_the_challengers_open_page_keeps_the_challenge_alive():
    ola, janek = make_user(), make_user()
    start = timezone.now()
    sent = challenge(ola, janek, now=start)
    for seconds in (15, 30, 45):
        assert services.challenge_keep_alive(challenger=ola, now=start + timedelta(seconds=seconds))
    assert services.challenge_expire_due(now=start + timedelta(seconds=60)) == 0
    accepted = services.challenge_accept(
        challenge_id=sent.pk, user=janek, now=start + timedelta(seconds=60)
    )
    assert accepted.status == Challenge.Status.ACCEPTED


def test_the_sweep_expires_what_ran_out_and_a_late_sign_of_life_does_not_revive_it():
    ola, janek, ewa = make_user(), make_user(), make_user()
    start = timezone.now()
    old = challenge(ola, janek, now=start)
    fresh = challenge(ola, ewa, now=start + timedelta(seconds=15))
    assert services.challenge_expire_due(now=start + timedelta(seconds=25)) == 1
    assert services.challenge_keep_alive(challenger=ola, now=start + timedelta(seconds=26)) == 1
    old.refresh_from_db()
    fresh.refresh_from_db()
    assert (old.status, fresh.status) == ("expired", "created")
    # The expired one no longer stands in the way of a new challenge to janek.
    assert challenge(ola, janek, now=start + timedelta(seconds=27)).status == "created"
