"""Every change of a user's notices, of his e-mail and push choices and of his browsers'
push subscriptions, and the sending of e-mails and pushes."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone, translation

from accounts.models import User
from notifications import events, push
from notifications.models import (
    MAILED_AT_ONCE,
    MAILED_KINDS,
    PUSHED_KINDS,
    Kind,
    MailChoice,
    Notification,
    PushChoice,
    PushSubscription,
)
from notifications.selectors import mailed_kinds_of
from notifications.texts import notice_text
from notifications.unsubscribe import Unsubscribe, make_token
from social.presence import ONLINE_WINDOW, online_ids

logger = logging.getLogger(__name__)

# At most one e-mail a day about one game (or challenge).
MAIL_EVERY_SUBJECT = timedelta(days=1)
# At most one push in ten minutes about one game (or challenge, or tournament).
PUSH_EVERY_SUBJECT = timedelta(minutes=10)
# How long a push service keeps each kind of push for a browser that is offline (its
# TTL), which is also how long a push that failed is tried again; and its urgency
# (RFC 8030, section 5.3), which a phone saving its battery goes by.
PUSH_TTL = {
    Kind.YOUR_TURN: timedelta(days=1),
    Kind.CHALLENGED: timedelta(minutes=10),
    Kind.TOURNAMENT_STARTS: timedelta(minutes=5),
    Kind.MATCH_ENDED: timedelta(days=1),
}
PUSH_URGENCY = {
    Kind.YOUR_TURN: "normal",
    Kind.CHALLENGED: "high",
    Kind.TOURNAMENT_STARTS: "high",
    Kind.MATCH_ENDED: "low",
}
# Browsers one account keeps subscribed; a new one beyond it replaces the oldest.
PUSH_DEVICES = 10


def notification_raise(
    *,
    owner_id: int,
    kind: str,
    key: str,
    params: dict[str, Any] | None = None,
    link: str = "",
    subject: str = "",
    now: datetime | None = None,
) -> Notification | None:
    """Store the notice ``key`` for ``owner_id`` once: raised again (by this process or
    another at the same time) it is not stored a second time, and None is returned. A
    new notice reaches the owner's open pages after the commit, and one of a kind he
    takes by e-mail is queued for it. Runs in the caller's transaction, or in its own."""
    now = now or timezone.now()
    with transaction.atomic():
        notification, created = Notification.objects.get_or_create(
            owner_id=owner_id,
            key=key,
            defaults={
                "kind": kind,
                "params": params or {},
                "link": link,
                "subject": subject,
                "created_at": now,
            },
        )
        if not created:
            return None
        if kind in MAILED_KINDS and _mails(owner_id, kind):
            notification.mail = Notification.Mail.PENDING
            notification.save(update_fields=["mail"])
            at_once = kind in MAILED_AT_ONCE
            events.mail_on_commit(owner_id, countdown=0.0 if at_once else events.MAIL_DELAY)
        if kind in PUSHED_KINDS and _pushes(owner_id, kind):
            notification.push = Notification.Push.PENDING
            notification.save(update_fields=["push"])
            events.push_on_commit(notification.pk)
        events.changed_on_commit(owner_id)
    return notification


def notification_mail_cancel(*, owner_id: int, key: str) -> None:
    """The notice ``key`` is no longer worth an e-mail or a push (the challenge it tells
    of is over): neither is sent, if it was not already."""
    notices = Notification.objects.filter(owner_id=owner_id, key=key)
    notices.filter(mail=Notification.Mail.PENDING).update(mail=Notification.Mail.SKIPPED)
    notices.filter(push=Notification.Push.PENDING).update(push=Notification.Push.SKIPPED)


def notifications_withdraw(
    *,
    owner_ids: Iterable[int],
    kind: str,
    key_prefix: str,
    keep: tuple[int, str] | None = None,
    now: datetime | None = None,
) -> int:
    """The notices of ``kind`` of ``owner_ids`` whose key starts with ``key_prefix`` tell
    of what is over (a turn that passed), all but ``keep`` (its owner's id and key: the
    notice that still holds): they are marked read, so that the bell no longer counts
    them, and never mailed, if they were not already. The pages of each owner whose bell
    changed redraw it after the commit. Returns how many notices changed."""
    now = now or timezone.now()
    over = Notification.objects.filter(
        owner_id__in=list(owner_ids), kind=kind, key__startswith=key_prefix
    ).filter(Q(read_at__isnull=True) | Q(mail=Notification.Mail.PENDING))
    if keep is not None:
        over = over.exclude(owner_id=keep[0], key=keep[1])
    with transaction.atomic():
        rows = list(over.values_list("pk", "owner_id", "read_at"))
        if not rows:
            return 0
        pks = [pk for pk, _owner, _read in rows]
        Notification.objects.filter(pk__in=pks, mail=Notification.Mail.PENDING).update(
            mail=Notification.Mail.SKIPPED
        )
        Notification.objects.filter(pk__in=pks, read_at__isnull=True).update(read_at=now)
        for owner_id in {owner for _pk, owner, read_at in rows if read_at is None}:
            events.changed_on_commit(owner_id)
    return len(rows)


