"""Challenges through the API (``/api/challenge``) with personal access tokens, in-process
on PostgreSQL and the Redis layer: send, list, accept, decline and cancel, each refusal a
JSON error with a code; the event stream carries the challenge lines; a challenge sent
with ``keepAliveStream`` lives while its stream is open and ends it with ``done``."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from games.models import Table
from social import services
from social.models import Challenge
from tests.api.helpers import LineReader, bearer, token_for
from tests.factories import make_user

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]

READ, WRITE = "challenge:read", "challenge:write"


@sync_to_async
def players(*names: str, scopes: tuple[str, ...] = (READ, WRITE)) -> list[tuple[Any, str]]:
    """Users with a token each."""
    return [(user, token_for(user, scopes, name="client")) for user in map(make_user, names)]


async def post(client: AsyncClient, path: str, token: str, body: dict | None = None) -> Any:
    return await client.post(path, body or {}, content_type="application/json", **bearer(token))


async def test_a_challenge_sent_listed_and_accepted_through_the_api_seats_both_players():
    (ola, ola_token), (janek, janek_token) = await players("ola_api", "janek_api")
    client = AsyncClient()
    answer = await post(
        client,
        "/api/challenge/janek_api",
        ola_token,
        {"seats": 2, "rules": "english", "limit": 300, "increment": 3, "rated": False},
    )
    assert answer.status_code == 200, answer.content
    sent = answer.json()
    assert sent["status"] == "created" and sent["destUser"]["name"] == "janek_api"
    assert sent["timeControl"] == {"type": "clock", "limit": 300, "increment": 3, "show": "5+3"}
    assert (sent["seats"], sent["rules"], sent["rated"]) == (2, "english", False)

    listed = (await client.get("/api/challenge", **bearer(janek_token))).json()
    assert [c["id"] for c in listed["in"]] == [sent["id"]] and listed["out"] == []

    answer = await post(client, f"/api/challenge/{sent['id']}/accept", janek_token)
    assert answer.status_code == 200, answer.content
    accepted = answer.json()["challenge"]
    assert accepted["status"] == "accepted"
    table = await Table.objects.aget(pk=accepted["tableId"])
    seated = [s.user_id async for s in table.seats.order_by("position")]
    assert seated == [ola.pk, janek.pk]
    assert table.status == Table.Status.PLAYING and not table.rated


async def test_refusals_are_json_errors_with_a_code_and_change_nothing():
    (ola, ola_token), (janek, janek_token) = await players("ola_no", "janek_no")
    [(_reader, read_only)] = await players("reader_no", scopes=(READ,))
    client = AsyncClient()

    answer = await post(client, "/api/challenge/janek_no", read_only)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "missing_scope"
    answer = await post(client, "/api/challenge/nobody_here", ola_token)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "unknown_user"
    answer = await post(client, "/api/challenge/janek_no", ola_token, {"seats": 7})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_seats"

    await sync_to_async(services.preferences_set)(user=janek, challenges_from_followed_only=True)
    answer = await post(client, "/api/challenge/janek_no", ola_token)
    error = answer.json()["error"]
    assert answer.status_code == 403 and error["code"] == "challenge_followed_only"
    assert error["message"] == "janek_no accepts challenges only from the people they follow."
    assert not await Challenge.objects.aexists()

    challenge = await sync_to_async(services.challenge_create)(challenger=janek, challenged=ola)
    answer = await post(client, f"/api/challenge/{challenge.pk}/accept", janek_token)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_challenged"
    answer = await post(client, f"/api/challenge/{challenge.pk}/cancel", ola_token)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_challenger"
    answer = await post(client, "/api/challenge/999999/accept", ola_token)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "unknown_challenge"
    await challenge.arefresh_from_db()
    assert challenge.status == Challenge.Status.CREATED

    answer = await post(
        client, f"/api/challenge/{challenge.pk}/decline", ola_token, {"reason": "later"}
    )
    declined = answer.json()["challenge"]
    assert (declined["status"], declined["declineReasonKey"]) == ("declined", "later")
    answer = await post(client, f"/api/challenge/{challenge.pk}/accept", ola_token)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "challenge_declined"


async def test_the_event_stream_opens_with_open_challenges_and_tells_of_new_and_canceled_ones():
    (ola, ola_token), (janek, janek_token) = await players("ola_stream", "janek_stream")
    first = await sync_to_async(services.challenge_create)(challenger=ola, challenged=janek)
    client = AsyncClient()
    response = await client.get("/api/stream/event", **bearer(janek_token))
    assert response.status_code == 200
    reader = LineReader(response)
    opening = (await reader.until("challenge"))[-1]
    assert opening["challenge"]["id"] == first.pk

    await sync_to_async(services.challenge_cancel)(challenge_id=first.pk, user=ola)
    canceled = (await reader.until("challengeCanceled"))[-1]
    assert canceled["challenge"]["status"] == "canceled"
    answer = await post(client, "/api/challenge/janek_stream", ola_token, {"seats": 3})
    line = (await reader.until("challenge"))[-1]
    assert line["challenge"]["id"] == answer.json()["id"] and line["challenge"]["seats"] == 3
    await reader.close()


async def test_a_challenge_sent_with_its_keep_alive_stream_ends_it_when_declined():
    (_ola, ola_token), (janek, _token) = await players("ola_keep", "janek_keep")
    client = AsyncClient()
    response = await client.post(
        "/api/challenge/janek_keep?keepAliveStream=true",
        {},
        content_type="application/json",
        **bearer(ola_token),
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    reader = LineReader(response)
    sent = await reader.next_line()
    assert sent["status"] == "created"
    await sync_to_async(services.challenge_decline)(
        challenge_id=sent["id"], user=janek, reason="too_fast"
    )
    line = await reader.next_line()
    while line is None:  # keep-alives
        line = await reader.next_line()
    assert line == {"done": "declined"}


async def test_a_correspondence_challenge_made_on_the_site_is_listed_with_its_days_per_move():
    (ola, _), (janek, janek_token) = await players("ola_days", "janek_days")
    await sync_to_async(services.challenge_create)(
        challenger=ola, challenged=janek, seats=2, profile="kurnik", move_days=3
    )
    answer = await AsyncClient().get("/api/challenge", **bearer(janek_token))
    assert answer.status_code == 200, answer.content
    (listed,) = answer.json()["in"]
    assert listed["timeControl"]["type"] == "correspondence"
    assert listed["timeControl"]["daysPerTurn"] == 3
    assert "limit" not in listed["timeControl"]
