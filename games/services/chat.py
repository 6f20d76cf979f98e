"""The table's chat: anyone may post, players and spectators alike, unless he is muted
or writes too fast (a flood, which moderation hears of through ``signals.chat_flooded``)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games import events, signals
from games.models import ChatMessage, Table

CHAT_MAX_LENGTH = 300
CHAT_RATE = (5, 10)  # at most 5 messages in 10 seconds


def chat_post(*, table_id: int, user: User, text: str, now: datetime | None = None) -> ChatMessage:
    """Post to a table's chat: players and spectators; refused when muted or flooding."""
    now = now or timezone.now()
    text = " ".join((text or "").split())
    if not text:
        raise Refused(_("Write something first."))
    if len(text) > CHAT_MAX_LENGTH:
        raise Refused(_("A message has at most %(n)d characters.") % {"n": CHAT_MAX_LENGTH})
    _refuse_if_muted(user, now)
    limit, seconds = CHAT_RATE
    recent = ChatMessage.objects.filter(
        author=user, created_at__gte=now - timedelta(seconds=seconds)
    ).count()
    if recent >= limit:
        _chat_flooded(user, now)  # outside any transaction of ours: a flood mute must stay
    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise Refused(_("This table does not exist."))
        message = ChatMessage.objects.create(table=table, author=user, text=text)
        events.chat_changed_on_commit(table.pk)
    return message


def _refuse_if_muted(user: User, now: datetime) -> None:
    """Refuse a muted user's message, read fresh: a socket's user may predate the mute."""
    from accounts.notices import mute_notice

    user.refresh_from_db(fields=["muted_until", "mute_reason"])
    if user.is_muted(now):
        raise Refused(mute_notice(user, now=now))


def _chat_flooded(user: User, now: datetime) -> None:
    """Refuse a message over the chat rate. Moderation hears of it (``signals.chat_flooded``)
    and mutes a repeated flooder for a while; a user it has just muted is told so."""
    signals.chat_flooded.send(sender=ChatMessage, user_id=user.pk, now=now)
    _refuse_if_muted(user, now)
    raise Refused(_("You are writing too fast; wait a few seconds."))
