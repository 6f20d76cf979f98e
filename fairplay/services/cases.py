"""Fair play's detection and the moderators' cases.

After each hand of a rated match, a tournament or an arena ends, ``on_hand_finished``
queues ``fairplay.hand`` on the analysis queue (settings.CELERY_TASK_ROUTES:
seconds of a core, never in a request or a socket). The task judges the people's
decisions (``fairplay.signals``, with the budget of ``FAIRPLAY_PLAYOUTS`` and
``FAIRPLAY_BOT_PLAYOUTS``), adds them to each player's and each pair's sums, keeps the
decisions that weigh most, counts how often pairs share tables, and opens or updates the
cases of the players and pairs it touched: a case opens when the chance that honest play
shows signals as strong (``fairplay.reference``) is at most
``FAIRPLAY_CASE_CHANCE``, on ``FAIRPLAY_MIN_DECISIONS`` decisions at least.

A moderator decides a case (:func:`fairplay_case_decide`): clear (the case closes), warn,
mark for cheating or close the account (the services of ``fairplay.services.accounts``,
which tell the player and write their own audit entries).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import PERM_BAN
from core.errors import Refused
from core.tasks import task_on_commit
from fairplay import signals
from fairplay.models import (
    FairPlayCase,
    FairPlayHand,
    FairPlayMoment,
    PairSignals,
    PlayerSignals,
)
from fairplay.reference import Reference, Tail, combined, load_reference
from fairplay.services.accounts import account_close, account_mark, account_warn
from games.engine import Reason
from games.models import Hand, MatchPlayer, Rating
from games.ratings import display_rating
from games.selectors.analysis import hand_record, hand_times
from games.speeds import table_speed
from moderation.models import AuditLog
from moderation.services import audit_record, clean_reason, require_permission

FAIRPLAY_TASK = "fairplay.hand"
# Who shares tables by chance: the people who started a match of the same speed within
# this time before it.
POOL_WINDOW = timedelta(hours=1)
# A decision weighs on a case page from this much help, knowledge or cost on.
MOMENT_MIN = 0.1
MOMENTS_PER_HAND = 2  # per player, other player and kind
# Dumping counts toward a pair once they have shared tables so often that the pairing's
# chance gives it at most this (the overlap's Poisson tail): someone who throws hands
# helps whoever sits there; it goes to one particular player's gain when the two keep
# meeting. (Counted from a second match together, table-mates of a dumper met twice by
# chance opened cases: 11 of 48 honest players in a simulation of 15 matches.)
DUMPING_OVERLAP = 0.01
# A decided case opens again only for signals this many times less likely than then.
REOPEN_FACTOR = 100.0

DECISIONS = ("clear", "warn", "mark", "close")


def budget() -> signals.Budget:
    return signals.Budget(
        playouts=settings.FAIRPLAY_PLAYOUTS, bot_playouts=settings.FAIRPLAY_BOT_PLAYOUTS
    )


def _people(hand: Hand) -> list[MatchPlayer]:
    return [
        p
        for p in hand.match.players.select_related("user")
        if p.user_id is not None and not p.user.is_bot_account and not p.bot_level
    ]


def hand_qualifies(hand: Hand) -> bool:
    """A hand is judged when it ended in play (not aborted) at a rated table or a
    tournament's, with two people or more in it."""
    table = hand.match.table
    outcome = hand.outcome or {}
    if outcome.get("reason") == Reason.ABORTED or not (table.rated or table.managed):
        return False
    return len(_people(hand)) >= 2


def on_hand_finished(*, hand: Hand, **kwargs: Any) -> None:
    """games.signals.hand_finished: queue the hand's check after its end commits."""
    if hand_qualifies(hand):
        task_on_commit(FAIRPLAY_TASK, (hand.pk,))


