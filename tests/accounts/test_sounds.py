"""The table's sound switch, kept on a signed-in user's account."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import client_for, make_table, make_user

pytestmark = pytest.mark.django_db


def test_sounds_are_on_for_a_new_account():
    assert make_user("ola").sounds_on is True


def test_the_switch_saves_the_choice_and_answers_the_script_in_json():
    user = make_user("ola")
    client = client_for(user)
    response = client.post(
        reverse("accounts:sounds"), {"sounds_on": "0"}, headers={"accept": "application/json"}
    )
    assert response.json() == {"sounds_on": False}
    user.refresh_from_db()
    assert user.sounds_on is False
    client.post(
        reverse("accounts:sounds"), {"sounds_on": "1"}, headers={"accept": "application/json"}
    )
    user.refresh_from_db()
    assert user.sounds_on is True


def test_the_switch_without_a_script_goes_back_to_the_table_and_never_elsewhere():
    user = make_user("ola")
    client = client_for(user)
    response = client.post(reverse("accounts:sounds"), {"sounds_on": "0", "next": "/tables/7/"})
    assert response.status_code == 302 and response["Location"] == "/tables/7/"
    response = client.post(
        reverse("accounts:sounds"), {"sounds_on": "0", "next": "https://evil.example/"}
    )
    assert response["Location"] == reverse("accounts:settings")


def test_the_switch_needs_a_post_with_the_csrf_token_and_a_login():
    user = make_user("ola")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(reverse("accounts:sounds"), {"sounds_on": "0"}).status_code == 403
    assert client_for(user).get(reverse("accounts:sounds")).status_code == 405
    response = Client().post(reverse("accounts:sounds"), {"sounds_on": "0"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    user.refresh_from_db()
    assert user.sounds_on is True


def test_the_settings_form_saves_the_sounds_with_the_language():
    user = make_user("ola")
    client = client_for(user)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert 'name="sounds_on"' in page and "checked" in page
    client.post(reverse("accounts:settings"), {"language": "en"})
    user.refresh_from_db()
    assert user.sounds_on is False  # an unticked box
    client.post(reverse("accounts:settings"), {"language": "en", "sounds_on": "on"})
    user.refresh_from_db()
    assert user.sounds_on is True


def test_the_table_page_shows_the_switch_as_the_account_has_it():
    user = make_user("ola", sounds_on=False)
    table = make_table(owner=user)
    page = client_for(user).get(table.get_absolute_url()).content.decode()
    assert 'data-sounds="off"' in page and 'aria-pressed="false"' in page
    visitor = Client().get(table.get_absolute_url()).content.decode()
    # A visitor's switch is kept in his browser: no form to post.
    assert 'data-testid="sound-switch"' in visitor
    assert reverse("accounts:sounds") not in visitor
