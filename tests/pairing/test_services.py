"""The quick pairing's services on PostgreSQL: seeking, seating, bots after the wait,
and many seekers at once (threads with their own connections) never seated twice."""

from __future__ import annotations

import threading
from datetime import timedelta
from functools import partial

import pytest
from django.db import close_old_connections
from django.test import Client
from django.utils import timezone, translation

from core.errors import Refused
from games.models import Match, MatchPlayer, Seat, Table
from pairing import matching, services
from pairing.models import Seek
from tests.factories import make_table, make_user, share_device

pytestmark = pytest.mark.django_db
SIZES = [2, 3, 4, None]


def seek(user, size=2, *, time_control="3+2", now=None, wait=30):
    return services.seek_create(
        user=user,
        time_control=time_control,
        size=size,
        bots_after=wait,
        channel_name=f"chan-{user.pk}",
        now=now or timezone.now(),
    )


def test_two_seekers_of_the_same_table_are_seated_together_and_the_match_starts():
    ola, janek = make_user(), make_user()
    seek(ola)
    assert services.pairing_match(now=timezone.now()) == []
    seek(janek)
    [table_id] = services.pairing_match(now=timezone.now())
    table = Table.objects.get(pk=table_id)
    assert table.status == Table.Status.PLAYING
    assert (table.seats_count, table.base_seconds, table.increment_seconds) == (2, 180, 2)
    assert table.is_public and table.rated and table.profile == "kurnik"
    assert {s.user for s in table.seats.all()} == {ola, janek}
    assert Match.objects.get(table=table).status == Match.Status.PLAYING
    assert not Seek.objects.exists()


def test_two_seekers_on_one_device_are_never_seated_together():
    ola, alt, janek = make_user(), make_user(), make_user()
    share_device(ola, alt)
    seek(ola)
    seek(alt)
    assert services.pairing_match(now=timezone.now()) == []  # the tables are rated
    seek(janek)
    [table_id] = services.pairing_match(now=timezone.now())
    seated = set(Seat.objects.filter(table_id=table_id).values_list("user", flat=True))
    assert seated == {ola.pk, janek.pk}
    assert list(Seek.objects.values_list("user", flat=True)) == [alt.pk]


def test_any_size_fills_a_table_of_three_and_other_time_controls_wait():
    users = [make_user() for _ in range(4)]
    seek(users[0], 3)
    seek(users[1], None)
    seek(users[2], 3, time_control="1+0")
    seek(users[3], 3)
    [table_id] = services.pairing_match(now=timezone.now())
    seated = set(Seat.objects.filter(table_id=table_id).values_list("user", flat=True))
    assert seated == {users[0].pk, users[1].pk, users[3].pk}
    assert list(Seek.objects.values_list("user", flat=True)) == [users[2].pk]


def test_a_seek_is_refused_with_a_bad_field_twice_or_while_seated_elsewhere():
    ola = make_user()
    with pytest.raises(Refused):
        seek(ola, time_control="7+7")
    with pytest.raises(Refused):
        seek(ola, 5)
    with pytest.raises(Refused):
        seek(ola, wait=3)
    seek(ola)
    with pytest.raises(Refused, match="already waiting"):
        seek(ola)
    make_table(owner=make_user(), players=1)
    busy = make_table(players=1).owner
    with pytest.raises(Refused, match="seat at another table"):
        seek(busy)


def test_the_refusal_of_a_player_seated_elsewhere_names_that_table():
    busy = make_table(players=1).owner
    table = make_table(owner=busy, players=1)  # his newest table: the one he has in mind
    with pytest.raises(services.SeatedElsewhere) as refused:
        seek(busy)
    assert refused.value.table_url == table.get_absolute_url()


def test_a_seeker_who_sat_down_at_another_table_meanwhile_is_not_seated_again():
    ola, janek = make_user(), make_user()
    seek(ola)
    make_table(owner=ola, players=1)
    seek(janek)
    assert services.pairing_match(now=timezone.now()) == []
    assert Seek.objects.count() == 2
    with pytest.raises(Refused, match="seat at another table"):
        services.seek_fill_with_bots(user=ola, level="random", now=timezone.now() + timedelta(1))


def test_a_closed_socket_ends_only_its_own_seek():
    ola = make_user()
    seek(ola)
    assert not services.seek_cancel(user=ola, channel_name="another window")
    assert services.seek_cancel(user=ola, channel_name=f"chan-{ola.pk}")
    assert not Seek.objects.exists()