def _mails(user_id: int, kind: str) -> bool:
    has_address = User.objects.filter(pk=user_id, is_active=True).exclude(email="").exists()
    return has_address and kind in mailed_kinds_of(user_id)


def _pushes(user_id: int, kind: str) -> bool:
    if not push.enabled():
        return False
    subscribed = PushSubscription.objects.filter(user_id=user_id, user__is_active=True).exists()
    off = PushChoice.objects.filter(user_id=user_id, kind=kind, enabled=False).exists()
    return subscribed and not off


def notifications_mark_read(
    *, user: User, ids: Iterable[int] | None = None, now: datetime | None = None
) -> int:
    """Mark read the user's own notices among ``ids`` (every unread one when None);
    another user's ids change nothing. Returns how many were marked."""
    now = now or timezone.now()
    with transaction.atomic():
        unread = Notification.objects.filter(owner=user, read_at__isnull=True)
        if ids is not None:
            unread = unread.filter(pk__in=list(ids))
        marked = unread.update(read_at=now)
        if marked:
            events.changed_on_commit(user.pk)
    return marked


def mail_choices_set(*, user: User, mailed: Iterable[str]) -> None:
    """Notices of the kinds in ``mailed`` reach ``user`` by e-mail, the other kinds that
    can be mailed do not. A changed choice spends the unsubscribe links made for it."""
    wanted = set(mailed)
    with transaction.atomic():
        for kind in MAILED_KINDS:
            _choice_set(user.pk, kind, enabled=kind in wanted)


def _choice_set(user_id: int, kind: str, *, enabled: bool) -> bool:
    choice, _created = MailChoice.objects.select_for_update().get_or_create(
        user_id=user_id, kind=kind
    )
    if choice.enabled == enabled:
        return False
    choice.enabled = enabled
    choice.version += 1
    choice.save(update_fields=["enabled", "version"])
    return True


def mail_versions(user_id: int, kinds: Iterable[str]) -> dict[str, int]:
    """The current version of each of the user's choices of ``kinds`` (0 for no row)."""
    rows = dict(
        MailChoice.objects.filter(user_id=user_id, kind__in=list(kinds)).values_list(
            "kind", "version"
        )
    )
    return {kind: rows.get(kind, 0) for kind in kinds}


def unsubscribe_apply(*, unsubscribe: Unsubscribe) -> list[str]:
    """Stop the e-mails a link names, for its own user only, and only the choices it
    was made for (a replayed or outdated link changes nothing). Returns the kinds it
    stopped."""
    stopped = []
    with transaction.atomic():
        for kind, version in sorted(unsubscribe.versions.items()):
            if kind not in MAILED_KINDS:
                continue
            choice, _created = MailChoice.objects.select_for_update().get_or_create(
                user_id=unsubscribe.user_id, kind=kind
            )
            if choice.version != version or not choice.enabled:
                continue
            _choice_set(unsubscribe.user_id, kind, enabled=False)
            stopped.append(kind)
    return stopped


def notifications_mail_send(*, user_id: int, now: datetime | None = None) -> int:
    """Send the user's pending notices in one e-mail, unless he has a page open (he sees
    them on it) or had an e-mail about the same game within ``MAIL_EVERY_SUBJECT``, or has
    turned that kind off since. Locks the user's row, so two tasks never mail the same
    notice; a mail server that fails raises and leaves every notice pending for the
    retry. Returns how many notices the e-mail carried."""
    now = now or timezone.now()
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user_id)
        pending = list(
            user.notifications.filter(mail=Notification.Mail.PENDING).order_by("created_at", "pk")
        )
        if not pending:
            return 0
        mailed, skipped = _mail_split(user, pending, now=now)
        if mailed:
            _mail_message(user, mailed).send()
        Notification.objects.filter(pk__in=[n.pk for n in mailed]).update(
            mail=Notification.Mail.SENT, mailed_at=now
        )
        Notification.objects.filter(pk__in=[n.pk for n in skipped]).update(
            mail=Notification.Mail.SKIPPED
        )
    return len(mailed)


