"""Fair play's record of where accounts are seen from: the signed device cookie, the
hashed address, which accounts are linked, what is forgotten after 30 days, and that
nothing of it leaves the site (the API) or outlives the account."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import pytest
from django.core import signing
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse

from accounts import devices, services
from accounts.models import AddressSalt, AllowedPair, Sighting, User
from accounts.selectors import accounts_linked, linked_among
from tests.api.helpers import bearer, token_for
from tests.factories import PASSWORD, client_for, make_user, share_device

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
HOME = "203.0.113.5"
ELSEWHERE = "198.51.100.7"


def seen(user: User, *, address: str | None = HOME, now: datetime = NOON, device=None) -> str:
    device = device or secrets.token_hex(16)
    services.sighting_record(user_id=user.pk, device=device, address=address, now=now)
    return device


def request_with(cookie: str) -> HttpRequest:
    request = HttpRequest()
    request.COOKIES[devices.DEVICE_COOKIE] = cookie
    return request


def pair(one: User, other: User) -> frozenset[int]:
    return frozenset((one.pk, other.pk))


# --- the device cookie and the sighting of a signed-in user's request ----------------------------


def test_a_signed_in_browser_gets_a_signed_device_id_and_is_seen_on_it_from_its_address():
    user = make_user()
    client = client_for(user)
    response = client.get(reverse("home"), REMOTE_ADDR=HOME)
    cookie = response.cookies[devices.DEVICE_COOKIE]
    assert cookie["httponly"] and cookie["max-age"] == devices.DEVICE_COOKIE_AGE
    device = devices.device_of(request_with(cookie.value))
    sighting = Sighting.objects.get(user=user)
    assert sighting.device == device and len(device) == 32
    # The address is kept only as its hash.
    assert sighting.ip_hash and HOME not in sighting.ip_hash and sighting.ip_hash != HOME
    # The browser keeps its id: the next page sets no new cookie.
    again = client.get(reverse("home"), REMOTE_ADDR=HOME)
    assert devices.DEVICE_COOKIE not in again.cookies
    assert Sighting.objects.filter(user=user).count() == 1


def test_a_client_that_drops_the_cookie_stays_one_device_for_its_session():
    user = make_user()
    client = client_for(user)
    first = client.get(reverse("home"), REMOTE_ADDR=HOME).cookies[devices.DEVICE_COOKIE]
    del client.cookies[devices.DEVICE_COOKIE]
    second = client.get(reverse("home"), REMOTE_ADDR=ELSEWHERE).cookies[devices.DEVICE_COOKIE]
    assert devices.device_of(request_with(second.value)) == devices.device_of(
        request_with(first.value)
    )
    assert Sighting.objects.filter(user=user).values("device").distinct().count() == 1


def test_a_visitor_gets_no_device_cookie():
    response = Client().get(reverse("home"))
    assert devices.DEVICE_COOKIE not in response.cookies
    assert not Sighting.objects.exists()


def test_the_login_s_own_response_gives_the_cookie_and_counts():
    user = make_user()
    client = Client()
    response = client.post(reverse("account_login"), {"login": user.username, "password": PASSWORD})
    assert response.status_code == 302
    assert devices.DEVICE_COOKIE in response.cookies
    assert Sighting.objects.filter(user=user).exists()


def test_a_forged_device_cookie_is_ignored_and_another_browser_s_id_cannot_be_claimed():
    owner, cheat = make_user(), make_user()
    owner_device = seen(owner)
    client = client_for(cheat)
    # The id alone, unsigned; then signed with another key.
    for forged in (owner_device, signing.Signer(key="not the site's").sign(owner_device)):
        client.cookies[devices.DEVICE_COOKIE] = forged
        response = client.get(reverse("home"))
        assert devices.DEVICE_COOKIE in response.cookies  # a new, real id replaces it
    devices_of_cheat = Sighting.objects.filter(user=cheat).values_list("device", flat=True)
    assert owner_device not in set(devices_of_cheat)
    assert accounts_linked([owner.pk, cheat.pk]) == set()


def test_a_loopback_address_is_not_hashed_and_links_nobody():
    one, other = make_user(), make_user()
    for user in (one, other):
        client_for(user).get(reverse("home"), REMOTE_ADDR="127.0.0.1")
    assert set(Sighting.objects.values_list("ip_hash", flat=True)) == {""}
    assert accounts_linked([one.pk, other.pk]) == set()


def test_an_ipv6_line_counts_by_its_network():
    assert devices.comparable_address("2001:db8:1:2::5") == devices.comparable_address(
        "2001:db8:1:2:aaaa::9"
    )
    assert devices.comparable_address("2001:db8:1:3::5") != devices.comparable_address(
        "2001:db8:1:2::5"
    )
    assert devices.comparable_address("::ffff:203.0.113.5") == HOME
    assert devices.comparable_address("::1") is None
    assert devices.comparable_address("not an address") is None


# --- which accounts are linked -------------------------------------------------------------------


def test_one_device_links_two_accounts_for_30_days():
    one, other, third = make_user(), make_user(), make_user()
    device = seen(one, address=HOME)
    seen(other, address=ELSEWHERE, now=NOON + timedelta(days=20), device=device)
    seen(third, address=ELSEWHERE)
    assert accounts_linked([one.pk, other.pk, third.pk], now=NOON + timedelta(days=20)) == {
        pair(one, other)
    }


def test_one_address_links_two_accounts_within_a_day_also_across_midnight():
    one, other, later = make_user(), make_user(), make_user()
    evening = datetime(2026, 3, 10, 23, 50, tzinfo=UTC)
    seen(one, now=evening)
    seen(other, now=evening + timedelta(minutes=20))  # the next day's salt
    ids = [one.pk, other.pk, later.pk]
    assert accounts_linked(ids, now=evening + timedelta(minutes=30)) == {pair(one, other)}
    # More than a day on, the address links nobody to them (their devices never did).
    seen(later, now=evening + timedelta(hours=30))
    assert accounts_linked(ids, now=evening + timedelta(hours=30)) == set()


def test_a_moderator_s_allowance_unlinks_a_pair():
    one, other = make_user(), make_user()
    share_device(one, other, now=NOON)
    assert accounts_linked([one.pk, other.pk], now=NOON) == {pair(one, other)}
    first, second = sorted((one, other), key=lambda u: u.pk)
    AllowedPair.objects.create(user=first, other=second)
    assert accounts_linked([one.pk, other.pk], now=NOON) == set()


def test_what_users_hold_is_linked_through_them():
    one, other, third = make_user(), make_user(), make_user()
    share_device(one, other, now=NOON)
    owners = {"a": one.pk, "b": other.pk, "c": third.pk, "bot": None}
    assert linked_among(owners, now=NOON) == {frozenset(("a", "b"))}


# --- what is forgotten, and when ---------------------------------------------------------------


def test_sightings_go_after_30_days_and_the_salts_once_no_address_is_hashed_with_them():
    user = make_user()
    seen(user, now=NOON - timedelta(days=31))
    seen(user, now=NOON - timedelta(days=29))
    seen(user, now=NOON - timedelta(days=1))
    seen(user, now=NOON)
    assert services.sightings_forget(now=NOON) == 1
    assert sorted(Sighting.objects.values_list("seen_at", flat=True)) == [
        NOON - timedelta(days=29),
        NOON - timedelta(days=1),
        NOON,
    ]
    assert sorted(AddressSalt.objects.values_list("day", flat=True)) == [
        (NOON - timedelta(days=1)).date(),
        NOON.date(),
    ]


def test_the_beat_task_forgets():
    from accounts.tasks import forget_sightings

    user = make_user()
    Sighting.objects.create(user=user, device="0" * 32, seen_at=datetime(2000, 1, 1, tzinfo=UTC))
    assert forget_sightings() == 1 and not Sighting.objects.exists()


def test_everything_goes_with_the_account():
    one, other = make_user(), make_user()
    share_device(one, other)
    seen(one)
    AllowedPair.objects.create(user=one, other=other)
    one.delete()
    assert not Sighting.objects.filter(user_id=one.pk).exists()
    assert not AllowedPair.objects.exists()


# --- nothing of it leaves the site ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # the API reads in its own threads
def test_the_api_and_the_profile_never_show_a_device_or_a_hash():
    user = make_user()
    device = seen(user)
    ip_hash = Sighting.objects.get(user=user).ip_hash
    answer = Client().get("/api/account", **bearer(token_for(user)))
    assert answer.status_code == 200
    profile = client_for(user).get(user.get_absolute_url())
    for body in (answer.content.decode(), profile.content.decode()):
        assert device not in body and ip_hash not in body


def test_the_privacy_page_says_what_is_kept_and_for_how_long_in_both_languages():
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(reverse("accounts:privacy"))
    text = page.content.decode()
    assert "30 days" in text and "pan_device" in text and "HMAC-SHA256" in text
    polish = Client(HTTP_ACCEPT_LANGUAGE="pl").get(reverse("accounts:privacy"))
    assert "30 dni" in polish.content.decode()
    assert reverse("accounts:privacy") in Client().get(reverse("rules")).content.decode()