def fairplay_hand_check(*, hand_id: int, now: datetime | None = None) -> FairPlayHand | None:
    """Judge a finished hand once and update the sums and cases it touches (module
    docstring). None if the hand does not qualify or was judged already. The search runs
    outside any transaction; the writes in one, holding the sums' rows."""
    now = now or timezone.now()
    hand = Hand.objects.select_related("match__table").filter(pk=hand_id).first()
    if hand is None or not hand.is_over or FairPlayHand.objects.filter(hand=hand).exists():
        return None
    if not hand_qualifies(hand):
        return None
    people = _people(hand)
    user_of = {p.seat: p.user for p in people}
    start, moves = hand_record(hand)
    times = hand_times(hand)
    decisions = signals.hand_decisions(
        start, moves, times, sorted(user_of), seed=f"fairplay-{hand.pk}", budget=budget()
    )
    reference = load_reference()
    speed = table_speed(hand.match.table)
    with transaction.atomic():
        try:
            with transaction.atomic():
                checked = FairPlayHand.objects.create(
                    hand=hand, decisions=len(decisions), checked_at=now
                )
        except IntegrityError:
            return None  # another worker judged it meanwhile
        ids = sorted(user.pk for user in user_of.values())
        ratings = dict(
            Rating.objects.filter(user_id__in=ids, speed=speed).values_list("user_id", "mu")
        )
        players = _player_rows(ids, now)
        pairs = _pair_rows([(a, b) for a in ids for b in ids if a != b], now)
        totals = {pk: _player_totals(row) for pk, row in players.items()}
        pair_totals = {key: _pair_totals(row) for key, row in pairs.items()}
        for seat, user in user_of.items():
            mine = [d for d in decisions if d.seat == seat]
            rate = reference.match_rate(display_rating(ratings.get(user.pk, 25.0)))
            for decision in mine:
                totals[user.pk].add(decision, rate)
            for other_seat, other in user_of.items():
                if other_seat != seat:
                    pair_totals[user.pk, other.pk].add_hand(mine, other_seat)
        for pk, row in players.items():
            _store_player(row, totals[pk], now)
        for key, row in pairs.items():
            _store_pair(row, pair_totals[key], now)
        if hand.number == 1:
            _count_overlap(hand, ids, now)
        FairPlayMoment.objects.bulk_create(_moments(hand, decisions, user_of))
        _review(ids, reference, now)
    return checked


# --- the sums' rows ----------------------------------------------------------------------

_PLAYER_FIELDS = [
    "decisions", "nontrivial", "matched", "expected", "variance", "times", "log_time_sum",
    "log_time_squares",
]  # fmt: skip
_PAIR_FIELDS = [
    "decisions", "help_sum", "help_squares", "knowledge_sum", "knowledge_squares", "dumps",
    "dump_expected", "dump_variance",
]  # fmt: skip


def _player_rows(ids: list[int], now: datetime) -> dict[int, PlayerSignals]:
    PlayerSignals.objects.bulk_create(
        [PlayerSignals(user_id=pk, updated_at=now) for pk in ids], ignore_conflicts=True
    )
    return {
        row.user_id: row
        for row in PlayerSignals.objects.select_for_update().filter(user_id__in=ids).order_by("pk")
    }


def _pair_rows(keys: list[tuple[int, int]], now: datetime) -> dict[tuple[int, int], PairSignals]:
    PairSignals.objects.bulk_create(
        [PairSignals(user_id=a, other_id=b, updated_at=now) for a, b in keys],
        ignore_conflicts=True,
    )
    wanted = Q()
    for a, b in keys:
        wanted |= Q(user_id=a, other_id=b)
    rows = PairSignals.objects.select_for_update().filter(wanted).order_by("pk")
    return {(row.user_id, row.other_id): row for row in rows}


def _player_totals(row: PlayerSignals) -> signals.PlayerTotals:
    return signals.PlayerTotals(**{name: getattr(row, name) for name in _PLAYER_FIELDS})


def _pair_totals(row: PairSignals) -> signals.PairTotals:
    return signals.PairTotals(**{name: getattr(row, name) for name in _PAIR_FIELDS})


def _store_player(row: PlayerSignals, totals: signals.PlayerTotals, now: datetime) -> None:
    for name in _PLAYER_FIELDS:
        setattr(row, name, getattr(totals, name))
    row.hands += 1
    row.updated_at = now
    row.save(update_fields=[*_PLAYER_FIELDS, "hands", "updated_at"])


def _store_pair(row: PairSignals, totals: signals.PairTotals, now: datetime) -> None:
    for name in _PAIR_FIELDS:
        setattr(row, name, getattr(totals, name))
    row.updated_at = now
    row.save(update_fields=[*_PAIR_FIELDS, "updated_at"])