def test_a_seek_whose_socket_went_silent_is_dropped_not_seated():
    ola, janek, ewa = make_user(), make_user(), make_user()
    start = timezone.now()
    seek(ola, now=start)
    seek(janek, now=start, time_control="1+0")
    later = start + services.STALE_AFTER + timedelta(seconds=1)
    assert services.seek_seen(user=ola, channel_name=f"chan-{ola.pk}", now=later)
    Seek.objects.filter(user=janek).update(time_control="3+2")  # his socket fell silent
    seek(ewa, now=later)
    [table_id] = services.pairing_match(now=later)
    assert set(Seat.objects.filter(table_id=table_id).values_list("user", flat=True)) == {
        ola.pk,
        ewa.pk,
    }
    assert not Seek.objects.exists()
    assert not services.seek_seen(user=ola, channel_name=f"chan-{ola.pk}", now=later)


def test_bots_fill_the_seats_only_after_the_chosen_wait():
    ola = make_user()
    start = timezone.now()
    seek(ola, 3, now=start, wait=60)
    with pytest.raises(Refused, match="after waiting 60 seconds"):
        services.seek_fill_with_bots(user=ola, level="greedy", now=start + timedelta(seconds=59))
    with pytest.raises(Refused):
        services.seek_fill_with_bots(user=ola, level="grandmaster", now=start + timedelta(hours=1))
    table_id = services.seek_fill_with_bots(
        user=ola, level="random", now=start + timedelta(seconds=60)
    )
    seats = list(Seat.objects.filter(table_id=table_id).order_by("position"))
    assert [(s.user, s.bot_level) for s in seats] == [(ola, ""), (None, "random"), (None, "random")]
    assert Table.objects.get(pk=table_id).status == Table.Status.PLAYING
    assert not Seek.objects.exists()
    with pytest.raises(Refused, match="not waiting"):
        services.seek_fill_with_bots(user=ola, level="random", now=start + timedelta(hours=1))


def test_the_waits_a_seeker_may_choose_are_the_settings(settings):
    settings.PAIRING_WAITS = (1, 30)
    ola, janek = make_user(), make_user()
    with pytest.raises(Refused, match="Unknown waiting time"):
        seek(ola, 3, wait=10)
    start = timezone.now()
    seek(janek, 3, now=start, wait=1)
    table_id = services.seek_fill_with_bots(
        user=janek, level="greedy", now=start + timedelta(seconds=1)
    )
    assert Table.objects.get(pk=table_id).status == Table.Status.PLAYING


def test_a_seeker_of_any_size_who_fills_with_bots_gets_a_full_table():
    ola = make_user()
    start = timezone.now()
    seek(ola, None, now=start)
    table_id = services.seek_fill_with_bots(
        user=ola, level="greedy", now=start + timedelta(seconds=30)
    )
    assert Table.objects.get(pk=table_id).seats_count == 4


def test_a_player_at_his_table_limit_is_seated_at_a_table_another_seeker_creates():
    ola, janek = make_user(), make_user()
    for _ in range(5):
        make_table(owner=ola, players=1).seats.filter(user=ola).update(user=None)
    seek(ola)
    seek(janek)
    [table_id] = services.pairing_match(now=timezone.now())
    table = Table.objects.get(pk=table_id)
    assert table.owner == janek
    assert {s.user for s in table.seats.all()} == {ola, janek}


def test_a_group_refused_half_way_leaves_no_table_and_keeps_waiting(monkeypatch):
    def refuse(**kwargs):
        raise Refused("no")

    seek(make_user())
    seek(make_user())
    monkeypatch.setattr(services.games, "match_start", refuse)
    assert services.pairing_match(now=timezone.now()) == []
    assert not Table.objects.exists()
    assert Seek.objects.count() == 2


def run_together(*jobs) -> list[BaseException]:
    """Run every job in a thread of its own (its own database connection), all released
    at once; the exceptions they raised."""
    barrier = threading.Barrier(len(jobs))
    errors: list[BaseException] = []

    def run(job) -> None:
        try:
            barrier.wait()
            job()
        except BaseException as error:  # the test reads every failure
            errors.append(error)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return errors


