"""Two-factor sign-in through the real pages (allauth's, with the site's templates): the
code prompt says that a recovery code works too, and it does; the recovery codes page
keeps "download" and "generate new" apart."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.models import User
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

BYPASS_CODE = "314159"  # allauth's code for tests: any authenticator code, DEBUG only


def turn_on_two_factor(client, settings) -> User:
    """A new user who turns on two-factor sign-in on the settings pages (which gives him
    recovery codes); ``client`` stays signed in as him, just reauthenticated."""
    settings.DEBUG = True
    settings.MFA_TOTP_INSECURE_BYPASS_CODE = BYPASS_CODE
    user = make_user()
    client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})
    client.post(reverse("account_reauthenticate"), {"password": PASSWORD})  # allauth asks
    response = client.post(reverse("mfa_activate_totp"), {"code": BYPASS_CODE})
    assert response.url == reverse("mfa_view_recovery_codes")
    settings.MFA_TOTP_INSECURE_BYPASS_CODE = None  # from here on, only real codes
    settings.DEBUG = False
    return user


def sign_in_with_password(client, user: User):
    return client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})


def test_the_code_prompt_says_a_recovery_code_works_too_and_it_does(client, settings):
    user = turn_on_two_factor(client, settings)
    codes = client.get(reverse("mfa_view_recovery_codes")).context["unused_codes"]
    client.post(reverse("account_logout"))

    response = sign_in_with_password(client, user)
    assert response.url == reverse("mfa_authenticate")
    prompt = client.get(response.url).content.decode()
    assert "or one of your recovery codes" in prompt
    response = client.post(reverse("mfa_authenticate"), {"code": codes[0]})
    assert response.status_code == 302 and response.url == reverse("home")
    assert client.get(reverse("mfa_index")).status_code == 200  # signed in

    client.post(reverse("account_logout"))  # a recovery code works once
    sign_in_with_password(client, user)
    response = client.post(reverse("mfa_authenticate"), {"code": codes[0]})
    assert response.status_code == 200 and client.get(reverse("mfa_index")).status_code == 302


def test_the_code_prompt_in_polish(client, settings):
    user = turn_on_two_factor(client, settings)
    client.post(reverse("account_logout"))
    sign_in_with_password(client, user)
    prompt = client.get(reverse("mfa_authenticate"), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "albo jeden ze swoich kodów odzyskiwania" in prompt


def test_download_and_generate_new_codes_are_two_buttons_that_say_what_they_do(client, settings):
    turn_on_two_factor(client, settings)
    page = client.get(reverse("mfa_view_recovery_codes")).content.decode()
    download = _section(page, "download-codes")
    generate = _section(page, "generate-codes")
    assert f'class="button" href="{reverse("mfa_download_recovery_codes")}"' in download
    assert "Download codes" in download and "The codes stay as they are." in download
    assert f'href="{reverse("mfa_generate_recovery_codes")}"' in generate
    assert "Generate new codes" in generate and "the old ones stop working" in generate
    assert "Generate" not in download and "Download" not in generate


def _section(page: str, testid: str) -> str:
    found = re.search(rf'<section [^>]*data-testid="{testid}">(.*?)</section>', page, re.S)
    assert found, testid
    return found.group(1)