def _count_overlap(hand: Hand, ids: list[int], now: datetime) -> None:
    """A match's first hand: its people shared a table once more. Every pair that met
    before and has one of them here, the other among the people who started a match of
    this speed within ``POOL_WINDOW``, adds the chance the pairing gives of sitting
    together: ``(people here - 1) / (pool - 1)``."""
    match = hand.match
    speed = table_speed(match.table)
    recent = MatchPlayer.objects.filter(
        match__started_at__gte=match.started_at - POOL_WINDOW,
        match__started_at__lte=match.started_at,
        user__isnull=False,
    ).select_related("match__table")
    pool = {p.user_id for p in recent if table_speed(p.match.table) == speed} | set(ids)
    chance = (len(ids) - 1) / (len(pool) - 1) if len(pool) > 1 else 0.0
    here = set(ids)
    rows = PairSignals.objects.select_for_update().filter(user_id__in=ids, other_id__in=pool)
    for row in rows.order_by("pk"):
        if row.other_id in here:
            row.together += 1
            # The first table together is what made them a pair: chance counts after it.
            if row.together > 1:
                row.expected_together += chance
        else:
            row.expected_together += chance
        row.updated_at = now
        row.save(update_fields=["together", "expected_together", "updated_at"])


def _moments(
    hand: Hand, decisions: list[signals.Decision], user_of: dict[int, User]
) -> list[FairPlayMoment]:
    """The decisions that weigh most in each signal, at most ``MOMENTS_PER_HAND`` per
    player, other player and kind."""
    found: dict[tuple[int, int | None, str], list[FairPlayMoment]] = defaultdict(list)
    seats = {seat: user.pk for seat, user in user_of.items()}

    def keep(d: signals.Decision, kind: str, weight: float, other: int | None) -> None:
        me = seats[d.seat]
        details = {
            "seat": d.seat,
            "other_seat": other,
            "moves": [{"move": move, "losses": list(losses)} for move, losses in d.moves],
            "made": d.made,
            "best": d.best,
            "bot": d.bot,
        }
        if other is not None and other in d.informed:
            details["other_hand"] = list(d.informed[other][2])
        found[me, seats.get(other), kind].append(
            FairPlayMoment(
                hand=hand, step=d.step, user_id=me, other_id=seats.get(other), kind=kind,
                weight=round(weight, 4), details=details,
            )
        )  # fmt: skip

    Kind = FairPlayMoment.Kind
    for d in decisions:
        if d.nontrivial and d.matched and d.spread >= 1.5 * MOMENT_MIN:
            keep(d, Kind.ASSISTANCE, d.spread, None)
        beneficiary = d.beneficiary()
        for other in seats:
            if other == d.seat or not d.holding[other]:
                continue
            if d.help_to(other) >= MOMENT_MIN:
                keep(d, Kind.FEEDING, d.help_to(other), other)
            known = d.knowledge_of(other)
            if known is not None and known >= MOMENT_MIN:
                keep(d, Kind.KNOWLEDGE, known, other)
            if d.worst and d.cost >= signals.COSTLY and beneficiary == other:
                keep(d, Kind.DUMPING, d.cost, other)
    return [
        moment
        for group in found.values()
        for moment in sorted(group, key=lambda m: -m.weight)[:MOMENTS_PER_HAND]
    ]


# --- the cases -----------------------------------------------------------------------------


def player_signals(row: PlayerSignals, reference: Reference) -> dict[str, Tail]:
    """The player's signals and how unusual each is beside honest players."""
    totals = _player_totals(row)
    found = {}
    excess = totals.match_excess
    if excess is not None:
        value, sampling = excess
        found["assistance"] = reference.tail("assistance", value, sampling=sampling)
    timing = totals.timing
    if timing is not None:
        value, sampling = timing
        found["timing"] = reference.tail("timing", value, sampling=sampling)
    return found


def pair_signals(
    one: PairSignals, two: PairSignals | None, reference: Reference
) -> dict[str, Tail]:
    """The pair's signals and how unusual each is beside honest pairs.

    Feeding and knowledge are each the smaller of the two directions: playing as a pair
    is mutual, while a player's style favours a seat by its place at the table (the one
    after him, say), which for friends who always sit in the same order is always the
    same friend; one direction alone took such an honest pair for a case. Dumping is the
    larger: one throws hands, the other gains."""
    a = _pair_totals(one)
    b = _pair_totals(two) if two is not None else signals.PairTotals()
    return {
        "feeding": reference.tail("feeding", min(a.help_z, b.help_z)),
        "knowledge": reference.tail("knowledge", min(a.knowledge_z, b.knowledge_z)),
        "dumping": reference.tail("dumping", max(a.dump_z, b.dump_z)),
    }


