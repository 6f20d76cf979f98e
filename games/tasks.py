"""Celery tasks of the games app: thin wrappers that call one service each.

The clock's three layers (DESIGN.md), one truth (the hand's ``deadline`` column):
(1) every move and websocket connect applies an overdue timeout first (services);
(2) a clock ticker next to every worker (a process of its own), in beat and in the
embedded web process reads the due deadlines from an index ten times a second and
applies them (``games.clock``): no task per move, nothing held in memory until a
deadline, and a timeout lands while any worker or beat lives;
(3) ``sweep_hands`` runs on beat every 2 s on the main queue: it starts again a ticker
of its worker that has died, applies whatever timeout is still overdue after
``SWEEP_TIMEOUT_GRACE``, deals due next hands and wakes stalled bots. A correspondence
game's are the tickers' day pass and its own queue's: the sweep steps in for them only
after ``SWEEP_DAY_GRACE``, ``SWEEP_DAY_BATCH`` at a time, so that a burst of them never
holds the main queue's worker.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import shared_task
from django.db.models import Exists, IntegerField, OuterRef, Q
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.utils import timezone

from core.tasks import periodic_task
from games import bots, clock, events, services
from games.models import Hand, Match, MatchPlayer

logger = logging.getLogger(__name__)

SWEEP_NEXT_HAND_GRACE = timedelta(seconds=services.NEXT_HAND_DELAY + 3)
SWEEP_BOT_GRACE = timedelta(seconds=5)
# The tickers apply a timeout within a tenth of a second; the sweep steps in only after
# this, so that it does not queue on the row lock a ticker holds.
SWEEP_TIMEOUT_GRACE = timedelta(seconds=2)
# A correspondence game's timeout or next hand left undone this long (its day pass or its
# queue's worker down or behind) is done by the sweep, this many of each at a time; its
# bot, waiting this long, is woken again.
SWEEP_DAY_GRACE = timedelta(minutes=1)
SWEEP_DAY_BATCH = 20


@shared_task(name="games.bot_act")
def bot_act_task(hand_id: int, version: int) -> bool:
    """Let the bot whose turn it is at ``version`` choose from its own view and act."""
    hand = Hand.objects.select_related("match").filter(pk=hand_id).first()
    if hand is None or hand.version != version or hand.is_over:
        return False
    state = hand.engine_state
    player = hand.match.players.filter(seat=state.to_move).first()
    if player is None or not player.bot_level:
        return False
    move = bots.choose_move(
        player.bot_level, state.view_for(state.to_move), seed=f"{hand_id}:{version}"
    )
    try:
        action = services.move_action(move, hand_id=hand_id, version=version, as_bot=True)
        services.execute(action)
    except services.Refused as exc:
        logger.info("bot move refused on hand %s v%s: %s", hand_id, version, exc.message)
        return False
    return True


@shared_task(name="games.analyse_hand")
def analyse_hand_task(analysis_id: int) -> bool:
    """Compute a hand analysis a player asked for (``services.analysis_request``)."""
    return services.analysis_run(analysis_id=analysis_id)


@shared_task(name="games.match_next_hand")
def match_next_hand_task(match_id: int, after_number: int) -> bool:
    return services.match_next_hand(match_id=match_id, after_number=after_number) is not None


@periodic_task("games.sweep_hands")
def sweep_hands() -> dict[str, int]:
    """Layer 3: dead tickers, clocks they left overdue, due next hands and waiting bots."""
    now = timezone.now()
    clock.revive_tickers()
    due, _ = clock.due_timeouts(now - SWEEP_TIMEOUT_GRACE)
    day_due, _ = clock.due_timeouts(now - SWEEP_DAY_GRACE, day=True, limit=SWEEP_DAY_BATCH)
    clock.apply_timeouts(due)
    clock.apply_timeouts(day_due)
    timeouts = len(due) + len(day_due)

    # One query each, however many tables play (a query per table every 2 s would take
    # a large share of a worker's time in a busy room).
    dealt = 0
    for match_id, number in [*_due_deals(now, day=False), *_due_deals(now, day=True)]:
        dealt += services.match_next_hand(match_id=match_id, after_number=number) is not None

    woken = 0
    bot_to_move = MatchPlayer.objects.filter(
        match=OuterRef("match"), seat=OuterRef("to_move")
    ).exclude(bot_level="")
    waited = Q(move_ms=0, turn_started_at__lte=now - SWEEP_BOT_GRACE) | Q(
        move_ms__gt=0, turn_started_at__lte=now - SWEEP_DAY_GRACE
    )
    stalled = (
        Hand.objects.filter(waited, outcome__isnull=True)
        .annotate(to_move=Cast(KT("state__to_move"), IntegerField()))
        .filter(Exists(bot_to_move))
    )
    for hand_id, version, move_ms in stalled.values_list("pk", "version", "move_ms"):
        queue = events.follow_up_queue(correspondence=bool(move_ms))
        bot_act_task.apply_async((hand_id, version), queue=queue)
        woken += 1
    return {"timeouts": timeouts, "dealt": dealt, "bots": woken}


def _due_deals(now: datetime, *, day: bool) -> list[tuple[int, int]]:
    """``(match id, hand number)`` of the ended hands whose next hand is overdue: a live
    game's after ``SWEEP_NEXT_HAND_GRACE``, or with ``day`` the ``SWEEP_DAY_BATCH`` first
    of a correspondence game's after ``SWEEP_DAY_GRACE``."""
    grace = SWEEP_DAY_GRACE if day else SWEEP_NEXT_HAND_GRACE
    hands = Hand.objects.filter(match__status=Match.Status.PLAYING, finished_at__lte=now - grace)
    hands = hands.filter(move_ms__gt=0) if day else hands.filter(move_ms=0)
    later = Hand.objects.filter(match=OuterRef("match"), number__gt=OuterRef("number"))
    rows = hands.exclude(Exists(later)).values_list("match_id", "number")
    return list(rows.order_by("finished_at")[:SWEEP_DAY_BATCH] if day else rows)
