"""Recurring tournaments and the reminder before a start, with the clock passed in:
creation ahead (once, also when two sweeps race), the reminder a minute before (once),
bots filling the tables at the start, and the notices every page shows."""

from __future__ import annotations

import dataclasses
import threading
from datetime import UTC, datetime, time, timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import close_old_connections
from django.utils import timezone

from accounts.models import User
from core.errors import Refused
from tests.factories import client_for, make_user
from tests.games.ws import connect, frames_until
from tests.tournaments.helpers import make_staff
from tournaments import services
from tournaments.models import ScheduledTournament, Tournament, TournamentSchedule

pytestmark = pytest.mark.django_db

# A Tuesday, 12:00 in Warsaw (winter time, UTC+1).
NOW = datetime(2026, 12, 1, 11, 0, tzinfo=UTC)


def make_schedule(*, by=None, now: datetime = NOW, **fields: object) -> TournamentSchedule:
    fields.setdefault("name", "Evening cup")
    fields.setdefault("time_of_day", time(20, 0))
    return services.schedule_save(
        schedule=TournamentSchedule(**fields), by=by or make_staff(), now=now
    )


def created_at_for(schedule: TournamentSchedule) -> list[datetime]:
    return list(schedule.occurrences.values_list("starts_at", flat=True))


# --- creating ahead ---------------------------------------------------------------------


def test_each_occurrence_within_the_horizon_is_created_once_open_for_registration():
    schedule = make_schedule(time_control="5+3", max_players=64, create_ahead_hours=33)
    created = services.schedule_create_due(now=NOW)
    # Tuesday 20:00 and Wednesday 20:00 in Warsaw fall within 33 hours; Thursday's not yet.
    assert [t.starts_at for t in created] == [
        datetime(2026, 12, 1, 19, tzinfo=UTC),
        datetime(2026, 12, 2, 19, tzinfo=UTC),
    ]
    tonight = created[0]
    assert tonight.status == Tournament.Status.SCHEDULED
    assert tonight.name == "Evening cup 2026-12-01"
    assert (tonight.base_seconds, tonight.increment_seconds, tonight.max_players) == (300, 3, 64)
    assert tonight.created_by == schedule.created_by
    assert tonight.fill_bot_level == ""
    player = make_user()
    services.tournament_register(tournament_id=tonight.pk, user=player, now=NOW)

    # Later sweeps create only what came into the horizon.
    assert services.schedule_create_due(now=NOW) == []
    assert services.schedule_create_due(now=NOW + timedelta(minutes=30)) == []
    later = services.schedule_create_due(now=NOW + timedelta(hours=24))
    assert [t.starts_at for t in later] == [datetime(2026, 12, 3, 19, tzinfo=UTC)]
    assert Tournament.objects.count() == 3


def test_an_inactive_schedule_or_one_whose_author_lost_the_right_creates_nothing():
    inactive = make_schedule(name="Off", active=False)
    assert services.schedule_create_due(now=NOW) == []
    inactive.active = True
    inactive.save()
    inactive.created_by.user_permissions.clear()
    assert services.schedule_create_due(now=NOW) == []
    assert not Tournament.objects.exists()


