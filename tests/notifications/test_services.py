"""A notice is stored once even when two processes raise it at once, and only its owner
may read or mark it."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections
from django.test import Client

from notifications import services
from notifications.models import Kind, Notification
from tests.factories import make_user


def raise_turn(owner_id: int, key: str = "turn:1:x") -> Notification | None:
    return services.notification_raise(
        owner_id=owner_id, kind=Kind.YOUR_TURN, key=key, params={"table_name": "T", "owner": "o"}
    )


@pytest.mark.django_db(transaction=True)
def test_two_processes_raising_the_same_notice_store_it_once():
    ola = make_user("ola_twice")
    barrier = threading.Barrier(4)
    raised: list[Notification | None] = []

    def raise_it() -> None:
        try:
            barrier.wait()
            raised.append(raise_turn(ola.pk))
        finally:
            close_old_connections()

    threads = [threading.Thread(target=raise_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Notification.objects.filter(owner=ola).count() == 1
    assert len([n for n in raised if n is not None]) == 1  # one of them raised it


@pytest.mark.django_db
def test_only_the_owner_sees_and_marks_his_notices():
    ola, bob = make_user("ola_own_n"), make_user("bob_snoop")
    notice = raise_turn(ola.pk)
    ola_browser, bob_browser = Client(), Client()
    ola_browser.force_login(ola)
    bob_browser.force_login(bob)

    assert "Your move at the table T." in ola_browser.get("/notifications/").content.decode()
    assert "Your move at the table T." not in bob_browser.get("/notifications/").content.decode()
    assert "Your move at the table T." not in bob_browser.get("/rules/").content.decode()
    assert bob_browser.get(f"/notifications/{notice.pk}/").status_code == 404
    bob_browser.post("/notifications/read/", {"id": notice.pk})
    bob_browser.post("/notifications/read/")
    notice.refresh_from_db()
    assert notice.read_at is None

    bell = ola_browser.get("/rules/").content.decode()
    assert 'data-testid="bell-count" aria-hidden="true">1<' in bell
    ola_browser.post("/notifications/read/", {"id": notice.pk})
    notice.refresh_from_db()
    assert notice.read_at is not None
    assert 'data-testid="bell-count"' not in ola_browser.get("/rules/").content.decode()


@pytest.mark.django_db
def test_mark_all_read_and_following_a_notice():
    ola = make_user("ola_all")
    first, second = raise_turn(ola.pk, "a"), raise_turn(ola.pk, "b")
    Notification.objects.filter(pk=first.pk).update(link="/rules/")
    client = Client()
    client.force_login(ola)
    answer = client.get(f"/notifications/{first.pk}/")
    assert answer.status_code == 302 and answer["Location"] == "/rules/"
    page = client.get("/notifications/").content.decode()
    assert page.count('data-unread="yes"') == 1 and page.count('data-unread="no"') == 1
    answer = client.post("/notifications/read/")
    assert answer.status_code == 302
    second.refresh_from_db()
    assert second.read_at is not None


@pytest.mark.django_db
def test_a_mark_read_of_no_notice_is_refused_with_a_message_and_changes_nothing():
    ola = make_user("ola_bad")
    notice = raise_turn(ola.pk)
    client = Client()
    client.force_login(ola)
    answer = client.post("/notifications/read/", {"id": "all"}, follow=True)
    assert "That is not a notification: nothing was marked read." in answer.content.decode()
    notice.refresh_from_db()
    assert notice.read_at is None
