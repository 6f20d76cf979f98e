"""Celery tasks of the notifications: thin wrappers that call one service each."""

from __future__ import annotations

import random

from celery import shared_task

from core.tasks import periodic_task
from notifications import events, services

# A push service that answers 429 or 5xx (or not at all) is tried again after a wait that
# doubles each time, from PUSH_BACKOFF seconds up to PUSH_BACKOFF_MAX, drawn at random
# below it (full jitter), unless it said how long (Retry-After); until the push's time to
# live has passed (services.PUSH_TTL).
PUSH_BACKOFF = 10.0
PUSH_BACKOFF_MAX = 3600.0


# A mail server that is down (refused, timed out, an SMTP error: all OSErrors) delays the
# e-mail: the task tries again later and later, its notices pending meanwhile.
@shared_task(
    name="notifications.mail",
    autoretry_for=(OSError,),
    retry_backoff=30,
    retry_backoff_max=3600,
    retry_jitter=True,
    max_retries=None,
)
def notifications_mail(user_id: int) -> int:
    return services.notifications_mail_send(user_id=user_id)


@periodic_task("notifications.mail_sweep")
def notifications_mail_sweep() -> int:
    """Beat's sweep: the e-mails whose task was lost."""
    return services.notifications_mail_due()


def push_backoff(retries: int, retry_after: float | None) -> float:
    """Seconds before the next try of a push that failed ``retries`` times already."""
    if retry_after is not None:
        return min(retry_after, PUSH_BACKOFF_MAX)
    ceiling = min(PUSH_BACKOFF_MAX, PUSH_BACKOFF * 2**retries)
    return random.uniform(ceiling / 2, ceiling)


@shared_task(name=events.TASK_PUSH, bind=True, max_retries=None, acks_late=True)
def notifications_push(
    self, notification_id: int, subscription_ids: list[int] | None = None, first_look: bool = True
) -> int:
    """Push one notice to its owner's browsers; the browsers that failed are tried again
    on the queue, and a notice judged at a page seen just now is judged once more."""
    run = services.notification_push_send(
        notification_id=notification_id, subscription_ids=subscription_ids, first_look=first_look
    )
    if run.look_again:
        self.apply_async(args=(notification_id, None, False), countdown=events.PUSH_LOOK_AGAIN)
    elif run.retry:
        raise self.retry(
            args=(notification_id, run.retry, False),
            countdown=push_backoff(self.request.retries, run.retry_after),
        )
    return run.delivered


@periodic_task("notifications.push_sweep")
def notifications_push_sweep() -> int:
    """Beat's sweep: the pushes whose task was lost."""
    return services.notifications_push_due()
