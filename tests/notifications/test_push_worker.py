"""A push through the real queue: the notice's task runs on a `celery worker` process, the
push service answers 503 and then 201, and the retry on the queue delivers it."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from bench.processes import (
    base_env,
    celery_worker_args,
    database_url_for_processes,
    running,
    wait_for_log,
)
from bench.push_service import PushService, Subscriber
from notifications import push, services
from notifications.models import Notification
from tests.factories import make_table, make_user
from tests.notifications.helpers import send_turn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


def test_a_push_the_push_service_refused_is_retried_on_the_queue_and_delivered(tmp_path, settings):
    key = push.generate_private_key_pem()
    settings.VAPID_PRIVATE_KEY = key
    settings.SITE_URL = "https://pan.example"
    env = base_env(
        DATABASE_URL=database_url_for_processes(),
        VAPID_PRIVATE_KEY=key,
        SITE_URL="https://pan.example",
    )
    log = tmp_path / "worker.log"
    with PushService() as service, running(celery_worker_args(), env=env, log=log) as worker:
        wait_for_log(log, "ready.", proc=worker)
        ola = make_user("ola_queue")
        browser = Subscriber(service.endpoint("phone"))
        services.push_subscription_add(
            user=ola, endpoint=browser.endpoint, p256dh=browser.p256dh, auth=browser.auth, device=""
        )
        service.answer("phone", 503, retry_after="1")
        table = make_table(owner=ola, name="Queue")
        send_turn(table, ola, hand_id=1, deadline=timezone.now() + timedelta(days=2))

        received = service.wait_for(2, timeout=60)
        assert [r.status for r in received] == [503, 201], log.read_text()[-3000:]
        assert browser.decrypt(received[1].body)["url"] == f"https://pan.example/tables/{table.pk}/"
        notice = Notification.objects.get(owner=ola)
        give_up = time.monotonic() + 30
        while notice.push != Notification.Push.SENT and time.monotonic() < give_up:
            time.sleep(0.1)
            notice.refresh_from_db()
        assert notice.push == Notification.Push.SENT
