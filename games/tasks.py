"""Celery tasks of the games app: thin wrappers that call one service each.

The clock's three layers (DESIGN.md), one truth (the hand's ``deadline`` column):
(1) every move and websocket connect applies an overdue timeout first (services);
(2) a clock ticker next to every worker (a process of its own), in beat and in the
embedded web process reads the due deadlines from an index ten times a second and
applies them (``games.clock``): no task per move, nothing held in memory until a
deadline, and a timeout lands while any worker or beat lives;
(3) ``sweep_hands`` runs on beat every 2 s on the main queue: it starts again a ticker
of its worker that has died, applies whatever timeout is still overdue after
``SWEEP_TIMEOUT_GRACE``, deals due next hands and wakes stalled bots.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from django.db.models import Exists, IntegerField, OuterRef
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.utils import timezone

from core.tasks import periodic_task
from games import bots, clock, services
from games.models import Hand, Match, MatchPlayer

logger = logging.getLogger(__name__)

SWEEP_NEXT_HAND_GRACE = timedelta(seconds=services.NEXT_HAND_DELAY + 3)
SWEEP_BOT_GRACE = timedelta(seconds=5)
# The tickers apply a timeout within a tenth of a second; the sweep steps in only after
# this, so that it does not queue on the row lock a ticker holds.
SWEEP_TIMEOUT_GRACE = timedelta(seconds=2)


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
    clock.apply_timeouts(due)
    timeouts = len(due)

    # One query each, however many tables play (a query per table every 2 s would take
    # a large share of a worker's time in a busy room).
    dealt = 0
    due_deals = Hand.objects.filter(
        match__status=Match.Status.PLAYING, finished_at__lte=now - SWEEP_NEXT_HAND_GRACE
    ).exclude(Exists(Hand.objects.filter(match=OuterRef("match"), number__gt=OuterRef("number"))))
    for match_id, number in due_deals.values_list("match_id", "number"):
        dealt += services.match_next_hand(match_id=match_id, after_number=number) is not None

    woken = 0
    bot_to_move = MatchPlayer.objects.filter(
        match=OuterRef("match"), seat=OuterRef("to_move")
    ).exclude(bot_level="")
    stalled = (
        Hand.objects.filter(outcome__isnull=True, turn_started_at__lte=now - SWEEP_BOT_GRACE)
        .annotate(to_move=Cast(KT("state__to_move"), IntegerField()))
        .filter(Exists(bot_to_move))
    )
    for hand_id, version in stalled.values_list("pk", "version"):
        bot_act_task.delay(hand_id, version)
        woken += 1
    return {"timeouts": timeouts, "dealt": dealt, "bots": woken}