@pytest.mark.django_db(transaction=True)
def test_many_seekers_matching_at_once_are_each_seated_at_exactly_one_table():
    """Twenty-four players seek and match in threads at the same moment, three times over:
    nobody is seated twice or at two tables, no seek outlives its seating."""
    for round_ in range(3):
        users = [make_user(f"racer{round_}_{i}") for i in range(24)]

        def seek_and_match(user, size) -> None:
            seek(user, size)
            services.pairing_match(now=timezone.now())

        errors = run_together(
            *(lambda u=u, i=i: seek_and_match(u, SIZES[i % 4]) for i, u in enumerate(users))
        )
        assert errors == []
        services.pairing_match(now=timezone.now())  # whoever could still be seated
        for user in users:
            seats = Seat.objects.filter(user=user, table__status=Table.Status.PLAYING).count()
            waiting = Seek.objects.filter(user=user).count()
            assert seats + waiting == 1, user.username
            assert MatchPlayer.objects.filter(user=user).count() == seats
        tables = Table.objects.filter(seats__user__in=users).distinct()
        for table in tables:
            users_here = [s.user_id for s in table.seats.all() if s.user_id]
            assert len(users_here) == len(set(users_here)) == table.seats_count
            assert table.matches.count() == 1
        assert matching.groups(list(Seek.objects.all())) == []  # nobody else fits
        Seek.objects.all().delete()


@pytest.mark.django_db(transaction=True)
def test_a_seek_matched_and_filled_with_bots_at_the_same_moment_is_seated_once():
    for _ in range(5):
        ola, janek = make_user(), make_user()
        start = timezone.now()
        seek(ola, now=start)
        seek(janek, now=start)
        later = start + timedelta(seconds=30)
        errors = run_together(
            partial(services.pairing_match, now=later),
            partial(services.seek_fill_with_bots, user=ola, level="random", now=later),
        )
        assert all(isinstance(e, Refused) for e in errors), errors
        assert Seat.objects.filter(user=ola).count() == 1
        assert Seat.objects.filter(user=janek).count() <= 1
        assert not Seek.objects.filter(user=ola).exists()
        Seek.objects.all().delete()


def read(url: str, language: str) -> str:
    """A page as a visitor reading ``language`` sees it (the language the request
    activates ends with it: it must not leak into the next test)."""
    client = Client()
    client.cookies["django_language"] = language
    with translation.override(language):
        return client.get(url).content.decode()


def lobby(language: str) -> str:
    return read("/", language)


def test_a_play_now_table_is_named_in_each_readers_language():
    ola, janek = make_user("ola", language="pl"), make_user("janek")
    with translation.override("pl"):  # seated by a Polish player's socket
        seek(ola)
        seek(janek)
        [table_id] = services.pairing_match(now=timezone.now())
    table = Table.objects.get(pk=table_id)
    assert (table.owner, table.name) == (ola, "")
    english, polish = lobby("en"), lobby("pl")
    assert "ola&#x27;s table" in english and "Stół gracza" not in english
    assert "Stół gracza ola" in polish and "s table" not in polish


def test_a_play_now_table_with_bots_names_them_in_each_readers_language():
    ola = make_user("ola")
    start = timezone.now()
    with translation.override("en"):  # filled by an English player's socket
        seek(ola, now=start)
        table_id = services.seek_fill_with_bots(
            user=ola, level="greedy", now=start + timedelta(seconds=30)
        )
    page = read(Table.objects.get(pk=table_id).get_absolute_url(), "pl")
    assert "Bot: zachłanny" in page and "Bot: greedy" not in page
    assert "Stół gracza ola" in page
    assert "Bot: greedy" not in lobby("pl") and "Stół gracza ola" in lobby("pl")


def test_correspondence_tables_keep_nobody_from_seeking_and_a_real_time_one_only_real_time():
    ola = make_user()
    for _ in range(3):
        make_table(owner=ola, players=1, move_days=3)
    seek(ola)  # three correspondence tables: he may still seek a real-time game
    services.seek_cancel(user=ola)
    make_table(owner=ola, players=1)
    with pytest.raises(Refused, match="seat at another table"):
        seek(ola)
    seek(ola, time_control="3d")  # a fourth correspondence game, though seated in real time


def test_two_seekers_of_the_same_days_are_seated_at_a_correspondence_table():
    ola, janek, ewa = make_user(), make_user(), make_user()
    make_table(owner=ola, players=1)  # a real-time table keeps nobody from a day seek
    seek(ola, time_control="2d")
    seek(ewa, time_control="3d")  # another days control: not with them
    seek(janek, time_control="2d")
    [table_id] = services.pairing_match(now=timezone.now())
    table = Table.objects.get(pk=table_id)
    assert table.move_days == 2 and table.status == Table.Status.PLAYING
    assert set(table.seats.values_list("user", flat=True)) == {ola.pk, janek.pk}
    assert Seek.objects.get().user == ewa
