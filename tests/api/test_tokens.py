"""Personal access tokens: the settings page that makes, lists and revokes them, and who
a token (and nothing else) authorises at /api/."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from api import services
from api.models import AccessToken
from tests.api.helpers import bearer, token_for
from tests.factories import client_for, make_moderator, make_user

# The API reads in its own threads (api.db.in_pool): what a test writes must be committed.
pytestmark = pytest.mark.django_db(transaction=True)


def test_the_settings_page_links_to_the_tokens_page():
    page = client_for(make_user()).get("/account/settings/").content.decode()
    assert 'href="/account/tokens/"' in page


def test_a_token_is_made_shown_once_listed_with_its_last_use_and_works():
    user = make_user("ola")
    client = client_for(user)
    page = client.post(
        "/account/tokens/",
        {"name": "my program", "scopes": ["board:play", "challenge:read"]},
        follow=True,
    ).content.decode()
    token = re.search(r'data-testid="token-value">(pan_[^<]+)<', page).group(1)
    row = AccessToken.objects.get(owner=user)
    assert row.scopes == ["board:play", "challenge:read"]
    assert token not in str(AccessToken.objects.filter(pk=row.pk).values().get())  # hashed
    assert row.token_hash == services.token_hash(token)

    listed = client.get("/account/tokens/").content.decode()
    assert token not in listed  # shown once only
    assert "my program" in listed and "never" in listed

    response = Client().get("/api/account", **bearer(token))
    assert response.status_code == 200
    assert response.json() == {
        "id": user.pk,
        "username": "ola",
        "bot": False,
        "scopes": ["board:play", "challenge:read"],
        "token": "my program",
    }
    row.refresh_from_db()
    assert row.last_used_at is not None
    assert "never" not in client.get("/account/tokens/").content.decode()


def test_the_form_answers_with_a_redirect_so_a_reload_makes_no_second_token():
    client = client_for(make_user())
    answer = client.post("/account/tokens/", {"name": "my program", "scopes": ["bot:play"]})
    assert (answer.status_code, answer["Location"]) == (302, "/account/tokens/")
    shown = client.get(answer["Location"]).content.decode()
    assert 'data-testid="token-value">pan_' in shown

    reloaded = client.get("/account/tokens/").content.decode()  # what a reload asks for
    assert 'data-testid="new-token"' not in reloaded
    assert AccessToken.objects.count() == 1


def test_every_column_of_the_tokens_table_has_a_header():
    user = make_user()
    token_for(user)
    page = client_for(user).get("/account/tokens/").content.decode()
    headers = re.findall(r"<th[^>]*>(.*?)</th>", page, re.S)
    assert len(headers) == 4
    assert all(re.sub(r"<[^>]+>", "", header).strip() for header in headers), headers


def test_a_token_needs_a_name_and_a_known_scope():
    client = client_for(make_user())
    page = client.post("/account/tokens/", {"name": "x", "scopes": ["root"]}).content.decode()
    assert 'data-testid="new-token"' not in page
    page = client.post("/account/tokens/", {"name": " ", "scopes": ["bot:play"]}).content.decode()
    assert 'data-testid="new-token"' not in page
    assert not AccessToken.objects.exists()


def test_a_revoked_token_is_refused_and_revoking_needs_a_post_with_csrf():
    user = make_user()
    token = token_for(user)
    row = AccessToken.objects.get(owner=user)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(f"/account/tokens/{row.pk}/revoke/").status_code == 403  # no CSRF token
    assert client_for(user).get(f"/account/tokens/{row.pk}/revoke/").status_code == 405
    assert Client().get("/api/account", **bearer(token)).status_code == 200

    response = client_for(user).post(f"/account/tokens/{row.pk}/revoke/", follow=True)
    assert "revoked" in response.content.decode()
    refused = Client().get("/api/account", **bearer(token))
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "token_revoked"


def test_nobody_revokes_another_users_token():
    owner, other = make_user(), make_user()
    token = token_for(owner)
    row = AccessToken.objects.get(owner=owner)
    client_for(other).post(f"/account/tokens/{row.pk}/revoke/")
    assert Client().get("/api/account", **bearer(token)).status_code == 200


def test_a_banned_owners_token_is_refused():
    from moderation import services as moderation

    user = make_user()
    token = token_for(user)
    moderation.user_ban(
        by=make_moderator(), user_id=user.pk, reason="spam", until=timezone.now() + timedelta(1)
    )
    response = Client().get("/api/account", **bearer(token))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "owner_banned"


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "The token's owner is banned for good."),
        ("pl", "Właściciel tokenu jest zablokowany na zawsze."),
    ],
)
def test_a_token_of_an_owner_banned_for_good_is_refused_for_good(language, message):
    from moderation import services as moderation

    user = make_user()
    token = token_for(user)
    moderation.user_ban(by=make_moderator(), user_id=user.pk, reason="spam")
    response = Client().get("/api/account", HTTP_ACCEPT_LANGUAGE=language, **bearer(token))
    assert response.json()["error"] == {"code": "owner_banned", "message": message}


def test_a_banned_owners_end_of_ban_ends_in_one_full_stop():
    from moderation import services as moderation

    user = make_user()
    token = token_for(user)
    until = timezone.now() + timedelta(days=1)
    moderation.user_ban(by=make_moderator(), user_id=user.pk, reason="spam", until=until)
    message = Client().get("/api/account", **bearer(token)).json()["error"]["message"]
    shown = timezone.localtime(until).strftime("%Y-%m-%d %H:%M")
    assert message == f"The token's owner is banned until {shown}."


def test_a_session_cookie_never_authorises_the_api():
    user = make_user()
    token_for(user)
    response = client_for(user).get("/api/account")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "token_missing"
    # Nor does a token sent any other way than the Authorization header.
    token = token_for(user, name="second")
    assert Client().get(f"/api/account?token={token}").status_code == 401
    assert (
        Client().get("/api/account", headers={"Authorization": f"token {token}"}).status_code == 401
    )


def test_unknown_tokens_and_paths_answer_json_errors():
    response = Client().get("/api/account", **bearer("pan_not-a-token"))
    assert (response.status_code, response.json()["error"]["code"]) == (401, "token_invalid")
    response = Client().get("/api/no/such/thing")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")


def test_an_account_has_at_most_twenty_live_tokens():
    user = make_user()
    for n in range(services.TOKENS_PER_USER):
        token_for(user, name=f"t{n}")
    page = (
        client_for(user)
        .post("/account/tokens/", {"name": "one more", "scopes": ["bot:play"]})
        .content.decode()
    )
    assert "revoke one first" in page
    assert AccessToken.objects.filter(owner=user).count() == services.TOKENS_PER_USER


def test_a_token_name_with_a_nul_is_a_form_error_and_makes_no_token():
    client = client_for(make_user())
    response = client.post("/account/tokens/", {"name": "my\x00bot", "scopes": ["bot:play"]})
    page = response.content.decode()
    assert "Null characters are not allowed." in page and 'data-testid="new-token"' not in page
    assert not AccessToken.objects.exists()
