"""Reads of fair play, as plain data: a player's own mark and appeal, the marks a
moderator sees on a user's admin page, the open appeals, the moderators' queue of cases
and one case."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from accounts.models import User
from fairplay.models import FairPlayAppeal, FairPlayCase, FairPlayMark, FairPlayMoment
from fairplay.reference import load_reference
from games.selectors import cards_in_words, move_in_words

# --- fair play: the mark and its appeal ----------------------------------------------------------


@dataclass(frozen=True)
class FairPlayState:
    """What a player sees of his own account's fair play mark."""

    mark: FairPlayMark | None  # the one in force
    appeal: FairPlayAppeal | None  # his answer to it, once sent

    @property
    def may_appeal(self) -> bool:
        return self.mark is not None and self.appeal is None


def fairplay_state(user: User) -> FairPlayState:
    """The mark in force on ``user``'s account (if any) and his appeal of it."""
    mark = FairPlayMark.objects.filter(user=user, lifted_at__isnull=True).first()
    appeal = FairPlayAppeal.objects.filter(mark=mark).first() if mark is not None else None
    return FairPlayState(mark=mark, appeal=appeal)


def user_marks(user: User) -> list[FairPlayMark]:
    """Every fair play mark of ``user``, the one in force first, each with its appeal."""
    return list(
        FairPlayMark.objects.filter(user=user)
        .select_related("marked_by", "lifted_by", "appeal")
        .order_by("lifted_at", "-marked_at")
    )


def appeals_open() -> list[FairPlayAppeal]:
    """The appeals waiting for a moderator, the oldest first."""
    return list(
        FairPlayAppeal.objects.filter(status=FairPlayAppeal.Status.OPEN)
        .select_related("mark__user", "mark__marked_by")
        .order_by("created_at", "pk")
    )


# --- fair play: the moderators' queue and a case -------------------------------------------


@dataclass(frozen=True)
class SignalLine:
    """One signal of a case: its name and what it means, its value, and how unusual it is
    in words."""

    name: str
    value: float
    unusual: str


@dataclass(frozen=True)
class MomentLine:
    """A decision that weighs on a case: where (the replay at that move), who, what he
    played against the bot's moves, and what the other player held."""

    kind: str
    weight: float
    replay_url: str
    player: str
    other: str
    moves: list[tuple[str, int, int | None, bool, bool, bool]]  # words, own %, other's %, flags
    other_hand: str


@dataclass(frozen=True)
class CaseRow:
    case: FairPlayCase
    subject: str
    strongest: str
    one_in: int


@dataclass(frozen=True)
class CaseView:
    case: FairPlayCase
    subject: str
    users: list[User]
    signals: list[SignalLine]
    overlap: str
    reference_source: str
    moments: list[MomentLine]
    facts: list[tuple[str, str]]


def _signal_names() -> dict[str, str]:
    return {
        "assistance": _("Moves of the strong bot, beside players of his rating"),
        "timing": _("Regular thinking times"),
        "feeding": _("Help to the other player, beyond the rest of the table"),
        "knowledge": _("Moves explained by the other player's hand"),
        "dumping": _("Moves worst for himself, at tables with one player again and again"),
    }


def _unusual(tail: dict[str, Any], pair: bool) -> str:
    chance = max(tail["chance"], 1e-12)
    one_in = max(1, round(1 / chance))
    if tail["above"] is None:
        return _("about 1 in %(n)s by the normal law (no honest reference yet)") % {
            "n": f"{one_in:,}"
        }
    who = _("honest pairs") if pair else _("honest players")
    return _("higher than %(share)s %% of %(n)d %(who)s of the reference; about 1 in %(one)s") % {
        "share": f"{100 * tail['above']:.1f}",
        "n": tail["count"],
        "who": who,
        "one": f"{one_in:,}",
    }


def _subject(case: FairPlayCase) -> str:
    if case.other_id is None:
        return case.user.username
    return f"{case.user.username} + {case.other.username}"


