"""The per-token limits: one request at a time, and the event stream opened at most 30
times in 10 minutes; past them a 429 with Retry-After, and nothing done."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import transaction
from django.test import Client

from accounts.models import User
from api import limits
from api.models import AccessToken
from tests.api.helpers import bearer, token_for
from tests.factories import make_user

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


def wait_until(condition, *, timeout: float = 20) -> None:
    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError("the condition never held")
        time.sleep(0.02)


def test_a_second_request_while_one_is_in_flight_gets_429_and_does_nothing():
    user = make_user()
    token = token_for(user)
    token_id = AccessToken.objects.get(owner=user).pk
    answers = {}

    # The first request, an upgrade to a bot account, waits on the user's row lock,
    # which this test holds: it is in flight while the second one comes.
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)

        def first() -> None:
            answers["first"] = Client().post("/api/bot/account/upgrade", **bearer(token))

        thread = threading.Thread(target=first)
        thread.start()
        wait_until(lambda: limits.request_in_flight(token_id))
        second = Client().post("/api/bot/account/upgrade", **bearer(token))
        assert second.status_code == 429
        assert second.json()["error"]["code"] == "too_many_requests"
        assert int(second["Retry-After"]) >= 1
    thread.join(20)
    assert answers["first"].status_code == 200
    # Once the first is answered, the token may ask again.
    again = Client().get("/api/account", **bearer(token))
    assert again.status_code == 200 and again.json()["bot"] is True
    assert not limits.request_in_flight(token_id)


def test_another_token_of_the_same_owner_is_not_held_up():
    user = make_user()
    first, second = token_for(user, name="one"), token_for(user, name="two")
    limits.request_slot_take(AccessToken.objects.get(name="one").pk)  # in flight
    assert Client().get("/api/account", **bearer(first)).status_code == 429
    assert Client().get("/api/account", **bearer(second)).status_code == 200


def test_the_event_stream_opens_thirty_times_in_ten_minutes():
    user = make_user()
    token = token_for(user, scopes=["challenge:read"])
    client = Client()
    for _ in range(limits.STREAM_OPENS):
        response = client.get("/api/stream/event", **bearer(token))
        assert response.status_code == 200
        response.close()
    refused = client.get("/api/stream/event", **bearer(token))
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "too_many_streams"
    assert 1 <= int(refused["Retry-After"]) <= limits.STREAM_WINDOW
    # Requests that are not the stream's go on.
    assert client.get("/api/account", **bearer(token)).status_code == 200


def test_the_window_of_stream_openings_starts_with_the_first():
    token_id = 987654
    now = 1_000_000.0
    for _ in range(limits.STREAM_OPENS):
        assert limits.stream_open_refused(token_id, now=now) is None
    assert limits.stream_open_refused(token_id, now=now + 100) == limits.STREAM_WINDOW - 100