def _mail_split(
    user: User, pending: list[Notification], *, now: datetime
) -> tuple[list[Notification], list[Notification]]:
    """The pending notices to mail now, and those never to be mailed."""
    if not user.email or not user.is_active or online_ids([user.pk], now=now.timestamp()):
        return [], pending
    wanted = set(mailed_kinds_of(user.pk))
    recent = set(
        user.notifications.filter(
            mail=Notification.Mail.SENT, mailed_at__gt=now - MAIL_EVERY_SUBJECT
        ).values_list("subject", flat=True)
    )
    mailed, skipped = [], []
    for notification in reversed(pending):  # the latest notice of a game speaks for it
        subject = notification.subject or notification.key
        if notification.kind not in wanted or subject in recent:
            skipped.append(notification)
        else:
            recent.add(subject)
            mailed.append(notification)
    mailed.reverse()
    return mailed, skipped


def site_url(path: str) -> str:
    return f"{settings.SITE_URL}{path}"


def _mail_message(user: User, notices: list[Notification]) -> EmailMultiAlternatives:
    kinds = sorted({n.kind for n in notices})
    unsubscribe = site_url(
        f"/notifications/unsubscribe/{make_token(user.pk, mail_versions(user.pk, kinds))}/"
    )
    with translation.override(user.language or settings.LANGUAGE_CODE):
        lines = [(notice_text(n), site_url(n.link) if n.link else "") for n in notices]
        context = {
            "user": user,
            "lines": lines,
            "kinds": [Kind(k).label for k in kinds],
            "unsubscribe": unsubscribe,
            "settings_url": site_url("/notifications/settings/"),
        }
        if len(notices) == 1:
            subject = lines[0][0]
        else:
            subject = render_to_string("notifications/email.txt#subject", context)
        body = render_to_string("notifications/email.txt#body", context)
    return EmailMultiAlternatives(
        subject=settings.EMAIL_SUBJECT_PREFIX + " ".join(subject.split()),
        body=body.strip() + "\n",
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )


def notifications_mail_due(*, now: datetime | None = None) -> int:
    """Queue the e-mail of every user with a notice pending longer than the e-mail's
    delay (its task lost with a worker, say). Returns how many users."""
    now = now or timezone.now()
    late = now - timedelta(seconds=events.MAIL_DELAY * 2)
    users = (
        Notification.objects.filter(mail=Notification.Mail.PENDING, created_at__lte=late)
        .values_list("owner_id", flat=True)
        .distinct()
    )
    for user_id in users:
        events.mail_on_commit(user_id, countdown=0.0)
    return len(users)


# --- push ---------------------------------------------------------------------------------


def push_subscription_add(
    *, user: User, endpoint: str, p256dh: str, auth: str, device: str, now: datetime | None = None
) -> PushSubscription:
    """``user`` takes pushes in the browser that subscribed at ``endpoint`` (one browser
    is one row: subscribed again, for him or for another account, it is moved, not
    doubled). Beyond ``PUSH_DEVICES`` browsers his oldest is dropped."""
    now = now or timezone.now()
    with transaction.atomic():
        User.objects.select_for_update().get(pk=user.pk)
        subscription, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint,
            defaults={
                "user": user,
                "p256dh": p256dh,
                "auth": auth,
                "device": device[:80],
                "created_at": now,
            },
        )
        kept = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")
        PushSubscription.objects.filter(
            pk__in=list(kept.values_list("pk", flat=True)[PUSH_DEVICES:])
        ).delete()
    return subscription


def push_subscription_remove(
    *, user: User, subscription_id: int | None = None, endpoint: str | None = None
) -> int:
    """Stop pushes to one of ``user``'s own browsers, named by its row or its endpoint;
    another user's changes nothing. Returns how many were removed (0 or 1)."""
    mine = PushSubscription.objects.filter(user=user)
    if subscription_id is not None:
        mine = mine.filter(pk=subscription_id)
    elif endpoint:
        mine = mine.filter(endpoint=endpoint)
    else:
        return 0
    removed, _kinds = mine.delete()
    return removed


def push_choices_set(*, user: User, pushed: Iterable[str]) -> None:
    """Notices of the kinds in ``pushed`` reach ``user``'s browsers by push, the other
    kinds that can be pushed do not."""
    wanted = set(pushed)
    with transaction.atomic():
        for kind in PUSHED_KINDS:
            PushChoice.objects.update_or_create(
                user=user, kind=kind, defaults={"enabled": kind in wanted}
            )


@dataclass
class PushRun:
    """What one run of a notice's push did: how many browsers took it, and which ones
    are to be tried again (after ``retry_after`` seconds, when a push service said)."""

    delivered: int = 0
    retry: list[int] = field(default_factory=list)
    retry_after: float | None = None
    look_again: bool = False


