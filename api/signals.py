"""The event streams hear of matches starting and ending: games publishes nothing for
the API, so this floor listens to the match rows being saved (Django's ``post_save``)
and, once the change commits, sends each player who has a live token an ``api.event``
with his ``gameStart`` or ``gameFinish`` line (``api.streams.event_stream``)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from api import selectors
from api.models import AccessToken
from api.streams import API_EVENT
from core.broadcast import user_event_on_commit
from games.models import Match, MatchPlayer

ENDED = (Match.Status.FINISHED, Match.Status.ANNULLED)


def connect() -> None:
    post_save.connect(match_saved, sender=Match, dispatch_uid="api.match_saved")


def match_saved(
    sender: type[Match],
    instance: Match,
    created: bool,
    update_fields: frozenset[str] | None = None,
    **kwargs: Any,
) -> None:
    """A match began (its players are written after the row, in the same transaction:
    they are read after the commit) or ended."""
    if created:
        match_id, table_id = instance.pk, instance.table_id
        transaction.on_commit(lambda: announce(match_id, table_id, started=True))
    elif instance.status in ENDED and (update_fields is None or "status" in update_fields):
        match_id, table_id, status = instance.pk, instance.table_id, instance.status
        transaction.on_commit(lambda: announce(match_id, table_id, status=status))


def announce(match_id: int, table_id: int, *, started: bool = False, status: str = "") -> None:
    """Send the match's line to each of its people who holds a live token (nobody else
    has an event stream to hear it)."""
    players = list(
        MatchPlayer.objects.filter(match_id=match_id, user__isnull=False).values_list(
            "user_id", "seat"
        )
    )
    listening = set(
        AccessToken.objects.filter(
            owner_id__in=[user_id for user_id, _ in players], revoked_at__isnull=True
        ).values_list("owner_id", flat=True)
    )
    for user_id, seat in players:
        if user_id not in listening:
            continue
        if started:
            line = selectors.game_start_line(table_id=table_id, match_id=match_id, seat=seat)
        else:
            line = selectors.game_finish_line(
                table_id=table_id, match_id=match_id, seat=seat, status=status
            )
        user_event_on_commit(user_id, {"type": API_EVENT, "line": line})
