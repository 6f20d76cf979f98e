"""Fair play at a rated table: two accounts seen on one device, or from one connection
within a day, do not sit at one rated table (a casual one does not mind), unless a
moderator allowed the pair; and the refusal names nobody."""

from __future__ import annotations

import pytest

from accounts import services as accounts
from games import services
from games.engine import Rules
from games.models import Match
from moderation import services as moderation
from tests.factories import make_moderator, make_table, make_user, share_device

pytestmark = pytest.mark.django_db


def refusal(**kwargs) -> services.Refused:
    with pytest.raises(services.Refused) as refused:
        services.table_sit(**kwargs)
    return refused.value


def assert_names_nobody(refused: services.Refused, *users) -> None:
    assert refused.code == "linked_accounts"
    assert "shares a device or a connection" in refused.message
    for user in users:
        assert user.username not in refused.message and str(user.pk) not in refused.message


def test_a_second_account_on_the_same_device_cannot_sit_at_a_rated_table():
    owner, second, stranger = make_user("olaf_main"), make_user("olaf_alt"), make_user()
    share_device(owner, second)
    table = make_table(owner, players=1)
    assert table.rated
    refused = refusal(table_id=table.pk, user=second)
    assert_names_nobody(refused, owner, second)
    assert not table.seats.filter(user=second).exists()
    services.table_sit(table_id=table.pk, user=stranger)  # anyone else sits as before


def test_one_connection_within_a_day_is_refused_as_one_device_is():
    owner, second = make_user(), make_user()
    for user in (owner, second):  # two browsers behind one address
        accounts.sighting_record(user_id=user.pk, device=f"{user.pk:032x}", address="203.0.113.5")
    table = make_table(owner, players=1)
    assert_names_nobody(refusal(table_id=table.pk, user=second), owner, second)


def test_a_casual_table_seats_them():
    owner, second = make_user(), make_user()
    share_device(owner, second)
    table = make_table(owner, players=1, rated=False)
    services.table_sit(table_id=table.pk, user=second)
    services.match_start(table_id=table.pk, by=owner)


def test_after_a_moderator_allows_the_pair_they_sit_and_play_and_when_he_takes_it_back_not():
    owner, second = make_user(), make_user()
    share_device(owner, second)
    table = make_table(owner, players=1)
    moderator = make_moderator()
    moderation.user_pair_allow(
        by=moderator, user_id=second.pk, other_id=owner.pk, reason="Brothers at one computer"
    )
    services.table_sit(table_id=table.pk, user=second)
    match = services.match_start(table_id=table.pk, by=owner)
    assert match.status == Match.Status.PLAYING
    moderation.user_pair_disallow(by=moderator, user_id=owner.pk, other_id=second.pk)
    other = make_table(owner, players=1, rules=Rules())
    assert_names_nobody(refusal(table_id=other.pk, user=second), owner, second)


def test_a_rated_match_does_not_start_while_two_seated_accounts_are_linked():
    owner, second, third = make_user(), make_user(), make_user()
    table = make_table(owner, players=1, seats=3)
    services.table_sit(table_id=table.pk, user=second)
    services.table_sit(table_id=table.pk, user=third)
    share_device(second, third)  # seen together only after they sat down
    with pytest.raises(services.Refused) as refused:
        services.match_start(table_id=table.pk, by=owner)
    assert refused.value.code == "linked_accounts"
    for user in (owner, second, third):
        assert user.username not in refused.value.message
    assert not Match.objects.filter(table=table).exists()
    services.table_leave(table_id=table.pk, user=third)
    services.match_start(table_id=table.pk, by=owner)


def test_a_bot_account_is_never_rated_and_does_not_count():
    owner, bot = make_user(), make_user(is_bot_account=True)
    share_device(owner, bot)
    table = make_table(owner, players=1)
    services.table_seat_bot_account(table_id=table.pk, by=owner, position=1, username=bot.username)
    services.match_start(table_id=table.pk, by=owner)
