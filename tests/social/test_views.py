"""The pages and forms of follows and challenges, through the test client as a browser
meets them (CSRF enforced): the profile's follow button, the friends list with who is
online and where he plays, the challenge form, the waiting page and the answers."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from games import services as games
from games.engine import Rules
from games.models import Table
from social import presence, services
from social.models import Challenge, Follow, Preferences
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    """A signed-in client in English that enforces CSRF, with the cookie a page sets."""
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    assert client.get("/").status_code == 200
    return client


def token(client: Client) -> str:
    return client.cookies[settings.CSRF_COOKIE_NAME].value


def post(client: Client, url: str, data: dict | None = None, **headers: str):
    return client.post(url, {"csrfmiddlewaretoken": token(client), **(data or {})}, **headers)


HTMX = {"HTTP_HX_REQUEST": "true"}


def test_the_follow_button_on_a_profile_follows_and_unfollows_in_place():
    ola, janek = make_user("ola"), make_user("janek")
    client = browser(ola)
    page = client.get("/u/janek/").content.decode()
    assert 'data-testid="follow"' in page and 'data-testid="challenge"' in page
    answer = post(client, "/u/janek/follow/", **HTMX)
    assert answer.status_code == 200
    assert 'id="social-actions"' in answer.content.decode()
    assert 'data-testid="unfollow"' in answer.content.decode()
    assert Follow.objects.filter(follower=ola, followed=janek).exists()
    assert 'data-testid="unfollow"' in client.get("/u/janek/").content.decode()
    assert post(client, "/u/janek/unfollow/").status_code == 302  # without htmx: back
    assert not Follow.objects.exists()


def test_a_follow_sent_without_htmx_goes_back_only_to_a_page_of_the_site():
    make_user("janek")
    client = browser(make_user("ola"))
    inside = post(client, "/u/janek/follow/", {"next": "/friends/"})
    assert inside.status_code == 302 and inside["Location"] == "/friends/"
    for elsewhere in ("https://evil.example/", "//evil.example/", "https:evil.example"):
        answer = post(client, "/u/janek/unfollow/", {"next": elsewhere})
        assert answer.status_code == 302 and answer["Location"] == "/u/janek/"


def test_a_follow_without_the_csrf_token_is_refused_and_changes_nothing():
    ola = make_user("ola")
    make_user("janek")
    client = browser(ola)
    assert client.post("/u/janek/follow/").status_code == 403
    assert not Follow.objects.exists()


def test_a_visitor_and_the_player_himself_see_no_follow_button():
    make_user("janek")
    assert 'data-testid="follow"' not in Client().get("/u/janek/").content.decode()
    own_page = browser(make_user("ewa")).get("/u/ewa/").content.decode()
    assert 'data-testid="follow"' not in own_page


def test_a_stranger_sees_why_he_may_not_challenge_instead_of_the_button():
    ola, follower, stranger = make_user("ola"), make_user("janek"), make_user("stranger")
    services.preferences_set(user=ola, challenges_from_followed_only=True)
    services.follow_create(follower=ola, followed=follower)
    note = "ola accepts challenges only from the people they follow."

    strangers_view = browser(stranger).get("/u/ola/").content.decode()
    assert note in strangers_view and 'data-testid="challenge"' not in strangers_view
    # Following her changes nothing: she has to follow him.
    answer = post(browser(stranger), "/u/ola/follow/", **HTMX).content.decode()
    assert note in answer and 'data-testid="challenge"' not in answer
    form = browser(stranger).get("/u/ola/challenge/").content.decode()
    assert note in form and 'data-testid="challenge-form"' not in form

    followers_view = browser(follower).get("/u/ola/").content.decode()
    assert 'data-testid="challenge"' in followers_view and note not in followers_view
    assert (
        'data-testid="challenge-form"'
        in browser(follower).get("/u/ola/challenge/").content.decode()
    )


def test_the_friends_list_shows_who_is_online_and_where_he_plays():
    ola, janek, ewa = make_user("ola"), make_user("janek"), make_user("ewa")
    for friend in (janek, ewa):
        services.follow_create(follower=ola, followed=friend)
    table = games.table_create(owner=janek, name="Wieczór", rules=Rules(), seats=2)
    games.table_sit(table_id=table.pk, user=make_user())
    games.match_start(table_id=table.pk, by=janek)
    presence.mark_seen(janek.pk, now=time.time())
    presence.mark_seen(ewa.pk, now=time.time() - presence.ONLINE_WINDOW - 1)

    page = browser(ola).get("/friends/").content.decode()
    rows = dict(re.findall(r'data-username="(\w+)" data-online="(\w+)"', page))
    assert rows == {"janek": "yes", "ewa": "no"}
    janek_row = page[page.index('data-username="janek"') : page.index('data-username="ewa"')]
    assert f'href="/tables/{table.pk}/"' in janek_row and "Wieczór" in janek_row


def test_the_friends_list_shows_a_friend_waiting_at_a_table_not_yet_started():
    ola, janek, ewa = make_user("ola"), make_user("janek"), make_user("ewa")
    for friend in (janek, ewa):
        services.follow_create(follower=ola, followed=friend)
    table = games.table_create(owner=janek, name="Wieczór", rules=Rules(), seats=3)
    hidden = games.table_create(owner=ewa, name="Secret", rules=Rules(), seats=2, is_public=False)

    page = browser(ola).get("/friends/").content.decode()
    janek_row = page[page.index('data-username="janek"') :]
    assert "waits at" in janek_row and f'href="/tables/{table.pk}/"' in janek_row
    assert "Wieczór" in janek_row
    ewa_row = page[page.index('data-username="ewa"') : page.index('data-username="janek"')]
    assert "waits at a private table" in ewa_row
    assert f"/tables/{hidden.pk}/" not in page and "Secret" not in page


def test_a_request_of_a_signed_in_user_marks_him_online():
    ola, janek = make_user("ola"), make_user("janek")
    services.follow_create(follower=ola, followed=janek)
    browser(janek).get("/rules/")
    page = browser(ola).get("/friends/").content.decode()
    assert 'data-username="janek" data-online="yes"' in page


def test_a_friend_at_a_private_table_is_shown_playing_without_the_way_in():
    ola, janek = make_user("ola"), make_user("janek")
    services.follow_create(follower=ola, followed=janek)
    table = games.table_create(owner=janek, name="Secret", rules=Rules(), seats=2, is_public=False)
    games.table_sit(table_id=table.pk, user=make_user())
    games.match_start(table_id=table.pk, by=janek)
    page = browser(ola).get("/friends/").content.decode()
    assert "plays at a private table" in page
    assert f"/tables/{table.pk}/" not in page


def test_the_preference_form_lets_only_followed_people_challenge():
    ola = make_user("ola")
    answer = post(browser(ola), "/friends/preferences/", {"challenges_from_followed_only": "on"})
    assert answer.status_code == 302
    assert Preferences.objects.get(user=ola).challenges_from_followed_only
    stranger = browser(make_user("stranger"))
    answer = post(
        stranger,
        "/u/ola/challenge/",
        {"seats": "2", "profile": "kurnik", "time_control": "3+2", "rated": "on"},
    )
    assert answer.status_code == 200
    assert "ola accepts challenges only from the people they follow." in answer.content.decode()
    assert not Challenge.objects.exists()


def test_a_challenge_sent_from_the_form_is_accepted_and_both_land_at_one_table():
    ola, janek = make_user("ola"), make_user("janek")
    ola_client, janek_client = browser(ola), browser(janek)
    form = ola_client.get("/u/janek/challenge/").content.decode()
    assert 'name="time_control"' in form and 'name="seats"' in form
    answer = post(
        ola_client,
        "/u/janek/challenge/",
        {"seats": "2", "profile": "beton", "time_control": "custom", "base_seconds": "240",
         "increment_seconds": "4", "rated": "on"},
    )  # fmt: skip
    challenge = Challenge.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/challenges/{challenge.pk}/"
    waiting = ola_client.get(answer["Location"]).content.decode()
    assert 'data-testid="challenge-waiting"' in waiting
    assert f'hx-post="/challenges/{challenge.pk}/alive/"' in waiting
    # Somebody else neither sees nor answers it.
    ewa = browser(make_user("ewa"))
    assert ewa.get(f"/challenges/{challenge.pk}/").status_code == 404
    post(ewa, f"/challenges/{challenge.pk}/accept/")
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.CREATED and not Table.objects.exists()

    answer = post(janek_client, f"/challenges/{challenge.pk}/accept/", {"from": "bar"}, **HTMX)
    challenge.refresh_from_db()
    table = challenge.table
    assert answer["HX-Redirect"] == f"/tables/{table.pk}/"
    assert [s.user for s in table.seats.order_by("position")] == [ola, janek]
    assert (table.profile, table.base_seconds, table.increment_seconds) == ("beton", 240, 4)
    assert table.status == Table.Status.PLAYING
    # The challenger's waiting page, at its next sign of life, goes to the table.
    answer = post(ola_client, f"/challenges/{challenge.pk}/alive/", **HTMX)
    assert answer["HX-Redirect"] == f"/tables/{table.pk}/"


def test_the_waiting_page_keeps_the_challenge_alive_and_shows_a_decline_with_its_reason():
    ola, janek = make_user("ola"), make_user("janek")
    start = timezone.now() - timedelta(seconds=15)
    challenge = services.challenge_create(challenger=ola, challenged=janek, now=start)
    ola_client = browser(ola)
    answer = post(ola_client, f"/challenges/{challenge.pk}/alive/", **HTMX)
    assert 'data-status="created"' in answer.content.decode()
    challenge.refresh_from_db()
    assert challenge.expires_at > timezone.now() + timedelta(seconds=15)

    janek_client = browser(janek)
    answer = post(
        janek_client,
        f"/challenges/{challenge.pk}/decline/",
        {"reason": "later", "from": "bar"},
        **HTMX,
    )
    assert answer.status_code == 200 and 'id="challenges-incoming"' in answer.content.decode()
    status = post(ola_client, f"/challenges/{challenge.pk}/alive/", **HTMX).content.decode()
    assert 'data-status="declined"' in status and "hx-trigger" not in status
    assert "please ask again later" in status


def test_a_challenge_left_alone_shows_as_expired_and_the_challenger_cancels_his_own():
    ola, janek = make_user("ola"), make_user("janek")
    old = services.challenge_create(
        challenger=ola, challenged=janek, now=timezone.now() - timedelta(seconds=30)
    )
    ola_client = browser(ola)
    page = ola_client.get(f"/challenges/{old.pk}/").content.decode()
    assert 'data-testid="challenge-expired"' in page and "hx-trigger" not in page

    fresh = services.challenge_create(challenger=ola, challenged=janek)
    assert post(browser(janek), f"/challenges/{fresh.pk}/cancel/").status_code == 302
    fresh.refresh_from_db()
    assert fresh.status == Challenge.Status.CREATED
    answer = post(ola_client, f"/challenges/{fresh.pk}/cancel/")
    assert answer.status_code == 302
    fresh.refresh_from_db()
    assert fresh.status == Challenge.Status.CANCELED
    assert 'data-testid="challenge-canceled"' in ola_client.get(answer["Location"]).content.decode()


@pytest.mark.parametrize("path", ["/u/ja%00nek/", "/u/ja%00nek/challenge/"])
def test_a_player_name_with_a_nul_is_not_found(path):
    make_user("janek")
    assert browser(make_user("ola")).get(path).status_code == 404


def test_following_a_name_with_a_nul_is_not_found_and_changes_nothing():
    make_user("janek")
    client = browser(make_user("ola"))
    assert post(client, "/u/ja%00nek/follow/").status_code == 404
    assert not Follow.objects.exists()
