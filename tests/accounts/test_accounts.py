"""Sign-up, e-mail confirmation, login, profile and settings, through the real pages."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

CONFIRM_LINK = re.compile(r"https?://[^/\s]+(/accounts/confirm-email/[^/\s]+/)")


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    # allauth keeps its login and sign-up counters in the cache (Redis here).
    cache.clear()


def signup(client, **overrides):
    data = {
        "username": "ola",
        "email": "ola@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    data.update(overrides)
    return client.post(reverse("account_signup"), data, follow=True)


def test_signup_sends_a_confirmation_link_that_verifies_the_address(client, mailoutbox):
    response = signup(client)
    assert response.status_code == 200
    user = User.objects.get(username="ola")
    assert not user.emailaddress_set.get().verified
    assert len(mailoutbox) == 1
    path = CONFIRM_LINK.search(mailoutbox[0].body).group(1)

    client.post(path)
    assert user.emailaddress_set.get().verified


def test_confirming_the_address_in_the_browser_that_signed_up_signs_the_user_in(client, mailoutbox):
    signup(client)
    assert "_auth_user_id" not in client.session
    path = CONFIRM_LINK.search(mailoutbox[0].body).group(1)
    assert 'type="submit"' in client.get(path).content.decode()  # the link opens a form

    response = client.post(path, follow=True)
    user = User.objects.get(username="ola")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert response.redirect_chain[-1][0] == "/"
    assert 'data-testid="nav-profile"' in response.content.decode()


def test_a_link_opened_in_another_browser_confirms_and_asks_to_log_in(client, mailoutbox):
    signup(client)
    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = other.post(CONFIRM_LINK.search(mailoutbox[0].body).group(1), follow=True)
    assert User.objects.get(username="ola").emailaddress_set.get().verified
    assert "_auth_user_id" not in other.session
    assert response.redirect_chain[-1][0] == reverse("account_login")


def test_login_is_refused_until_the_address_is_confirmed(client, mailoutbox):
    signup(client)
    client.logout()
    response = client.post(
        reverse("account_login"), {"login": "ola", "password": PASSWORD}, follow=True
    )
    assert "_auth_user_id" not in client.session
    assert response.redirect_chain[-1][0] == reverse("account_email_verification_sent")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"username": "taken"}, "A user with that username already exists."),
        ({"email": "not-an-address"}, "Enter a valid email address."),
        ({"password1": "12345678", "password2": "12345678"}, "This password is too common."),
        ({"password2": "something-else-42"}, "You must type the same password each time."),
        ({"username": "no spaces!"}, "Use 3 to 30 characters"),
        ({"username": "o\x00la"}, "Null characters are not allowed."),
    ],
)
def test_bad_signup_shows_a_clear_message_and_creates_nothing(
    client, mailoutbox, overrides, message
):
    make_user("taken")
    client.cookies["django_language"] = "en"
    response = signup(client, **overrides)
    assert message in response.content.decode()
    assert User.objects.count() == 1
    assert mailoutbox == []


def test_a_wrong_confirmation_link_shows_an_error_and_verifies_nothing(client):
    user = make_user("ola", verified=False)
    client.cookies["django_language"] = "en"
    response = client.get("/accounts/confirm-email/not-a-real-key/")
    assert "This email confirmation link expired or is invalid" in response.content.decode()
    assert not user.emailaddress_set.get().verified


@pytest.mark.parametrize("login", ["ola", "ola@example.com"])
def test_login_by_username_or_email(client, login):
    make_user("ola")
    response = client.post(reverse("account_login"), {"login": login, "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(User.objects.get(username="ola").pk)


def test_wrong_password_shows_an_error_and_logs_nobody_in(client):
    make_user("ola")
    client.cookies["django_language"] = "en"
    response = client.post(reverse("account_login"), {"login": "ola", "password": "wrong-one"})
    assert response.status_code == 200
    assert (
        "The username and/or password you specified are not correct." in response.content.decode()
    )
    assert "_auth_user_id" not in client.session


def test_repeated_failed_logins_are_rate_limited(client):
    make_user("ola")
    client.cookies["django_language"] = "en"
    for _ in range(5):
        client.post(reverse("account_login"), {"login": "ola", "password": "wrong-one"})
    response = client.post(reverse("account_login"), {"login": "ola", "password": PASSWORD})
    assert "Too many failed login attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def fail_logins(client, login: str, times: int = 5) -> None:
    for _ in range(times):
        client.post(reverse("account_login"), {"login": login, "password": "wrong-one"})


@pytest.mark.parametrize(
    ("guessed", "then"), [("ola", "ola@example.com"), ("OLA@example.com", "Ola")]
)
def test_failed_logins_count_per_account_whichever_name_is_typed(client, guessed, then):
    make_user("ola")
    client.cookies["django_language"] = "en"
    fail_logins(client, guessed)
    response = client.post(reverse("account_login"), {"login": then, "password": PASSWORD})
    assert "Too many failed login attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_failed_logins_of_unknown_names_do_not_lock_an_account(client):
    make_user("ola")
    fail_logins(client, "olaf")
    response = client.post(reverse("account_login"), {"login": "ola", "password": PASSWORD})
    assert response.status_code == 302 and "_auth_user_id" in client.session


def test_a_password_reset_lifts_the_accounts_lock(client, mailoutbox):
    make_user("ola")
    fail_logins(client, "ola")
    client.post(reverse("account_reset_password"), {"email": "ola@example.com"})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)", mailoutbox[0].body)
    set_password = client.get(link.group(1), follow=True).redirect_chain[-1][0]
    client.post(set_password, {"password1": "a-new-secret-42", "password2": "a-new-secret-42"})
    response = client.post(
        reverse("account_login"), {"login": "ola@example.com", "password": "a-new-secret-42"}
    )
    assert response.status_code == 302 and "_auth_user_id" in client.session


@pytest.mark.parametrize("host", ["testserver", "127.0.0.1:8101"])
def test_every_mail_subject_names_the_site_not_the_host(client, mailoutbox, settings, host):
    """Sign-up, e-mail confirmation and password reset: "[Pan online] ...", whatever host
    the request came to (allauth would otherwise name the host) (#14)."""
    settings.ALLOWED_HOSTS = [host.split(":")[0]]
    client.defaults["HTTP_HOST"] = host
    signup(client)
    client.post(reverse("account_reset_password"), {"email": "ola@example.com"})
    make_user("janek")
    client.post(reverse("account_reset_password"), {"email": "janek@example.com"})
    assert len(mailoutbox) == 3
    for message in mailoutbox:
        assert message.subject.startswith("[Pan online] "), message.subject
        assert "127.0.0.1" not in message.subject and "testserver" not in message.subject


@pytest.mark.parametrize("host", ["testserver", "127.0.0.1:8150"])
def test_confirmation_and_reset_mails_greet_with_the_sites_name_not_the_host(
    client, mailoutbox, settings, host
):
    """allauth greets "Hello from <site>!" and signs "Thank you for using <site>!": the
    site is SITE_NAME, never the host the request came to (#31)."""
    settings.ALLOWED_HOSTS = [host.split(":")[0]]
    client.defaults["HTTP_HOST"] = host
    signup(client)
    make_user("janek")
    client.post(reverse("account_reset_password"), {"email": "janek@example.com"})
    confirmation, reset = mailoutbox
    assert "/accounts/confirm-email/" in confirmation.body
    assert "/accounts/password/reset/key/" in reset.body
    for message in (confirmation, reset):
        assert message.subject.startswith(f"[{settings.SITE_NAME}] ")
        assert f"Hello from {settings.SITE_NAME}!" in message.body
        assert f"Thank you for using {settings.SITE_NAME}!" in message.body
        assert f"from {host}" not in message.body and f"using {host}" not in message.body


def test_profile_shows_the_join_date(client):
    user = make_user("ola")
    response = client.get(reverse("profile", kwargs={"username": "ola"}))
    assert response.status_code == 200
    # The page shows the site's time zone (Europe/Warsaw): from 23:00 UTC it is tomorrow there.
    assert timezone.localdate(user.date_joined).isoformat() in response.content.decode()


def test_unknown_profile_is_a_styled_404(client):
    client.cookies["django_language"] = "en"
    response = client.get("/u/nobody-here/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()
    assert 'class="site-header"' in response.content.decode()


def test_settings_save_the_display_language_and_serve_the_site_in_it(client):
    user = make_user("ola")
    client.force_login(user)
    client.post(reverse("accounts:settings"), {"language": "en"})
    user.refresh_from_db()
    assert user.language == "en"
    assert "Open tables" in client.get("/").content.decode()

    client.post(reverse("accounts:settings"), {"language": "pl"})
    assert "Otwarte stoły" in client.get("/").content.decode()


def test_settings_refuse_an_unknown_language(client):
    user = make_user("ola", language="pl")
    client.force_login(user)
    response = client.post(reverse("accounts:settings"), {"language": "xx"})
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.language == "pl"


def test_language_switch_serves_polish_to_a_visitor(client):
    client.post(reverse("accounts:set_language"), {"language": "en", "next": "/"})
    assert "Open tables" in client.get("/").content.decode()
    client.post(reverse("accounts:set_language"), {"language": "pl", "next": "/"})
    assert "Otwarte stoły" in client.get("/").content.decode()


def test_settings_need_a_login(client):
    response = client.get(reverse("accounts:settings"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


def test_moderators_group_exists_with_moderation_permissions():
    group = Group.objects.get(name="Moderators")
    codenames = set(group.permissions.values_list("codename", flat=True))
    assert {"view_user", "ban_user", "mute_user"} <= codenames


def test_admin_is_for_staff_only(client):
    client.force_login(make_user("ola"))
    response = client.get("/admin/")
    assert response.status_code == 302
    staff = make_user("boss", is_staff=True, is_superuser=True)
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200


def test_ban_and_mute_state_is_in_force_only_until_its_time():
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    user = make_user("ola", banned_until=now + timedelta(hours=1), muted_until=now - timedelta(1))
    assert user.is_banned(now)
    assert not user.is_banned(now + timedelta(hours=2))
    assert not user.is_muted(now)
