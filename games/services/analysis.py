"""A player's request for the analysis of a finished hand, and its run (games.bots.analysis).

The request is one transaction: it refuses whoever did not play the hand, keeps a done
analysis (the result depends only on the hand, the seat and the budget), and queues at
most one per user at a time -- a partial unique index of the database says so, so two
requests at once cannot both start one. The computation runs in a Celery task on a queue
of its own (``CELERY_ANALYSIS_QUEUE``, a worker with few threads), so that its seconds
of work never hold up bots, clocks or tournaments; outside any transaction, it marks
the analysis running, writes its progress after each decision and its result at the end.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from core.tasks import task_on_commit
from games.bots.analysis import ANALYSIS_PLAYOUTS, analyse_hand
from games.models import Hand, HandAnalysis

logger = logging.getLogger(__name__)

ANALYSIS_TASK = "games.analyse_hand"
ANALYSIS_STALE = HandAnalysis.RUNNING_STALE
PENDING = (HandAnalysis.Status.QUEUED, HandAnalysis.Status.RUNNING)


def analysis_request(*, hand_id: int, user: User, now: datetime | None = None) -> HandAnalysis:
    """Start the analysis of ``user``'s decisions in the finished hand ``hand_id``, or
    give the one that exists for him (done, queued or running).

    Refused: the hand does not exist or is not over, ``user`` did not play it, or
    another of his analyses is queued or running.
    """
    now = now or timezone.now()
    with transaction.atomic():
        hand = Hand.objects.select_related("match").filter(pk=hand_id).first()
        if hand is None or not hand.is_over:
            raise Refused(_("Only a finished hand can be analysed."))
        player = None
        if user.is_authenticated:
            player = hand.match.players.filter(user=user).first()
        if player is None:
            raise Refused(_("Only the players of this hand can analyse it."))
        HandAnalysis.objects.filter(HandAnalysis.lost(now), user=user).update(
            status=HandAnalysis.Status.FAILED, finished_at=now
        )
        analysis = (
            HandAnalysis.objects.select_for_update()
            .filter(hand=hand, seat=player.seat, playouts=ANALYSIS_PLAYOUTS)
            .first()
        )
        if analysis is not None and analysis.status != HandAnalysis.Status.FAILED:
            return analysis
        if HandAnalysis.objects.filter(user=user, status__in=PENDING).exists():
            raise Refused(_("One of your analyses is still running; wait until it is done."))
        try:
            with transaction.atomic():
                if analysis is None:
                    analysis = HandAnalysis(hand=hand, seat=player.seat, playouts=ANALYSIS_PLAYOUTS)
                analysis.user = user
                analysis.status = HandAnalysis.Status.QUEUED
                analysis.done = analysis.total = 0
                analysis.result = None
                analysis.started_at = now
                analysis.finished_at = None
                analysis.save()
        except IntegrityError:
            # Another request of his (or for this seat) started one at the same moment.
            raise Refused(
                _("One of your analyses is still running; wait until it is done.")
            ) from None
        task_on_commit(ANALYSIS_TASK, (analysis.pk,))
    return analysis


def analysis_run(*, analysis_id: int, now: datetime | None = None) -> bool:
    """Mark a queued analysis running and compute it, writing its progress as it goes;
    False if there is none to run (done, failed or unknown). One running already is run
    again (its worker died and the broker gave the task to another). A failure marks it
    failed and is logged."""
    claimed = HandAnalysis.objects.filter(pk=analysis_id, status__in=PENDING).update(
        status=HandAnalysis.Status.RUNNING, started_at=now or timezone.now(), done=0, total=0
    )
    if not claimed:
        return False
    analysis = HandAnalysis.objects.select_related("hand__match__table").get(pk=analysis_id)
    running = HandAnalysis.objects.filter(pk=analysis_id, status=HandAnalysis.Status.RUNNING)

    def progress(done: int, total: int) -> None:
        running.update(done=done, total=total)

    try:
        result = _analyse(analysis, progress)
    except Exception:
        logger.exception("the analysis %s failed", analysis_id)
        running.update(status=HandAnalysis.Status.FAILED, finished_at=now or timezone.now())
        return False
    decisions = len(result["decisions"])
    return bool(
        running.update(
            status=HandAnalysis.Status.DONE,
            result=result,
            done=decisions,
            total=decisions,
            finished_at=now or timezone.now(),
        )
    )


def _analyse(analysis: HandAnalysis, progress: Callable[[int, int], None]) -> dict[str, Any]:
    hand = analysis.hand
    # Not at the top: the services load with the models (pairing's models import them),
    # before the selectors' package may.
    from games.selectors.analysis import hand_record

    start, moves = hand_record(hand)
    return analyse_hand(
        start,
        moves,
        analysis.seat,
        seed=f"hand-{hand.pk}-seat-{analysis.seat}",
        playouts=analysis.playouts,
        progress=progress,
    ).to_json()
