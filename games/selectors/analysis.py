"""A finished hand's analysis as its player reads it on the replay page ("where did I
lose it"): his decisions with the chance of losing after each move, in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.bots.analysis import ANALYSIS_PLAYOUTS
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
    rise: int  # percentage points since his previous decision
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
    asked, else a ``HandAnalysis.Status``."""

    hand_id: int
    status: str
    done: int = 0
    total: int = 0
    playouts: int = ANALYSIS_PLAYOUTS
    seconds: float | None = None
    rows: tuple[AnalysisRow, ...] = ()
    decisive: AnalysisRow | None = None
    costliest: AnalysisRow | None = None

    @property
    def running(self) -> bool:
        return self.status == HandAnalysis.Status.RUNNING

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
    if analysis is None:
        return AnalysisView(hand_id=hand.pk, status="")
    seconds = None
    if analysis.finished_at is not None:
        seconds = round((analysis.finished_at - analysis.started_at).total_seconds(), 1)
    rows: list[AnalysisRow] = []
    decisive = costliest = None
    if analysis.status == HandAnalysis.Status.DONE and analysis.result:
        result = analysis.result
        for i, d in enumerate(result["decisions"]):
            row = AnalysisRow(
                step=d["step"] + 1,
                made=move_in_words(d["made"]["move"]),
                made_loss=_percent(d["made"]["loss"]),
                best=move_in_words(d["best"]["move"]),
                best_loss=_percent(d["best"]["loss"]),
                rise=_percent(d["rise"]),
                cost=_percent(d["cost"]),
                options=[(move_in_words(m["move"]), _percent(m["loss"])) for m in d["moves"]],
                decisive=i == result["decisive"],
                costliest=i == result["costliest"],
            )
            rows.append(row)
            decisive = row if row.decisive else decisive
            costliest = row if row.costliest else costliest
    return AnalysisView(
        hand_id=hand.pk,
        status=analysis.status,
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
