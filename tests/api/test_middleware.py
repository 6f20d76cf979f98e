"""What every path under /api/ answers before a view has its say: the API's language,
and a wrong method as the API's JSON refusal."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.api.helpers import bearer, token_for
from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_wrong_method_is_refused_in_json_with_the_methods_allowed():
    token = token_for(make_user(), scopes=["board:play"])

    response = Client().delete("/api/account", **bearer(token))

    assert response.status_code == 405
    assert response["Allow"] == "GET"
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert response.json()["error"]["message"] == "This path takes only GET."


def test_a_get_on_a_move_is_refused_in_json_before_any_token_is_read():
    response = Client().get("/api/bot/game/1/move")

    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_an_unknown_path_answers_in_english_unless_polish_is_asked_for():
    english = Client().get("/api/no/such/thing")
    polish = Client(HTTP_ACCEPT_LANGUAGE="pl").get("/api/no/such/thing")

    assert english.status_code == polish.status_code == 404
    assert english.json()["error"] == {"code": "not_found", "message": "There is nothing here."}
    assert polish.json()["error"] == {"code": "not_found", "message": "Nic tu nie ma."}


def test_the_api_ignores_the_sites_language_cookie():
    client = Client()
    client.cookies["django_language"] = "pl"

    response = client.delete("/api/account")

    assert response.json()["error"]["message"] == "This path takes only GET."
