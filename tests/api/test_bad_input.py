"""Input the database cannot store, or a body too large to read, is refused by the API
with a JSON error and a code, and nothing changes (never a server error)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client

from games.models import ChatMessage, Hand
from social.models import Challenge
from tests.api.helpers import bearer, bot_account, started_match, token_for
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)

NUL = "a\u0000b"
SURROGATE = "x\ud800y"


def post_raw(token: str, path: str, body: str | bytes):
    return Client().post(path, body, content_type="application/json", **bearer(token))


def post(token: str, path: str, body: dict):
    # json.dumps writes a NUL as \u0000 and a lone surrogate as \ud800, as a client would.
    return post_raw(token, path, json.dumps(body))


def error_of(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


@pytest.mark.parametrize("kind", ["bot", "board"])
def test_a_move_whose_body_is_over_the_upload_limit_is_refused_with_413(kind):
    player = bot_account() if kind == "bot" else make_user()
    token = token_for(player, scopes=(f"{kind}:play",))
    hand = started_match(player)
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    body = json.dumps({"version": hand.version, "pickup": True, "padding": padding})
    response = post_raw(token, f"/api/{kind}/game/{hand.match.table_id}/move", body)
    assert error_of(response) == (413, "too_large")
    assert Hand.objects.get(pk=hand.pk).version == hand.version


@pytest.mark.parametrize("text", [NUL, SURROGATE], ids=["nul", "surrogate"])
def test_chat_text_the_database_cannot_store_is_bad_text(text):
    bot = bot_account()
    token = token_for(bot)
    table_id = started_match(bot).match.table_id
    response = post(token, f"/api/bot/game/{table_id}/chat", {"text": text})
    assert error_of(response) == (400, "bad_text")
    assert not ChatMessage.objects.exists()


@pytest.mark.parametrize("text", [NUL, SURROGATE], ids=["nul", "surrogate"])
def test_any_field_of_a_body_with_unstorable_text_is_bad_text(text):
    """The move's cards and a challenge's rule profile: text of every schema is read the
    same way."""
    bot = bot_account()
    token = token_for(bot)
    hand = started_match(bot)
    response = post(
        token,
        f"/api/bot/game/{hand.match.table_id}/move",
        {"version": hand.version, "cards": [text]},
    )
    assert error_of(response) == (400, "bad_text")
    assert Hand.objects.get(pk=hand.pk).version == hand.version

    challenger = make_user()
    make_user("ola_text")
    token = token_for(challenger, scopes=("challenge:write",))
    response = post(token, "/api/challenge/ola_text", {"rules": text})
    assert error_of(response) == (400, "bad_text")
    assert not Challenge.objects.exists()


def test_a_nul_in_the_challenged_username_is_an_unknown_user():
    make_user("ab")
    token = token_for(make_user(), scopes=("challenge:write",))
    response = post(token, "/api/challenge/a%00b", {})
    assert error_of(response) == (404, "unknown_user")
    assert not Challenge.objects.exists()
