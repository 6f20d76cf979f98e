"""Web Push on the real protocol: the site's own requests to a local push service (RFC
8030), decrypted with the keys the test holds as a browser would (RFC 8291), their VAPID
JWT checked (RFC 8292); which notices are pushed, to whom, how often, and what becomes of
a subscription the push service refuses."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from bench.push_service import PushService, Subscriber, read_vapid
from notifications import push, services, tasks
from notifications.models import Kind, Notification, PushSubscription
from social import presence
from social import services as social
from tests.factories import make_table, make_user
from tests.notifications.helpers import send_turn

pytestmark = pytest.mark.django_db

SITE = "https://pan.example"


@pytest.fixture(scope="module")
def vapid_key() -> str:
    return push.generate_private_key_pem()


@pytest.fixture(autouse=True)
def _push_on(settings, vapid_key: str) -> None:
    settings.VAPID_PRIVATE_KEY = vapid_key
    settings.VAPID_SUBJECT = "mailto:admin@pan.example"
    settings.SITE_URL = SITE


@pytest.fixture
def service():
    with PushService() as running:
        yield running


def subscribe(user, service: PushService, name: str | None = None) -> Subscriber:
    """``user`` turns push on in a new browser, which subscribed at ``service``."""
    browser = Subscriber(service.endpoint(name or f"{user.username}-{user.pk}"))
    services.push_subscription_add(
        user=user,
        endpoint=browser.endpoint,
        p256dh=browser.p256dh,
        auth=browser.auth,
        device="Chrome on Android",
    )
    return browser


def turn(table, user, *, hand_id: int) -> Notification:
    send_turn(table, user, hand_id=hand_id, deadline=timezone.now() + timedelta(days=2))
    return Notification.objects.get(owner=user, key__startswith=f"turn:{hand_id}:")


def test_a_turn_reaches_the_browser_encrypted_signed_and_in_the_readers_language(service):
    now = timezone.now()  # the JWT's expiry is checked against the clock of the push service
    ola = make_user("ola_push", language="pl")
    table = make_table(owner=ola, name="Kraków")
    browser = subscribe(ola, service)
    notice = turn(table, ola, hand_id=1)
    assert notice.push == Notification.Push.PENDING

    run = services.notification_push_send(notification_id=notice.pk, now=now)

    assert run.delivered == 1 and not run.retry
    (request,) = service.received
    assert request.status == 201
    # RFC 8291: the body is aes128gcm to the browser's keys; only it can read the text.
    assert request.headers["content-encoding"] == "aes128gcm"
    assert "Kraków".encode() not in request.body
    payload = browser.decrypt(request.body)
    assert payload["body"].startswith("Twój ruch przy stole") and "Kraków" in payload["body"]
    assert payload["url"] == f"{SITE}/tables/{table.pk}/"
    assert payload["title"] == "Pan online"
    assert payload["tag"] == f"table:{table.pk}"
    assert payload["lang"] == "pl"
    # RFC 8030: how long the push service keeps it, and how urgent it is.
    assert request.headers["ttl"] == str(24 * 60 * 60)
    assert request.headers["urgency"] == "normal"
    # RFC 8292: a JWT for this push service, signed with the site's key, short-lived.
    token = read_vapid(request.headers["authorization"])
    assert token.signature_valid
    assert token.header == {"typ": "JWT", "alg": "ES256"}
    assert token.public_key == push.application_server_key()
    assert token.claims["aud"] == service.origin
    assert token.claims["sub"] == "mailto:admin@pan.example"
    expiry = int(token.claims["exp"])
    assert now.timestamp() < expiry <= now.timestamp() + 24 * 60 * 60
    notice.refresh_from_db()
    assert notice.push == Notification.Push.SENT


def test_a_forged_signature_is_told_apart(service):
    """The check of the JWT above is a real one: a token signed by another key fails."""
    ola = make_user("ola_forged")
    subscribe(ola, service)
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    services.notification_push_send(notification_id=notice.pk)
    (request,) = service.received
    scheme, params = request.headers["authorization"].split(" ", 1)
    other = push.Vapid.from_pem(push.generate_private_key_pem().encode())
    forged_key = other.sign({"aud": service.origin, "sub": "mailto:x@pan.example"})
    other_k = forged_key["Authorization"].split("k=")[1]
    token = params.split(",")[0]
    assert not read_vapid(f"{scheme} {token},k={other_k}").signature_valid


def test_each_kind_says_its_own_text_and_link(service):
    ola = make_user("ola_kinds")
    janek = make_user("janek_kinds")
    browser = subscribe(ola, service)
    challenge = social.challenge_create(challenger=janek, challenged=ola, seats=2, profile="kurnik")
    notice = Notification.objects.get(owner=ola, kind=Kind.CHALLENGED)
    services.notification_push_send(notification_id=notice.pk)
    (request,) = service.received
    payload = browser.decrypt(request.body)
    assert payload["body"] == "janek_kinds challenges you."
    assert payload["url"] == f"{SITE}/challenges/{challenge.pk}/"
    assert request.headers["urgency"] == "high"
    assert request.headers["ttl"] == "600"


def test_a_page_open_has_the_bell_and_gets_no_push(service):
    now = timezone.now()
    ola = make_user("ola_online")
    subscribe(ola, service)
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    presence.mark_seen(ola.pk, now=now.timestamp() - 5)
    first = services.notification_push_send(notification_id=notice.pk, now=now)
    assert first.look_again  # the page may have just closed: one more look
    presence.mark_seen(ola.pk, now=now.timestamp() + 100)  # it is still open
    later = now + timedelta(seconds=tasks.events.PUSH_LOOK_AGAIN)
    services.notification_push_send(notification_id=notice.pk, first_look=False, now=later)
    assert service.received == []
    notice.refresh_from_db()
    assert notice.push == Notification.Push.SKIPPED
    assert notice.read_at is None  # the notice itself waits under the bell


def test_a_page_closed_just_now_gets_the_push_at_the_second_look(service):
    now = timezone.now()
    ola = make_user("ola_closed")
    subscribe(ola, service)
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    presence.mark_seen(ola.pk, now=now.timestamp() - 60)  # his last page, a minute ago
    assert services.notification_push_send(notification_id=notice.pk, now=now).look_again
    later = now + timedelta(seconds=tasks.events.PUSH_LOOK_AGAIN)
    run = services.notification_push_send(notification_id=notice.pk, first_look=False, now=later)
    assert run.delivered == 1
    assert len(service.received) == 1


def test_one_game_is_pushed_at_most_once_in_ten_minutes(service):
    now = timezone.now()
    ola = make_user("ola_rate")
    table, other = make_table(owner=ola, name="Rate"), make_table(owner=ola, name="Other")
    subscribe(ola, service)
    first, second = turn(table, ola, hand_id=1), turn(table, ola, hand_id=2)
    elsewhere = turn(other, ola, hand_id=3)
    services.notification_push_send(notification_id=first.pk, now=now)
    services.notification_push_send(notification_id=second.pk, now=now + timedelta(minutes=9))
    services.notification_push_send(notification_id=elsewhere.pk, now=now + timedelta(minutes=9))
    assert len(service.received) == 2  # the first game once, the other game once
    second.refresh_from_db()
    assert second.push == Notification.Push.SKIPPED
    third = turn(table, ola, hand_id=4)
    services.notification_push_send(notification_id=third.pk, now=now + timedelta(minutes=11))
    assert len(service.received) == 3


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_calls_gone_is_deleted(service, status: int):
    ola = make_user(f"ola_gone_{status}")
    subscribe(ola, service, name="gone")
    kept = subscribe(ola, service, name="kept")
    service.answer("gone", status)
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    run = services.notification_push_send(notification_id=notice.pk)
    assert run.delivered == 1 and not run.retry
    assert list(PushSubscription.objects.filter(user=ola).values_list("endpoint", flat=True)) == [
        kept.endpoint
    ]


def test_a_busy_push_service_is_tried_again_and_only_for_the_browser_that_failed(service):
    now = timezone.now()
    ola = make_user("ola_busy")
    busy = subscribe(ola, service, name="busy")
    subscribe(ola, service, name="fine")
    service.answer("busy", 429, retry_after="7")
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    run = services.notification_push_send(notification_id=notice.pk, now=now)
    busy_row = PushSubscription.objects.get(endpoint=busy.endpoint)
    assert run.delivered == 1 and run.retry == [busy_row.pk] and run.retry_after == 7
    assert tasks.push_backoff(0, run.retry_after) == 7
    notice.refresh_from_db()
    assert notice.push == Notification.Push.SENDING  # not lost: the task tries again
    again = services.notification_push_send(
        notification_id=notice.pk,
        subscription_ids=run.retry,
        first_look=False,
        now=now + timedelta(seconds=7),
    )
    assert again.delivered == 1 and not again.retry
    assert [r.name for r in service.received] == ["busy", "fine", "busy"]
    assert busy.decrypt(service.received[-1].body)["body"].startswith("Your move at the table")
    notice.refresh_from_db()
    assert notice.push == Notification.Push.SENT


def test_a_push_service_that_is_down_is_tried_again_with_backoff(service):
    ola = make_user("ola_down")
    subscribe(ola, service, name="down")
    service.answer("down", 503)
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    run = services.notification_push_send(notification_id=notice.pk)
    assert run.retry and run.retry_after is None
    waits = [tasks.push_backoff(n, None) for n in range(12)]
    assert 5 <= waits[0] <= 10 and 10 <= waits[1] <= 20
    assert max(waits) <= tasks.PUSH_BACKOFF_MAX
    # Retries end when the push would be dropped by the push service anyway (its TTL).
    late = notice.created_at + timedelta(days=1, minutes=1)
    assert not services.notification_push_send(
        notification_id=notice.pk, subscription_ids=run.retry, first_look=False, now=late
    ).retry


def test_an_unreachable_push_service_is_tried_again():
    ola = make_user("ola_unreachable")
    with PushService() as gone:
        endpoint = gone.endpoint("nobody")
    browser = Subscriber(endpoint)  # the push service has stopped: nothing listens there
    services.push_subscription_add(
        user=ola, endpoint=endpoint, p256dh=browser.p256dh, auth=browser.auth, device=""
    )
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    assert services.notification_push_send(notification_id=notice.pk).retry


def test_only_the_kinds_chosen_in_the_settings_are_pushed_and_the_email_still_goes(service):
    ola = make_user("ola_choice")
    subscribe(ola, service)
    client = Client()
    client.force_login(ola)
    answer = client.post(
        "/notifications/settings/",
        {"mailed": [Kind.YOUR_TURN, Kind.CHALLENGED], "pushed": [Kind.CHALLENGED]},
    )
    assert answer.status_code == 302
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    assert notice.push == Notification.Push.NONE
    assert notice.mail == Notification.Mail.PENDING  # the e-mail he chose still goes
    social.challenge_create(
        challenger=make_user("janek_choice"), challenged=ola, seats=2, profile="kurnik"
    )
    challenged = Notification.objects.get(owner=ola, kind=Kind.CHALLENGED)
    assert challenged.push == Notification.Push.PENDING
    assert challenged.mail == Notification.Mail.PENDING


def test_no_push_without_a_subscription_or_without_a_site_key(service, settings):
    ola = make_user("ola_nothing")
    assert turn(make_table(owner=ola), ola, hand_id=1).push == Notification.Push.NONE
    subscribe(ola, service)
    settings.VAPID_PRIVATE_KEY = ""
    assert turn(make_table(owner=ola), ola, hand_id=2).push == Notification.Push.NONE


def test_the_subscriptions_go_with_the_account(service):
    ola = make_user("ola_deleted")
    subscribe(ola, service)
    ola.delete()
    assert not PushSubscription.objects.exists()


def test_the_sweep_queues_a_push_whose_task_was_lost(service):
    ola = make_user("ola_lost_push")
    subscribe(ola, service)
    notice = turn(make_table(owner=ola), ola, hand_id=1)
    assert services.notifications_push_due(now=notice.created_at + timedelta(minutes=1)) == 0
    assert services.notifications_push_due(now=notice.created_at + timedelta(minutes=5)) == 1


# --- the settings page's part -------------------------------------------------------------


def test_a_browser_subscribes_and_is_listed_and_removed_from_the_settings(service):
    ola, other = make_user("ola_devices"), make_user("janek_devices")
    browser = Subscriber("https://push.example.net/send/abc")
    client = Client()
    client.force_login(ola)
    answer = client.post(
        "/notifications/push/subscribe/",
        {"endpoint": browser.endpoint, "p256dh": browser.p256dh, "auth": browser.auth},
        HTTP_USER_AGENT="Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36",
    )
    assert answer.status_code == 302 and answer["Location"] == "/notifications/settings/"
    (row,) = PushSubscription.objects.filter(user=ola)
    assert row.device == "Chrome on Android"
    page = client.get("/notifications/settings/").content.decode()
    assert "Chrome on Android" in page
    # Another player's form cannot remove it.
    intruder = Client()
    intruder.force_login(other)
    intruder.post(f"/notifications/push/{row.pk}/remove/")
    assert PushSubscription.objects.filter(pk=row.pk).exists()
    assert client.post(f"/notifications/push/{row.pk}/remove/").status_code == 302
    assert not PushSubscription.objects.filter(user=ola).exists()


@pytest.mark.parametrize(
    "change",
    [
        {"endpoint": "http://push.example.net/send/abc"},  # not https: not a push service
        {"endpoint": "not a url"},
        {"p256dh": "AAAA"},
        {"auth": ""},
    ],
)
def test_a_bad_subscription_is_refused_and_changes_nothing(change: dict[str, str]):
    ola = make_user("ola_bad_sub")
    browser = Subscriber("https://push.example.net/send/abc")
    client = Client()
    client.force_login(ola)
    data = {"endpoint": browser.endpoint, "p256dh": browser.p256dh, "auth": browser.auth}
    answer = client.post("/notifications/push/subscribe/", {**data, **change})
    assert answer.status_code == 400
    assert "not a push subscription" in answer.content.decode()
    assert not PushSubscription.objects.exists()
