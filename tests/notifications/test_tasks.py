"""The notice e-mails on the real stack: a `celery worker` on PostgreSQL and Redis runs
the e-mail task and sends over SMTP to a local sink, as production does."""

from __future__ import annotations

import pytest
from django.utils import timezone

from bench.processes import (
    base_env,
    celery_worker_args,
    database_url_for_processes,
    running,
    wait_for_log,
    wait_until,
)
from bench.smtp_sink import SmtpSink
from games.models import Hand
from notifications import selectors, tasks
from notifications.models import Kind, Notification
from tests.factories import act_first_legal, first_hand, make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]


def to_move(hand: Hand):
    return hand.match.players.get(seat=hand.engine_state.to_move).user


def test_a_turn_passed_before_its_email_leaves_is_neither_mailed_nor_counted_by_the_bell(
    tmp_path,
):
    table = make_table(players=2, move_days=3, name="Listowna")
    log = tmp_path / "worker.log"
    with SmtpSink() as sink:
        env = base_env(
            DATABASE_URL=database_url_for_processes(),
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=str(sink.port),
            EMAIL_USE_TLS="false",
        )
        # One thread: the tasks run in the order they were sent.
        with running(celery_worker_args(concurrency=1), env=env, log=log) as worker:
            wait_for_log(log, "ready.", proc=worker)
            hand = first_hand(table, timezone.now())
            first = to_move(hand)
            assert Notification.objects.get(owner=first, kind=Kind.YOUR_TURN).mail == "pending"
            # He moves (his page closed since) within the minutes the e-mail waits.
            hand = act_first_legal(hand, timezone.now())
            second = to_move(hand)
            assert second != first
            # Both e-mail tasks, as the worker runs them when they come due.
            tasks.notifications_mail.delay(first.pk)
            tasks.notifications_mail.delay(second.pk)
            wait_until(
                lambda: len(sink.messages) >= 1, timeout=30, what="the second player's e-mail"
            )
    assert [message["To"] for message in sink.messages] == [second.email]
    assert "Twój ruch przy stole Listowna." in sink.messages[0]["Subject"]  # the site's language
    # The bell no longer counts the turn that passed; the one that stands, it does.
    assert selectors.unread_count(first) == 0
    assert Notification.objects.get(owner=first).mail == Notification.Mail.SKIPPED
    assert selectors.unread_count(second) == 1
