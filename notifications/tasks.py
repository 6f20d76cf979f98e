"""Celery tasks of the notifications: thin wrappers that call one service each."""

from __future__ import annotations

from celery import shared_task

from core.tasks import periodic_task
from notifications import services


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
