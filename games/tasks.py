"""Celery tasks of the games app: thin wrappers that call one service each.

The clock's three layers (DESIGN.md): a move checks the deadline itself (services);
``hand_timeout_task`` is scheduled for each deadline and applies the timeout only if
the hand's version has not moved; ``sweep_hands`` runs on beat every 2 s and catches
whatever a lost task or a killed worker left behind.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from celery import shared_task
from django.db.models import Max
from django.utils import timezone

from games import bots, services
from games.models import Hand, Match

logger = logging.getLogger(__name__)

SWEEP_NEXT_HAND_GRACE = timedelta(seconds=services.NEXT_HAND_DELAY + 3)
SWEEP_BOT_GRACE = timedelta(seconds=5)


# A countdown may fire a little before its ETA (timer precision, clocks of two machines);
# waiting out a short remainder here beats leaving the timeout to the 2-second sweeper.
EARLY_WAIT_MAX = 2.0


@shared_task(name="games.hand_timeout")
def hand_timeout_task(hand_id: int, version: int) -> bool:
    """Layer 2: apply the timeout of ``hand_id`` if it is still at ``version`` when due."""
    deadline = (
        Hand.objects.filter(pk=hand_id, version=version).values_list("deadline", flat=True).first()
    )
    if deadline is None:
        return False  # the hand moved on (or ended): this task is stale
    early = (deadline - timezone.now()).total_seconds()
    if early > EARLY_WAIT_MAX:
        hand_timeout_task.apply_async((hand_id, version), eta=deadline)
        return False
    if early > 0:
        time.sleep(early)
    return services.hand_timeout(hand_id=hand_id, version=version)


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
        services.hand_act(hand_id=hand_id, move=move, version=version, as_bot=True)
    except services.Refused as exc:
        logger.info("bot move refused on hand %s v%s: %s", hand_id, version, exc.message)
        return False
    return True


@shared_task(name="games.match_next_hand")
def match_next_hand_task(match_id: int, after_number: int) -> bool:
    return services.match_next_hand(match_id=match_id, after_number=after_number) is not None


@shared_task(name="games.sweep_hands")
def sweep_hands() -> dict[str, int]:
    """Layer 3: overdue clocks, due next hands and waiting bots, whatever happened to tasks."""
    now = timezone.now()
    timeouts = 0
    # Each overdue hand gets its own timeout task, so that the worker's threads apply
    # them side by side (after a lost worker there may be many at once).
    for hand_id, version in Hand.objects.filter(
        deadline__lte=now, outcome__isnull=True
    ).values_list("pk", "version"):
        hand_timeout_task.delay(hand_id, version)
        timeouts += 1

    dealt = 0
    playing = Match.objects.filter(status=Match.Status.PLAYING).annotate(last=Max("hands__number"))
    for match in playing:
        last = match.hands.filter(number=match.last).first()
        if (
            last
            and last.is_over
            and last.finished_at
            and last.finished_at <= now - SWEEP_NEXT_HAND_GRACE
        ):
            dealt += (
                services.match_next_hand(match_id=match.pk, after_number=last.number) is not None
            )

    woken = 0
    stalled = Hand.objects.filter(
        outcome__isnull=True, turn_started_at__lte=now - SWEEP_BOT_GRACE
    ).select_related("match")
    for hand in stalled:
        to_move = hand.state["to_move"]
        if hand.match.players.filter(seat=to_move).exclude(bot_level="").exists():
            bot_act_task.delay(hand.pk, hand.version)
            woken += 1
    return {"timeouts": timeouts, "dealt": dealt, "bots": woken}