def fairplay_queue() -> list[CaseRow]:
    """The open fair-play cases, the strongest evidence first."""
    rows = []
    names = _signal_names()
    for case in FairPlayCase.objects.filter(status=FairPlayCase.Status.OPEN).select_related(
        "user", "other"
    ):
        tails = case.signals.get("tails", {})
        strongest = min(tails, key=lambda n: tails[n]["chance"]) if tails else ""
        rows.append(
            CaseRow(
                case=case,
                subject=_subject(case),
                strongest=names.get(strongest, ""),
                one_in=max(1, round(1 / max(case.chance, 1e-12))),
            )
        )
    return rows


MOMENTS_SHOWN = 8


def fairplay_case(case_id: int) -> CaseView | None:
    """What a moderator sees of one case (none of the accounts' devices or addresses)."""
    case = FairPlayCase.objects.select_related("user", "other").filter(pk=case_id).first()
    if case is None:
        return None
    pair = case.other_id is not None
    names = _signal_names()
    tails = case.signals.get("tails", {})
    lines = [
        SignalLine(names.get(name, name), tail["value"], _unusual(tail, pair))
        for name, tail in sorted(tails.items(), key=lambda item: item[1]["chance"])
    ]
    users = [u for u in (case.user, case.other) if u is not None]
    ids = [u.pk for u in users]
    moments = FairPlayMoment.objects.filter(user_id__in=ids).select_related("hand")
    if pair:
        moments = moments.filter(other_id__in=ids).exclude(kind=FairPlayMoment.Kind.ASSISTANCE)
    else:
        moments = moments.filter(kind=FairPlayMoment.Kind.ASSISTANCE)
    by_pk = {u.pk: u.username for u in users}
    kinds = dict(FairPlayMoment.Kind.choices)
    shown = []
    for moment in moments.order_by("-weight", "pk")[:MOMENTS_SHOWN]:
        details = moment.details
        other_seat = details.get("other_seat")
        moves = [
            (
                move_in_words(entry["move"]),
                round(100 * entry["losses"][details["seat"]]),
                None if other_seat is None else round(100 * entry["losses"][other_seat]),
                i == details["made"],
                i == details["best"],
                i == details.get("bot"),
            )
            for i, entry in enumerate(details["moves"])
        ]
        shown.append(
            MomentLine(
                kind=str(kinds.get(moment.kind, moment.kind)),
                weight=moment.weight,
                replay_url=f"{moment.hand.get_absolute_url()}?move={moment.step + 1}",
                player=by_pk.get(moment.user_id, ""),
                other=by_pk.get(moment.other_id, "") if moment.other_id else "",
                moves=moves,
                other_hand=cards_in_words(details["other_hand"])
                if details.get("other_hand")
                else "",
            )
        )
    facts = []
    data = case.signals
    if "nontrivial" in data:
        facts.append((_("Decisions with a real choice"), str(data["nontrivial"])))
        facts.append(
            (
                _("Strong bot's move played"),
                _("%(his)s %% (players of his rating: %(honest)s %%)")
                % {
                    "his": f"{100 * data['match_rate']:.0f}",
                    "honest": f"{100 * data['honest_rate']:.0f}",
                },
            )
        )
    overlap = ""
    if pair:
        facts.append((_("Decisions judged"), str(data.get("decisions", 0))))
        overlap = _(
            "Tables shared: %(n)d, against %(expected)s expected by the pairing's chance after"
            " their first (chance of as many or more: %(chance)s)."
        ) % {
            "n": data.get("together", 0),
            "expected": f"{data.get('expected_together', 0):.1f}",
            "chance": f"{data.get('overlap_chance', 1.0):.2g}",
        }
    return CaseView(
        case=case,
        subject=_subject(case),
        users=users,
        signals=lines,
        overlap=overlap,
        reference_source=load_reference().source,
        moments=shown,
        facts=facts,
    )
