"""Tournament pages: list, detail, registration, the staff page and actions, the profile."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from games.services import Refused
from tests.factories import client_for, make_moderator, make_user
from tests.times import local_noon
from tests.tournaments.helpers import (
    hands_in_play,
    make_staff,
    make_tournament,
    started,
    time_out,
)
from tournaments import services
from tournaments.models import Tournament, TournamentEntry

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(settings):
    settings.LANGUAGE_CODE = "en"


def test_the_list_shows_upcoming_running_and_finished_tournaments():
    make_tournament(name="Spring cup")
    started(make_tournament(name="Night cup", bots=3))
    page = client_for().get("/tournaments/").content.decode()
    upcoming, running = page.index('data-testid="upcoming"'), page.index('data-testid="running"')
    assert page.index("Spring cup") > upcoming
    assert running < page.index("Night cup") < upcoming
    assert "3 of 3 players still in" in page


def test_the_page_explains_the_format_and_a_user_registers_and_withdraws():
    tournament = make_tournament(name="Spring cup", min_players=5)
    ola = make_user("ola_page")
    client = client_for(ola)
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert "How the tournament works" in page
    assert "if fewer than 5 players have registered, the tournament is" in page
    assert "the smallest table breaks" in page
    assert 'data-testid="register"' in page
    response = client.post(f"/tournaments/{tournament.pk}/register/", follow=True)
    assert "You are registered" in response.content.decode()
    assert TournamentEntry.objects.filter(tournament=tournament, user=ola).exists()
    assert ola.username in response.content.decode()
    client.post(f"/tournaments/{tournament.pk}/unregister/")
    assert not TournamentEntry.objects.filter(tournament=tournament, user=ola).exists()


def test_a_visitor_is_sent_to_log_in_to_register():
    tournament = make_tournament()
    response = client_for().post(f"/tournaments/{tournament.pk}/register/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_running_tournament_shows_standings_and_tables_to_watch():
    ola = make_user("ola_run")
    tournament = started(make_tournament(bots=4, users=[ola]))
    page = client_for(ola).get(tournament.get_absolute_url()).content.decode()
    assert page.count('data-testid="standing-in"') == 5
    assert page.count('data-testid="tournament-table"') == 2
    assert 'data-testid="my-table"' in page
    table_id = TournamentEntry.objects.get(user=ola).table.table_id
    assert f'href="/tables/{table_id}/"' in page


def test_hands_played_counts_only_finished_hands():
    tournament = started(make_tournament(bots=4))
    in_play = hands_in_play(tournament)
    assert in_play  # the first hands are dealt at the start

    def hands_played() -> str:
        page = client_for().get(tournament.get_absolute_url()).content.decode()
        return page.split('data-testid="hands-played">', 1)[1].split("<", 1)[0]

    assert hands_played() == "0"
    time_out(in_play[0])
    assert hands_played() == "1"


def test_follow_answers_htmx_with_the_users_table_and_others_with_a_redirect():
    ola = make_user("ola_follow")
    tournament = started(make_tournament(bots=2, users=[ola]))
    table_url = f"/tables/{TournamentEntry.objects.get(user=ola).table.table_id}/"
    url = f"/tournaments/{tournament.pk}/my-table/"
    response = client_for(ola).get(url, HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"] == table_url
    assert client_for(ola).get(url)["Location"] == table_url
    assert client_for().get(url)["Location"] == tournament.get_absolute_url()


def test_staff_pages_and_actions_are_for_the_staff_only():
    tournament = make_tournament(bots=3)
    player = client_for(make_user())
    assert player.get("/tournaments/new/").status_code == 403
    assert player.post(f"/tournaments/{tournament.pk}/staff/start/").status_code == 403
    visitor = client_for().get("/tournaments/new/")
    assert visitor.status_code == 302 and visitor["Location"].startswith("/accounts/login/")
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.SCHEDULED

    staff = client_for(tournament.created_by)
    staff.post(f"/tournaments/{tournament.pk}/staff/add_bot/", {"level": "greedy"})
    staff.post(f"/tournaments/{tournament.pk}/staff/announce/", {"text": "Welcome!"})
    response = staff.post(f"/tournaments/{tournament.pk}/staff/start/", follow=True)
    page = response.content.decode()
    assert "The tournament has started." in page and "Welcome!" in page
    assert Tournament.objects.get(pk=tournament.pk).entries.count() == 4
    staff.post(f"/tournaments/{tournament.pk}/staff/pause/")
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.PAUSED
    staff.post(f"/tournaments/{tournament.pk}/staff/resume/")
    entry = tournament.entries.first()
    staff.post(
        f"/tournaments/{tournament.pk}/staff/disqualify/", {"entry": entry.pk, "reason": "x"}
    )
    entry.refresh_from_db()
    assert entry.disqualified and entry.place == 4
    staff.post(f"/tournaments/{tournament.pk}/staff/cancel/", {"reason": "storm"})
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.CANCELLED
    assert staff.post(f"/tournaments/{tournament.pk}/staff/nonsense/").status_code == 404


TOURNAMENT_FORM = {
    "name": "Autumn cup",
    "description": "Bring snacks.",
    "min_players": 3,
    "max_players": 40,
    "seats_per_table": 3,
    "profile": "tournament",
    "max_actions": 200,
    "base_seconds": 120,
    "increment_seconds": 1,
    "seconds_between_hands": 3,
    "bots_allowed": "on",
}


def test_a_moderator_is_staff_but_runs_no_tournaments():
    """Moderators are staff (for the admin); tournaments need their own permissions."""
    tournament = make_tournament(bots=3)
    moderator = make_moderator()
    client = client_for(moderator)
    form = {**TOURNAMENT_FORM, "starts_at": local_noon(1).strftime("%Y-%m-%dT%H:%M")}

    assert client.get("/tournaments/new/").status_code == 403
    assert client.post("/tournaments/new/", form).status_code == 403
    assert client.get(f"/tournaments/{tournament.pk}/edit/").status_code == 403
    for action in ("start", "cancel", "add_bot", "announce"):
        response = client.post(f"/tournaments/{tournament.pk}/staff/{action}/", {"text": "x"})
        assert response.status_code == 403
    assert not Tournament.objects.filter(name="Autumn cup").exists()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.SCHEDULED
    assert (tournament.entries.count(), tournament.announcements.count()) == (3, 0)
    with pytest.raises(Refused):
        services.tournament_cancel(tournament_id=tournament.pk, by=moderator, reason="x")

    page = client.get(tournament.get_absolute_url()).content.decode()
    assert 'data-testid="cancel"' not in page and 'data-testid="start-now"' not in page
    listing = client.get("/tournaments/").content.decode()
    assert 'data-testid="create-tournament"' not in listing


def test_a_user_given_the_permissions_runs_tournaments_without_being_staff():
    director = make_user()
    director.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_tournament", "change_tournament"])
    )
    client = client_for(director)
    assert 'data-testid="create-tournament"' in client.get("/tournaments/").content.decode()
    form = {**TOURNAMENT_FORM, "starts_at": local_noon(1).strftime("%Y-%m-%dT%H:%M")}
    assert client.post("/tournaments/new/", form).status_code == 302
    tournament = Tournament.objects.get(name="Autumn cup")
    assert 'data-testid="cancel"' in client.get(tournament.get_absolute_url()).content.decode()
    client.post(f"/tournaments/{tournament.pk}/staff/cancel/", {"reason": "rain"})
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.CANCELLED


def test_the_staff_create_and_edit_tournaments_on_their_page():
    staff = client_for(make_staff())
    form = {**TOURNAMENT_FORM, "starts_at": local_noon(1).strftime("%Y-%m-%dT%H:%M")}
    response = staff.post("/tournaments/new/", form)
    tournament = Tournament.objects.get(name="Autumn cup")
    assert response["Location"] == tournament.get_absolute_url()
    assert tournament.seats_per_table == 3 and tournament.rules.max_actions == 200
    assert tournament.rules.max_actions_result == "most_cards"
    edit = staff.get(f"/tournaments/{tournament.pk}/edit/").content.decode()
    assert 'value="Autumn cup"' in edit
    staff.post(f"/tournaments/{tournament.pk}/edit/", {**form, "max_players": 20})
    assert Tournament.objects.get(pk=tournament.pk).max_players == 20
    bad = staff.post("/tournaments/new/", {**form, "name": "Bad", "min_players": 2})
    assert bad.status_code == 200 and not Tournament.objects.filter(name="Bad").exists()


def test_the_tournament_form_says_its_minimum_of_players_and_refuses_fewer_clearly():
    staff = client_for(make_staff())
    blank = staff.get("/tournaments/new/").content.decode()
    assert "At least 3. With fewer players registered at the start" in blank
    form = {**TOURNAMENT_FORM, "starts_at": local_noon(1).strftime("%Y-%m-%dT%H:%M")}
    answer = staff.post("/tournaments/new/", {**form, "min_players": 2})
    assert answer.status_code == 200
    assert "A tournament needs at least 3 players." in answer.content.decode()
    assert not Tournament.objects.exists()


def test_the_admin_creates_through_the_service_and_starts_now():
    staff = make_staff()
    staff.is_superuser = True
    staff.save()
    client = client_for(staff)
    starts = local_noon(1)
    response = client.post(
        "/admin/tournaments/tournament/add/",
        {
            "name": "Admin cup",
            "description": "",
            "starts_at_0": starts.strftime("%Y-%m-%d"),
            "starts_at_1": starts.strftime("%H:%M:%S"),
            "min_players": 3,
            "max_players": 10,
            "seats_per_table": 4,
            "profile": "tournament",
            "max_actions": 100,
            "base_seconds": 60,
            "increment_seconds": 0,
            "seconds_between_hands": 4,
            "bots_allowed": "on",
            "entries-TOTAL_FORMS": 0,
            "entries-INITIAL_FORMS": 0,
            "announcements-TOTAL_FORMS": 0,
            "announcements-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    tournament = Tournament.objects.get(name="Admin cup")
    assert tournament.created_by == staff and tournament.rules.max_actions == 100
    for _ in range(3):
        client.post(f"/tournaments/{tournament.pk}/staff/add_bot/", {"level": "random"})
    client.post(
        "/admin/tournaments/tournament/",
        {"action": "start_now", "_selected_action": [tournament.pk]},
    )
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.RUNNING
    change = client.get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert change.status_code == 200 and "Bot 3" in change.content.decode()


def test_the_profile_lists_tournaments_and_places():
    ola = make_user("ola_profile")
    tournament = started(make_tournament(name="Summer cup", bots=2, users=[ola]))
    entry = TournamentEntry.objects.get(user=ola)
    TournamentEntry.objects.filter(pk=entry.pk).update(place=2)
    page = client_for().get(f"/u/{ola.username}/").content.decode()
    assert "Tournaments and places" in page
    assert "Summer cup" in page and "place 2 of 3" in page
    assert tournament.get_absolute_url() in page


def test_a_tournament_table_says_who_is_out_and_that_the_tournament_goes_on():
    """Not "The match is over" (#14): that is said at a casual table only."""
    from tests.factories import make_table, play_to_pan_on_time
    from tests.tournaments.helpers import advance, entry_to_move, hands_in_play, time_out

    people = [make_user(f"cup_out{i}") for i in range(3)]
    tournament = started(make_tournament(users=people, bots_allowed=False), letters=2)
    hand = hands_in_play(tournament)[0]
    table_url = hand.match.table.get_absolute_url()
    loser = entry_to_move(hand)
    time_out(hand)
    page = client_for().get(table_url).content.decode()
    assert f"{loser.display_name} is out of the tournament." in page
    assert "The tournament goes on: this table is seated and dealt again" in page
    assert "The match is over" not in page

    advance(tournament)  # the two left play on at the same table
    hand = hands_in_play(tournament)[0]
    last_loser = entry_to_move(hand)
    time_out(hand)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    winner = TournamentEntry.objects.get(tournament=tournament, place=1)
    # The table says the tournament is over and who won (#31), before its table closes
    # and after, in the reader's language.
    for closed in (False, True):
        if closed:
            advance(tournament)  # the tournament is over: its table closes
        page = client_for().get(table_url).content.decode()
        assert f"{last_loser.display_name} is out of the tournament." in page
        assert f"The tournament is over: {winner.display_name} won." in page
        assert f'href="{tournament.get_absolute_url()}" data-testid="tournament-link"' in page
        assert "goes on" not in page
    page = client_for().get(table_url, HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert f"Turniej zakończony. Zwycięzca: {winner.display_name}." in page

    casual = make_table(players=2)
    play_to_pan_on_time(casual)
    page = client_for().get(casual.get_absolute_url()).content.decode()
    assert "The match is over" in page and "out of the tournament" not in page


def test_a_cancelled_tournaments_table_says_so():
    from tests.tournaments.helpers import hands_in_play

    tournament = started(make_tournament(bots=3))
    table_url = hands_in_play(tournament)[0].match.table.get_absolute_url()
    assert 'data-testid="tournament-over"' not in client_for().get(table_url).content.decode()
    services.tournament_cancel(tournament_id=tournament.pk, by=tournament.created_by)
    page = client_for().get(table_url).content.decode()
    assert "The tournament is cancelled." in page and "goes on" not in page


def test_a_tournament_started_early_shows_when_it_started_not_its_schedule():
    from django.utils import timezone
    from django.utils.dateformat import format as date_format

    tournament = make_tournament(bots=3, starts_in=3 * 3600)
    scheduled = date_format(timezone.localtime(tournament.starts_at), "c")
    page = client_for().get(tournament.get_absolute_url()).content.decode()
    assert f'datetime="{scheduled}" data-testid="start-time"' in page

    tournament = started(tournament)  # the staff's "Start now"
    page = client_for().get(tournament.get_absolute_url()).content.decode()
    real = date_format(timezone.localtime(tournament.started_at), "c")
    assert f'datetime="{real}" data-testid="start-time"' in page
    assert scheduled not in page and "Started at" in page


def test_a_tournament_name_with_a_nul_is_a_form_error_and_creates_nothing():
    staff = client_for(make_staff())
    form = {**TOURNAMENT_FORM, "name": "Autumn\x00cup"}
    form["starts_at"] = local_noon(1).strftime("%Y-%m-%dT%H:%M")
    response = staff.post("/tournaments/new/", form)
    assert response.status_code == 200
    assert "Null characters are not allowed." in response.content.decode()
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    ("action", "field"), [("announce", "text"), ("cancel", "reason"), ("disqualify", "reason")]
)
def test_a_staff_text_with_a_nul_is_refused_and_changes_nothing(action, field):
    tournament = make_tournament(bots=3)
    entry = tournament.entries.first()
    staff = client_for(tournament.created_by)
    response = staff.post(
        f"/tournaments/{tournament.pk}/staff/{action}/",
        {field: "rain\x00", "entry": entry.pk},
        follow=True,
    )
    assert "cannot be stored" in response.content.decode()
    tournament.refresh_from_db()
    entry.refresh_from_db()
    assert tournament.status == Tournament.Status.SCHEDULED
    assert tournament.announcements.count() == 0 and not entry.disqualified
