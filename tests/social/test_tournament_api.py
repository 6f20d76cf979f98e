"""Tournaments and arenas through the API (``/api/tournament``): list, join, withdraw, for a
bot account and a person's program, each refusal a JSON error with a code."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from tests.api.helpers import bearer, bot_account, token_for
from tests.factories import make_user
from tests.tournaments.test_arena import make_arena, start
from tournaments.models import TournamentEntry

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


async def post(client: AsyncClient, path: str, token: str) -> Any:
    return await client.post(path, {}, content_type="application/json", **bearer(token))


@sync_to_async
def running_arena(**settings: Any):
    if settings.get("bots_allowed") is False:
        return start(make_arena(users=[make_user() for _ in range(3)], **settings))
    return start(make_arena(bots=3, **settings))


@sync_to_async
def entry_of(user) -> TournamentEntry | None:
    return TournamentEntry.objects.filter(user=user).first()


async def test_a_bot_account_lists_joins_and_withdraws_from_an_arena_that_allows_bots():
    arena = await running_arena(name="Bots welcome")
    bot = await sync_to_async(bot_account)("arena_bot")
    token = await sync_to_async(token_for)(bot, ("bot:play",))
    client = AsyncClient()
    listed = await client.get("/api/tournament", **bearer(token))
    assert listed.status_code == 200
    (row,) = [t for t in listed.json()["tournaments"] if t["id"] == arena.pk]
    assert row["format"] == "arena" and row["status"] == "running" and row["minutes"] == 20
    assert row["seats"] == {"min": 3, "max": 4} and row["joinUntil"] < row["endsAt"]
    joined = await post(client, f"/api/tournament/{arena.pk}/join", token)
    assert joined.status_code == 200 and joined.json()["tournament"]["players"] == 4
    assert (await entry_of(bot)).waiting_since is not None
    again = await post(client, f"/api/tournament/{arena.pk}/join", token)
    assert again.status_code == 409 and again.json()["error"]["message"]
    left = await post(client, f"/api/tournament/{arena.pk}/withdraw", token)
    assert left.status_code == 200 and await entry_of(bot) is None  # he had not played


async def test_refusals_are_errors_with_codes_and_change_nothing():
    closed = await running_arena(name="People only", bots_allowed=False)
    bot = await sync_to_async(bot_account)("lonely_bot")
    token = await sync_to_async(token_for)(bot, ("bot:play",))
    client = AsyncClient()
    answer = await post(client, f"/api/tournament/{closed.pk}/join", token)
    assert answer.status_code == 409 and await entry_of(bot) is None
    assert (await post(client, "/api/tournament/999999/join", token)).status_code == 404
    person = await sync_to_async(make_user)("reader_only")
    reader = await sync_to_async(token_for)(person, ("challenge:read",))
    refused = await post(client, f"/api/tournament/{closed.pk}/join", reader)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "missing_scope"
    board = await sync_to_async(token_for)(person, ("board:play",))
    assert (await post(client, f"/api/tournament/{closed.pk}/join", board)).status_code == 200