def notification_push_send(
    *,
    notification_id: int,
    subscription_ids: Iterable[int] | None = None,
    first_look: bool = True,
    now: datetime | None = None,
) -> PushRun:
    """Push the notice to its owner's browsers (those of ``subscription_ids`` only, when
    given: a retry), unless a page of the site is open (he sees the bell) or he read it,
    turned its kind off, or had a push about the same game within ``PUSH_EVERY_SUBJECT``.
    A page seen within ``ONLINE_WINDOW`` at the first look may have just closed: the
    run asks to look again once (``look_again``). A browser whose push service says it is
    gone is forgotten; one that failed is named in ``retry`` until the push's time to
    live has passed. Locks the notice while it decides, not while it sends."""
    now = now or timezone.now()
    with transaction.atomic():
        notification = (
            Notification.objects.select_for_update(of=("self",))
            .select_related("owner")
            .filter(pk=notification_id)
            .first()
        )
        if notification is None:
            return PushRun()
        if notification.push == Notification.Push.PENDING:
            verdict = _push_verdict(notification, first_look=first_look, now=now)
            if verdict is None:
                return PushRun(look_again=True)
            notification.push = verdict
            notification.pushed_at = now
            notification.save(update_fields=["push", "pushed_at"])
        if notification.push != Notification.Push.SENDING:
            return PushRun()
        ttl = PUSH_TTL.get(notification.kind, timedelta(days=1))
        if now >= notification.pushed_at + ttl:
            logger.info("push of notice %s given up: its time to live passed", notification.pk)
            _push_done(notification.pk)
            return PushRun()
        targets = PushSubscription.objects.filter(user_id=notification.owner_id)
        if subscription_ids is not None:
            targets = targets.filter(pk__in=list(subscription_ids))
        targets = list(targets)
        message = _push_message(notification, ttl=ttl, now=now)
    run = PushRun()
    for subscription in targets:
        result = push.send(subscription.info(), message, now=now)
        if result.outcome is push.Outcome.DELIVERED:
            run.delivered += 1
        elif result.outcome is push.Outcome.GONE:
            PushSubscription.objects.filter(pk=subscription.pk).delete()
        elif result.outcome is push.Outcome.RETRY:
            run.retry.append(subscription.pk)
            if result.retry_after is not None:
                run.retry_after = max(run.retry_after or 0.0, result.retry_after)
    if not run.retry:
        _push_done(notification.pk)
    return run


def _push_verdict(notification: Notification, *, first_look: bool, now: datetime) -> str | None:
    """SENDING or SKIPPED for a pending notice, or None to look again later."""
    owner = notification.owner
    skipped = Notification.Push.SKIPPED
    if not push.enabled() or not owner.is_active or notification.read_at is not None:
        return skipped
    if PushChoice.objects.filter(user=owner, kind=notification.kind, enabled=False).exists():
        return skipped
    if online_ids([owner.pk], now=now.timestamp()):
        return None if first_look else skipped
    subject = notification.subject or notification.key
    recent = (
        Notification.objects.filter(
            owner=owner,
            push__in=(Notification.Push.SENDING, Notification.Push.SENT),
            pushed_at__gt=now - PUSH_EVERY_SUBJECT,
        )
        .exclude(pk=notification.pk)
        .filter(Q(subject=subject) | Q(subject="", key=subject))
        .exists()
    )
    return skipped if recent else Notification.Push.SENDING


def _push_done(notification_id: int) -> None:
    Notification.objects.filter(pk=notification_id, push=Notification.Push.SENDING).update(
        push=Notification.Push.SENT
    )


def _push_message(notification: Notification, *, ttl: timedelta, now: datetime) -> push.Message:
    language = notification.owner.language or settings.LANGUAGE_CODE
    with translation.override(language):
        body = notice_text(notification)
    return push.Message(
        title=settings.SITE_NAME,
        body=body,
        url=site_url(notification.link or "/notifications/"),
        tag=notification.subject or notification.key,
        lang=language,
        ttl=int(ttl.total_seconds()),
        urgency=PUSH_URGENCY.get(notification.kind, "normal"),
    )


def notifications_push_due(*, now: datetime | None = None) -> int:
    """Queue the push of every notice still waiting for its first look after
    ``2 × ONLINE_WINDOW`` (its task lost with a worker). Returns how many."""
    now = now or timezone.now()
    late = now - timedelta(seconds=2 * ONLINE_WINDOW)
    waiting = list(
        Notification.objects.filter(push=Notification.Push.PENDING, created_at__lte=late)
        .order_by("created_at")
        .values_list("pk", flat=True)[:1000]
    )
    for notification_id in waiting:
        events.push_on_commit(notification_id, first_look=False)
    return len(waiting)