def _case_data(tails: dict[str, Tail], extra: dict[str, Any]) -> dict[str, Any]:
    return {"tails": {name: tail.to_json() for name, tail in tails.items()}, **extra}


def _review(ids: list[int], reference: Reference, now: datetime) -> None:
    """Open or update the cases of the players ``ids`` and of their pairs."""
    minimum = settings.FAIRPLAY_MIN_DECISIONS
    for row in PlayerSignals.objects.filter(user_id__in=ids):
        if row.nontrivial < minimum:
            continue
        tails = player_signals(row, reference)
        extra = {
            "nontrivial": row.nontrivial,
            "match_rate": round(row.matched / row.nontrivial, 4),
            "honest_rate": round(row.expected / row.nontrivial, 4),
        }
        _case_update(
            row.user_id, None, combined(list(tails.values())), _case_data(tails, extra), now
        )
    rows = {
        (r.user_id, r.other_id): r
        for r in PairSignals.objects.filter(user_id__in=ids, other_id__in=ids)
    }
    for (a, b), row in rows.items():
        if a > b:
            continue
        two = rows.get((b, a))
        if row.decisions + (two.decisions if two else 0) < minimum:
            continue
        tails = pair_signals(row, two, reference)
        overlap = signals.poisson_tail(row.together - 1, row.expected_together)
        if overlap > DUMPING_OVERLAP:
            del tails["dumping"]  # throwing hands: to this player's gain only if they keep meeting
        extra = {
            "decisions": row.decisions + (two.decisions if two else 0),
            "together": row.together,
            "expected_together": round(row.expected_together, 3),
            "overlap_chance": overlap,
        }
        _case_update(a, b, combined(list(tails.values())), _case_data(tails, extra), now)


def _case_update(
    user_id: int, other_id: int | None, chance: float, data: dict[str, Any], now: datetime
) -> None:
    subject = FairPlayCase.objects.filter(user_id=user_id, other_id=other_id)
    case = subject.select_for_update().filter(status=FairPlayCase.Status.OPEN).first()
    if case is not None:
        case.chance, case.signals, case.updated_at = chance, data, now
        case.save(update_fields=["chance", "signals", "updated_at"])
        return
    if chance > settings.FAIRPLAY_CASE_CHANCE:
        return
    decided = subject.exclude(status=FairPlayCase.Status.OPEN).order_by("chance").first()
    if decided is not None and chance * REOPEN_FACTOR > decided.chance:
        return
    FairPlayCase.objects.create(
        user_id=user_id, other_id=other_id, chance=chance, signals=data, opened_at=now,
        updated_at=now,
    )  # fmt: skip


def fairplay_case_decide(
    *, by: User, case_id: int, decision: str, reason: str = "", now: datetime | None = None
) -> FairPlayCase:
    """A moderator decides an open case: ``clear`` (the case closes, one audit entry),
    ``warn``, ``mark`` or ``close`` (the account service of that name acts on the player,
    on both players of a pair, and tells them). Refused: an unknown decision, a case
    that is not open, no reason for anything but clearing."""
    require_permission(by, PERM_BAN)
    now = now or timezone.now()
    if decision not in DECISIONS:
        raise Refused(_("Choose one of the decisions offered."))
    reason = clean_reason(reason, required=decision != "clear")
    with transaction.atomic():
        case = FairPlayCase.objects.select_for_update().filter(pk=case_id).first()
        if case is None or case.status != FairPlayCase.Status.OPEN:
            raise Refused(_("This case is already decided."))
        subjects = [pk for pk in (case.user_id, case.other_id) if pk is not None]
        if decision == "clear":
            audit_record(
                actor=by,
                action=AuditLog.Action.FAIRPLAY_CLEAR,
                target_user=case.user,
                reason=reason,
                details={"case": case.pk, "other": case.other_id},
            )
        else:
            # The account services tell the player and write their own audit entries.
            act = {"warn": account_warn, "mark": account_mark, "close": account_close}[decision]
            for user_id in subjects:
                act(by=by, user_id=user_id, reason=reason, now=now)
        case.status = {
            "clear": FairPlayCase.Status.CLEARED,
            "warn": FairPlayCase.Status.WARNED,
            "mark": FairPlayCase.Status.MARKED,
            "close": FairPlayCase.Status.CLOSED,
        }[decision]
        case.decided_at, case.decided_by, case.reason = now, by, reason
        case.save(update_fields=["status", "decided_at", "decided_by", "reason"])
    return case
