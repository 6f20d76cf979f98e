"""What leaves a tournament service after its commit: group events, user events, tasks, mail.

Everything here is registered with ``transaction.on_commit`` (as in ``games.events``),
so a rolled-back change is never seen and a task never runs on a state that did not
happen.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation

from core.broadcast import send_on_commit, user_event_on_commit
from core.tasks import task_on_commit
from tournaments.signals import player_followed

logger = logging.getLogger(__name__)

# The tasks (tournaments.tasks) by their registered names: events never import tasks.
TASK_START, TASK_ADVANCE = "tournaments.start", "tournaments.advance"
FOLLOW_MOVED, FOLLOW_SEATED, FOLLOW_ELIMINATED = "moved", "seated", "eliminated"
FOLLOW_PAIRED = "paired"  # an arena seats a player again for his next game
# Not a move: the reminder a minute before the start rides on the same user event, so the
# sockets of the floors below need no new handler (tournaments.renderers tells them apart).
FOLLOW_REMINDER = "reminder"


def tournament_group(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def tournament_changed_on_commit(tournament_id: int) -> None:
    """Every open tournament page re-renders its standings, tables and status."""
    event = {"type": "tournament.changed", "tournament": tournament_id}
    send_on_commit(tournament_group(tournament_id), event)


def user_follow_on_commit(user_id: int, tournament_id: int, *, kind: str) -> None:
    """Every open page of the user goes where the tournament put him (his new table,
    or the tournament page once he is eliminated)."""
    user_event_on_commit(
        user_id, {"type": "user.follow", "tournament": tournament_id, "kind": kind}
    )
    player_followed.send(sender=None, user_id=user_id, tournament_id=tournament_id, kind=kind)


def user_reminder_on_commit(user_id: int, tournament_id: int) -> None:
    """Every open page of the user shows that the tournament starts in a minute."""
    user_follow_on_commit(user_id, tournament_id, kind=FOLLOW_REMINDER)


def schedule_advance_on_commit(tournament_id: int, *, countdown: float = 0.0) -> None:
    task_on_commit(TASK_ADVANCE, (tournament_id,), countdown=max(0.0, countdown))


def schedule_start_on_commit(tournament_id: int, *, eta: datetime) -> None:
    task_on_commit(TASK_START, (tournament_id,), eta=eta)


def cancelled_mail_on_commit(tournament_id: int) -> None:
    """Tell every registered user (by e-mail, in his language) that the tournament is off."""
    transaction.on_commit(lambda: _send_cancelled_mail(tournament_id))


def _send_cancelled_mail(tournament_id: int) -> None:
    from tournaments.models import Tournament

    tournament = Tournament.objects.get(pk=tournament_id)
    entries = tournament.entries.filter(user__isnull=False).select_related("user")
    for entry in entries:
        user = entry.user
        if not user.email:
            continue
        with translation.override(user.language or settings.LANGUAGE_CODE):
            context = {"tournament": tournament, "user": user}
            subject = render_to_string("tournaments/email_cancelled.txt#subject", context)
            body = render_to_string("tournaments/email_cancelled.txt#body", context)
        try:
            subject = settings.EMAIL_SUBJECT_PREFIX + " ".join(subject.split())
            send_mail(subject, body.strip(), None, [user.email])
        except Exception:  # one failed address must not keep the others uninformed
            logger.exception("could not tell %s that tournament %s is cancelled", user, tournament)
