"""The admin of the quick pairing, through the Django test client: the seeks to read,
a silent one to find and delete (through the service), nothing to add or change."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.utils import timezone

from pairing import services
from pairing.models import Seek
from tests.factories import client_for, make_moderator, make_user

pytestmark = pytest.mark.django_db

SEEKS = "/admin/pairing/seek/"


def seek(user, *, size: int | None, seen_ago: timedelta = timedelta(0)) -> Seek:
    return services.seek_create(
        user=user,
        time_control="3+2",
        size=size,
        bots_after=30,
        channel_name=f"chan-{user.pk}",
        now=timezone.now() - seen_ago,
    )


@pytest.fixture
def staff_client():
    return client_for(make_user(is_staff=True, is_superuser=True, language="en"))


def test_staff_read_the_seeks_and_find_the_silent_ones(staff_client):
    live = seek(make_user("ola_waits"), size=None)
    seek(make_user("janek_gone"), size=3, seen_ago=services.STALE_AFTER * 2)
    page = staff_client.get(SEEKS).content.decode()
    assert "ola_waits" in page and "janek_gone" in page
    assert ">any<" in page and ">1500<" in page  # size and the rating as players see it
    silent_only = staff_client.get(SEEKS, {"silent": "yes"}).content.decode()
    assert "janek_gone" in silent_only and "ola_waits" not in silent_only
    assert staff_client.get(f"{SEEKS}add/").status_code == 403
    response = staff_client.post(f"{SEEKS}{live.pk}/change/", {"time_control": "1+0"})
    assert response.status_code == 403
    assert Seek.objects.get(pk=live.pk).time_control == "3+2"
    threes = staff_client.get(SEEKS, {"size__exact": "3"}).content.decode()
    assert "janek_gone" in threes and "ola_waits" not in threes


def test_staff_delete_a_seek_one_at_a_time_or_by_the_list(staff_client):
    first = seek(make_user(), size=2, seen_ago=services.STALE_AFTER * 2)
    second, third = seek(make_user(), size=2), seek(make_user(), size=4)
    response = staff_client.post(f"{SEEKS}{first.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    response = staff_client.post(
        SEEKS,
        {"action": "delete_selected", ACTION_CHECKBOX_NAME: [second.pk, third.pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert not Seek.objects.exists()


def test_a_moderator_and_a_player_see_no_seeks():
    for user in (make_moderator("mod_seeks", language="en"), make_user()):
        response = client_for(user).get(SEEKS)
        assert response.status_code in (302, 403)


def test_seek_remove_is_false_for_a_seek_already_gone():
    gone = seek(make_user(), size=2)
    assert services.seek_remove(seek_id=gone.pk)
    assert not services.seek_remove(seek_id=gone.pk)
