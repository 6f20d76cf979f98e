"""A finished hand's analysis as its player reads it on the replay page ("where did I
lose it"): his decisions with the chance of losing after each move, in words, or his
place in the queue while it waits for the analysis worker."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.bots.analysis import ANALYSIS_PLAYOUTS
from games.engine import HandState, deal
from games.models import Hand, HandAnalysis
from games.selectors.labels import cards_in_words


@dataclass(frozen=True)
class AnalysisRow:
    """One decision: ``step`` is the replay's step of the move made; chances in percent."""

    step: int
    made: str
    made_loss: int
    best: str
    best_loss: int
    rise: int | None  # percentage points since his previous decision (None: his first)
    cost: int  # percentage points the move made lost beside the best
    options: list[tuple[str, int]]
    decisive: bool = False
    costliest: bool = False

    @property
    def made_percent(self) -> str:
        return f"{self.made_loss}%"

    @property
    def best_percent(self) -> str:
        return f"{self.best_loss}%"


@dataclass(frozen=True)
class AnalysisView:
    """What the replay page shows a player of the hand. ``status`` is ``""`` before he
    asked, else a ``HandAnalysis.Status``; ``lost``: he is the loser of the hand;
    ``place``: his place in the analysis queue while it is queued (else 0)."""

    hand_id: int
    status: str
    lost: bool = False
    place: int = 0
    done: int = 0
    total: int = 0
    playouts: int = ANALYSIS_PLAYOUTS
    seconds: float | None = None
    rows: tuple[AnalysisRow, ...] = ()
    decisive: AnalysisRow | None = None
    costliest: AnalysisRow | None = None

    @property
    def pending(self) -> bool:
        """Queued or running: the panel polls itself until it is done or failed."""
        return self.status in (HandAnalysis.Status.QUEUED, HandAnalysis.Status.RUNNING)

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


def move_in_words(move: dict[str, Any]) -> str:
    """``{"type": "play", "cards": ["QH"]}`` -> 'Q♥'; a pick-up -> 'pick up 3 cards'."""
    if move["type"] == "pickup":
        count = move["count"]
        return ngettext("pick up %(n)d card", "pick up %(n)d cards", count) % {"n": count}
    if move["type"] == "timeout":
        return _("ran out of time")
    return cards_in_words(move["cards"])


def hand_analysis(hand: Hand, user: User | None) -> AnalysisView | None:
    """The analysis of ``user``'s own decisions in ``hand``; None unless he played it."""
    if user is None or not user.is_authenticated:
        return None
    player = hand.match.players.filter(user=user).first()
    if player is None:
        return None
    analysis = (
        HandAnalysis.objects.filter(hand=hand, seat=player.seat).order_by("-started_at").first()
    )
    lost = bool(hand.outcome) and hand.outcome.get("loser") == player.seat
    if analysis is None:
        return AnalysisView(hand_id=hand.pk, status="", lost=lost)
    seconds = None
    if analysis.finished_at is not None:  # started_at: when the worker began
        seconds = round((analysis.finished_at - analysis.started_at).total_seconds(), 1)
    rows: list[AnalysisRow] = []
    decisive = costliest = None
    if analysis.status == HandAnalysis.Status.DONE and analysis.result:
        result = analysis.result
        for i, d in enumerate(result["decisions"]):
            # His first decision has no previous one to rise from. A rise or a cost of
            # less than half a point shows as 0 points: it is no decisive turn, and no
            # costly choice, in words.
            rise = None if i == 0 or d["rise"] is None else _percent(d["rise"])
            cost = _percent(d["cost"])
            row = AnalysisRow(
                step=d["step"] + 1,
                made=move_in_words(d["made"]["move"]),
                made_loss=_percent(d["made"]["loss"]),
                best=move_in_words(d["best"]["move"]),
                best_loss=_percent(d["best"]["loss"]),
                rise=rise,
                cost=cost,
                options=[(move_in_words(m["move"]), _percent(m["loss"])) for m in d["moves"]],
                decisive=i == result["decisive"] and rise is not None and rise > 0,
                costliest=i == result["costliest"] and cost > 0,
            )
            rows.append(row)
            decisive = row if row.decisive else decisive
            costliest = row if row.costliest else costliest
    return AnalysisView(
        hand_id=hand.pk,
        status=analysis.status,
        lost=lost,
        place=analysis_queue_place(analysis),
        done=analysis.done,
        total=analysis.total,
        playouts=analysis.playouts,
        seconds=seconds,
        rows=tuple(rows),
        decisive=decisive,
        costliest=costliest,
    )


def _percent(chance: float) -> int:
    return round(100 * chance)


def analysis_queue_place(analysis: HandAnalysis, *, now: datetime | None = None) -> int:
    """Where a queued ``analysis`` waits: 1 + the analyses the worker takes before it
    (those running, and those queued before it), lost ones left out; 0 unless queued."""
    if analysis.status != HandAnalysis.Status.QUEUED:
        return 0
    asked_before = Q(started_at__lt=analysis.started_at) | Q(
        started_at=analysis.started_at, pk__lt=analysis.pk
    )
    ahead = (
        HandAnalysis.objects.filter(
            Q(status=HandAnalysis.Status.RUNNING)
            | (Q(status=HandAnalysis.Status.QUEUED) & asked_before)
        )
        .exclude(HandAnalysis.lost(now or timezone.now()))
        .count()
    )
    return 1 + ahead


def hand_record(hand: Hand) -> tuple[HandState, list[dict[str, Any]]]:
    """A finished hand as :func:`~games.bots.analysis.analyse_hand` takes it: the dealt
    start and the moves made (timeouts included, the automatic final play left out)."""
    players = hand.match.players.count()
    start = deal(hand.match.table.rules, players, hand.dealer, hand.seed)
    moves = [
        action.move for action in hand.actions.order_by("index") if not action.entry.get("auto")
    ]
    return start, moves


def hand_times(hand: Hand) -> list[int]:
    """The thinking time (ms) of each move :func:`hand_record` gives, in its order."""
    return [
        action.time_used_ms
        for action in hand.actions.order_by("index")
        if not action.entry.get("auto")
    ]
