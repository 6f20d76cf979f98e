"""Reads of a user's notices: only ever his own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accounts.models import User
from core.cached import cached
from notifications.models import (
    MAILED_KINDS,
    PUSHED_KINDS,
    Kind,
    MailChoice,
    Notification,
    PushChoice,
    PushSubscription,
    mailed_by_default,
)
from notifications.texts import notice_text

BELL_LATEST = 6  # notices the bell's panel lists
PAGE_LATEST = 100  # notices /notifications/ lists


@dataclass(frozen=True)
class NoticeLine:
    id: int
    text: str
    link: str
    created_at: datetime
    unread: bool


# A notice as the lists draw it, whatever the language (its text is drawn on reading).
_LINE_FIELDS = ("id", "kind", "params", "link", "created_at", "read_at")
# The bell is kept per user in the cache until his notices change (``events``); this
# long at most.
BELL_KEPT = 600


def bell_key(user_id: int) -> str:
    return f"bell:{user_id}"


def _rows(user: User, limit: int) -> list[dict[str, Any]]:
    return list(Notification.objects.filter(owner=user).values(*_LINE_FIELDS)[:limit])


def _lines(rows: list[dict[str, Any]]) -> list[NoticeLine]:
    return [
        NoticeLine(
            id=row["id"],
            text=notice_text(Notification(kind=row["kind"], params=row["params"])),
            link=row["link"],
            created_at=row["created_at"],
            unread=row["read_at"] is None,
        )
        for row in rows
    ]


def unread_count(user: User) -> int:
    return Notification.objects.filter(owner=user, read_at__isnull=True).count()


def bell(user: User) -> dict[str, object]:
    """What the header's bell shows: the unread count and the latest notices, in the
    active language. Every page of a signed-in user shows it: it is read from the cache,
    where it is kept until a notice of his is raised or read (``events.changed_on_commit``
    forgets it)."""
    kept = cached(
        bell_key(user.pk),
        lambda: {"unread": unread_count(user), "latest": _rows(user, BELL_LATEST)},
        timeout=BELL_KEPT,
    )
    return {"unread": kept["unread"], "latest": _lines(kept["latest"])}


def page(user: User) -> list[NoticeLine]:
    return _lines(_rows(user, PAGE_LATEST))


def notification_for(user: User, notification_id: int) -> Notification | None:
    """The user's own notice ``notification_id``; None for another user's or none."""
    return Notification.objects.filter(owner=user, pk=notification_id).first()


def mailed_kinds(user: User) -> list[str]:
    """The kinds that may be mailed which reach ``user`` by e-mail."""
    return mailed_kinds_of(user.pk)


def mailed_kinds_of(user_id: int) -> list[str]:
    """The kinds that may be mailed which reach the user by e-mail: his choice, or the
    kind's default where he never chose (those mailed on request are off then)."""
    chosen = dict(MailChoice.objects.filter(user_id=user_id).values_list("kind", "enabled"))
    return [kind for kind in MAILED_KINDS if chosen.get(kind, mailed_by_default(kind))]


def mail_kind_choices() -> list[tuple[str, str]]:
    return [(kind.value, kind.label) for kind in MAILED_KINDS]


def site_kinds() -> list[str]:
    """Every kind's label: what the site tells of."""
    return [kind.label for kind in Kind]


def pushed_kinds(user: User) -> list[str]:
    """The kinds that may be pushed which reach ``user``'s browsers by push."""
    off = set(PushChoice.objects.filter(user=user, enabled=False).values_list("kind", flat=True))
    return [kind for kind in PUSHED_KINDS if kind not in off]


def push_kind_choices() -> list[tuple[str, str]]:
    return [(kind.value, kind.label) for kind in PUSHED_KINDS]


def push_devices(user: User) -> list[PushSubscription]:
    """The browsers ``user`` takes pushes in, oldest first."""
    return list(PushSubscription.objects.filter(user=user))
