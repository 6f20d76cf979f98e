"""Changes of state for Learn: a completed lesson, and the first match against a bot."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from accounts.models import User
from games import services as games
from games.engine import Rules
from games.models import BotLevel, Table
from learn.models import LessonProgress

FIRST_MATCH_SECONDS = (600, 5)  # 10+5: time enough to think in one's first match


def lesson_complete(*, user: User, lesson: str, now: datetime) -> LessonProgress:
    """Records that ``user`` solved the lesson ``lesson``; solving it again keeps the
    first time."""
    progress, _created = LessonProgress.objects.get_or_create(
        user=user, lesson=lesson, defaults={"completed_at": now}
    )
    return progress


def first_match_start(*, user: User, now: datetime) -> Table:
    """A private table of two with the standard rules, ``user`` against the random bot,
    its match started. Refused as creating a table is (games' limits)."""
    base_seconds, increment_seconds = FIRST_MATCH_SECONDS
    with transaction.atomic():
        table = games.table_create(
            owner=user,
            name="",
            rules=Rules(),
            seats=2,
            base_seconds=base_seconds,
            increment_seconds=increment_seconds,
            is_public=False,
            rated=False,
        )
        games.table_add_bot(table_id=table.pk, by=user, position=1, level=BotLevel.RANDOM)
        games.match_start(table_id=table.pk, by=user, now=now)
    return table