def test_a_schedule_must_make_a_valid_tournament_and_needs_the_right_to_create():
    staff = make_staff()
    with pytest.raises(Refused):
        make_schedule(by=staff, time_zone="Mars/Olympus")
    with pytest.raises(Refused):
        make_schedule(by=staff, weekdays=0)
    with pytest.raises(Refused):
        make_schedule(by=staff, time_control="9+9")
    with pytest.raises(Refused):
        make_schedule(by=staff, min_players=10, max_players=5)
    with pytest.raises(Refused):
        make_schedule(by=make_user())
    assert not TournamentSchedule.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_the_same_moment_create_each_tournament_once():
    make_schedule(create_ahead_hours=72)
    for _round in range(5):
        barrier = threading.Barrier(2)
        results: list[int] = []

        def sweep(barrier: threading.Barrier = barrier, results: list[int] = results) -> None:
            barrier.wait()
            try:
                results.append(len(services.schedule_create_due(now=NOW)))
            finally:
                close_old_connections()

        threads = [threading.Thread(target=sweep) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(results) == 2
        assert sum(results) == (3 if _round == 0 else 0)
        assert Tournament.objects.count() == ScheduledTournament.objects.count() == 3


# --- the reminder -----------------------------------------------------------------------


def test_the_reminder_goes_out_once_a_minute_before_the_start_and_every_page_shows_it():
    make_schedule()
    tournament = services.schedule_create_due(now=NOW)[0]
    ola, bob = make_user("ola_soon"), make_user("bob_away")
    services.tournament_register(tournament_id=tournament.pk, user=ola, now=NOW)
    start = tournament.starts_at
    page = client_for(ola)
    assert 'data-testid="notice-reminder"' not in page.get("/rules/").content.decode()

    assert services.tournament_remind_due(now=start - timedelta(seconds=61)) == 0
    assert services.tournament_remind_due(now=start - timedelta(seconds=60)) == 1
    assert services.tournament_remind_due(now=start - timedelta(seconds=30)) == 0
    assert not services.tournament_remind(tournament_id=tournament.pk, now=start)
    tournament.refresh_from_db()
    assert tournament.reminded_at == start - timedelta(seconds=60)

    html = page.get("/rules/").content.decode()
    assert 'data-testid="notice-reminder"' in html
    assert "The tournament Evening cup 2026-12-01 starts in a minute (20:00)." in html
    other = client_for(bob).get("/rules/").content.decode()
    assert 'data-testid="notice-reminder"' not in other
    assert 'data-testid="notice-reminder"' not in client_for().get("/rules/").content.decode()


def test_a_start_moved_after_the_reminder_is_reminded_again():
    make_schedule()
    tournament = services.schedule_create_due(now=NOW)[0]
    start = tournament.starts_at
    assert services.tournament_remind(
        tournament_id=tournament.pk, now=start - timedelta(seconds=30)
    )
    moved = dataclasses.replace(
        services.TournamentSettings.of(tournament), starts_at=start + timedelta(hours=1)
    )
    services.tournament_update(
        tournament_id=tournament.pk, by=tournament.created_by, settings=moved, now=NOW
    )
    tournament.refresh_from_db()
    assert tournament.reminded_at is None
    assert services.tournament_remind_due(now=start) == 0
    assert services.tournament_remind_due(now=start + timedelta(minutes=59, seconds=1)) == 1


@pytest.mark.asyncio
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
async def test_an_open_page_of_the_player_gets_the_reminder_over_its_socket():
    tournament = await database_sync_to_async(_tournament_with_player)("ola_socket")
    ola = await database_sync_to_async(User.objects.get)(username="ola_socket")
    lobby = await connect("/ws/lobby/", ola)
    reminded = await database_sync_to_async(services.tournament_remind)(
        tournament_id=tournament.pk, now=tournament.starts_at - timedelta(seconds=59)
    )
    assert reminded
    frames = await frames_until(lobby, 'data-testid="notice-reminder"')
    assert 'hx-swap-oob="afterbegin:#site-notices"' in frames[-1]
    assert f'href="/tournaments/{tournament.pk}/"' in frames[-1]
    await lobby.disconnect()


def _tournament_with_player(username: str) -> Tournament:
    make_schedule(now=timezone.now(), time_of_day=_local_time_in(hours=2))
    tournament = services.schedule_create_due()[0]
    services.tournament_register(tournament_id=tournament.pk, user=make_user(username))
    return tournament


def _local_time_in(*, hours: int) -> time:
    return (
        timezone.localtime(timezone.now() + timedelta(hours=hours))
        .time()
        .replace(second=0, microsecond=0)
    )


# --- bots at the start, and the table's notice ------------------------------------------


@pytest.mark.parametrize(
    ("players", "max_players", "expected"),
    [(5, 64, 8), (1, 64, 4), (4, 64, 4), (5, 6, 6)],
)
def test_bots_fill_the_tables_at_the_start(players: int, max_players: int, expected: int):
    make_schedule(fill_with_bots=True, bot_level="random", max_players=max_players)
    tournament = services.schedule_create_due(now=NOW)[0]
    assert tournament.fill_bot_level == "random"
    page = client_for().get(tournament.get_absolute_url()).content.decode()
    assert "fill the tables at the start" in page
    for _ in range(players):
        services.tournament_register(tournament_id=tournament.pk, user=make_user(), now=NOW)
    services.tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    entries = tournament.entries.all()
    assert entries.count() == expected
    bots = entries.filter(user__isnull=True)
    assert bots.count() == expected - players
    assert set(bots.values_list("bot_level", flat=True)) <= {"random"}


def test_nobody_registered_no_bots_are_added_and_it_is_cancelled():
    make_schedule(fill_with_bots=True)
    tournament = services.schedule_create_due(now=NOW)[0]
    services.tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert not tournament.entries.exists()


def test_without_filling_a_tournament_starts_with_its_players_only():
    make_schedule()
    tournament = services.schedule_create_due(now=NOW)[0]
    for _ in range(5):
        services.tournament_register(tournament_id=tournament.pk, user=make_user(), now=NOW)
    services.tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    assert tournament.entries.count() == 5


def test_every_page_but_his_table_tells_a_seated_player_his_table_is_ready():
    make_schedule(fill_with_bots=True, bot_level="random")
    tournament = services.schedule_create_due(now=NOW)[0]
    ola = make_user("ola_seated")
    services.tournament_register(tournament_id=tournament.pk, user=ola, now=NOW)
    services.tournament_start(tournament_id=tournament.pk, now=tournament.starts_at)
    page = client_for(ola)
    html = page.get("/rules/").content.decode()
    assert 'data-testid="notice-table"' in html
    assert f'href="/tournaments/{tournament.pk}/my-table/"' in html
    assert 'data-testid="notice-reminder"' not in html  # started: the reminder is over
    table_id = tournament.entries.get(user=ola).table.table_id
    table_page = page.get(f"/tables/{table_id}/").content.decode()
    assert 'data-testid="notice-table"' not in table_page


SCHEDULE_FORM = {
    "name": "Staff evening",
    "description": "",
    "active": "on",
    "weekdays": ["2", "8"],
    "time_of_day": "19:30",
    "time_zone": "Europe/Warsaw",
    "create_ahead_hours": 24,
    "time_control": "3+2",
    "min_players": 3,
    "max_players": 64,
    "seats_per_table": 4,
    "profile": "tournament",
    "max_actions": 500,
    "seconds_between_hands": 4,
    "bot_level": "greedy",
}


def test_the_admin_defines_a_schedule_through_the_service():
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    form = {**SCHEDULE_FORM, "name": "Admin evening", "weekdays": ["1", "16"]}
    client = client_for(staff)
    response = client.post("/admin/tournaments/tournamentschedule/add/", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    schedule = TournamentSchedule.objects.get(name="Admin evening")
    assert schedule.created_by == staff and schedule.weekdays == 17
    bad = client.post(
        "/admin/tournaments/tournamentschedule/add/", {**form, "name": "Bad", "time_zone": "X/Y"}
    )
    assert bad.status_code == 200 and not TournamentSchedule.objects.filter(name="Bad").exists()


# --- the list says when a tournament repeats; the staff's own form ------------------------


def test_the_list_says_when_a_schedule_repeats_and_shows_its_next_starts():
    from django.utils import translation

    from tournaments.selectors import tournament_lists

    make_schedule(name="Twice a week", weekdays=1 | 8, create_ahead_hours=60)
    make_schedule(name="Daily")
    make_schedule(name="Resting", active=False)
    # Thursday's tournament falls within the horizon: created, and linked from the list.
    services.schedule_create_due(now=NOW)
    thursday = Tournament.objects.get(name="Twice a week 2026-12-03")

    with translation.override("en"):
        rows = {row.schedule.name: row for row in tournament_lists(now=NOW).schedules}
    assert set(rows) == {"Twice a week", "Daily"}
    assert rows["Twice a week"].repeats == "Every week on Monday and Thursday at 8 p.m."
    assert rows["Daily"].repeats == "Every day at 8 p.m."
    # Thursday, Monday, Thursday at 20:00 in Warsaw (19:00 UTC in winter).
    starts = rows["Twice a week"].next_starts
    assert [o.starts_at for o in starts] == [
        datetime(2026, 12, 3, 19, tzinfo=UTC),
        datetime(2026, 12, 7, 19, tzinfo=UTC),
        datetime(2026, 12, 10, 19, tzinfo=UTC),
    ]
    assert [o.tournament for o in starts] == [thursday, None, None]
    assert len(rows["Daily"].next_starts) == 3
    with translation.override("pl"):
        rows = {row.schedule.name: row for row in tournament_lists(now=NOW).schedules}
    assert rows["Twice a week"].repeats == "Co tydzień: poniedziałek i czwartek, o 20:00"
    assert rows["Daily"].repeats == "Codziennie o 20:00"


def test_the_list_page_shows_the_recurring_tournaments():
    make_schedule(name="Weekend cup", weekdays=32 | 64, time_of_day=time(18, 30))
    page = client_for().get("/tournaments/").content.decode()
    assert 'data-testid="schedules"' in page and "Weekend cup" in page
    assert "Every week on Saturday and Sunday at 6:30 p.m." in page
    assert page.count('data-testid="schedule-next"') == 3
    assert 'data-testid="create-schedule"' not in page


def test_the_staff_create_a_schedule_on_the_sites_own_pages():
    staff = make_staff()
    client = client_for(staff)
    assert 'data-testid="create-schedule"' in client.get("/tournaments/").content.decode()
    form = client.get("/tournaments/schedules/new/")
    assert form.status_code == 200 and 'data-testid="schedule-form"' in form.content.decode()
    response = client.post("/tournaments/schedules/new/", SCHEDULE_FORM, follow=True)
    assert response.redirect_chain[-1][0] == "/tournaments/"
    page = response.content.decode()
    assert "The schedule is saved" in page
    assert "Every week on Tuesday and Thursday at 7:30 p.m." in page
    schedule = TournamentSchedule.objects.get(name="Staff evening")
    assert schedule.created_by == staff and schedule.weekdays == 2 | 8
    assert schedule.time_of_day == time(19, 30)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"weekdays": []}, "This field is required."),
        ({"time_zone": "Mars/Olympus"}, "Unknown time zone."),
        ({"min_players": 10, "max_players": 5}, "minimum"),
        ({"time_of_day": "25:00"}, "Enter a valid time."),
        ({"name": ""}, "This field is required."),
    ],
)
def test_an_invalid_schedule_shows_why_and_creates_nothing(change, message):
    client = client_for(make_staff())
    response = client.post("/tournaments/schedules/new/", {**SCHEDULE_FORM, **change})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not TournamentSchedule.objects.exists()


def test_only_who_may_create_tournaments_creates_a_schedule():
    from tests.factories import make_moderator

    visitor = client_for().get("/tournaments/schedules/new/")
    assert visitor.status_code == 302 and "/accounts/login/" in visitor["Location"]
    for user in (make_user(), make_moderator()):  # a moderator is staff, runs no tournaments
        client = client_for(user)
        assert client.get("/tournaments/schedules/new/").status_code == 403
        assert client.post("/tournaments/schedules/new/", SCHEDULE_FORM).status_code == 403
        assert 'data-testid="create-schedule"' not in client.get("/tournaments/").content.decode()
    assert not TournamentSchedule.objects.exists()
