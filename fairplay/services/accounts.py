"""Fair play, putting it right: a moderator warns a player, marks his account for
breaking fair play, or closes it; the marked player appeals once, and a moderator
decides the appeal.

Marking (lichess's "mark") does, in one transaction holding the user row first:

* records it (``FairPlayMark``: when, by whom, why; ``User.fairplay_marked_at`` for the
  floors below, which keep a marked account off the leaderboards, the TV's ranking and
  rated tables and tournaments);
* gives back to every person rated with him in the last 90 days what each such match
  cost him (``games.ratings.ratings_refund``, the refunds recorded and shown on the
  victim's profile, each victim told);
* takes his entries off every tournament's and arena's results, the others moving up
  (``tournaments.services.tournament_results_strike``);
* writes one audit entry, which tells him in words (``notifications`` hears it).

Marking a marked account changes nothing more. Lifting the mark (an appeal upheld in his
favour) gives his places back and lets him play rated again; the refunds stay given: the
players were owed nothing back by the error, and taking points from them again for a
moderator's mistake would punish the wrong people.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import PERM_BAN
from core.errors import Refused
from fairplay.models import FairPlayAppeal, FairPlayMark
from games.models import RatingRefund
from games.ratings import ratings_refund, refund_points
from moderation.models import AuditLog
from moderation.services import (
    audit_record,
    clean_reason,
    locked_user,
    require_may_act_on,
    require_permission,
    user_ban,
)
from tournaments.services import tournament_results_restore, tournament_results_strike

APPEAL_MAX = 2000


@dataclass(frozen=True)
class MarkResult:
    """What marking did: the user, his mark (the one in force), whether it is new (False:
    he was marked already and nothing changed), the refunds given and the tournaments
    whose results changed."""

    user: User
    mark: FairPlayMark
    newly_marked: bool
    refunds: list[RatingRefund] = field(default_factory=list)
    tournaments: list[int] = field(default_factory=list)


def account_warn(*, by: User, user_id: int, reason: str, now: datetime | None = None) -> User:
    """Warn a player about fair play: one audit entry, which tells him in words. Locks
    the user row."""
    now = now or timezone.now()
    require_permission(by, PERM_BAN)
    reason = clean_reason(reason, required=True)
    with transaction.atomic():
        target = locked_user(user_id)
        require_may_act_on(by, target)
        audit_record(
            actor=by,
            action=AuditLog.Action.FAIRPLAY_WARN,
            target_user=target,
            reason=reason,
            details={"at": now.isoformat()},
        )
    return target


def account_mark(*, by: User, user_id: int, reason: str, now: datetime | None = None) -> MarkResult:
    """Mark an account for breaking fair play (see the module's docstring); a marked one
    is returned as it is. Locks the user row, then the victims' ratings and the
    tournaments concerned."""
    now = now or timezone.now()
    require_permission(by, PERM_BAN)
    reason = clean_reason(reason, required=True)
    with transaction.atomic():
        target = locked_user(user_id)
        require_may_act_on(by, target)
        in_force = FairPlayMark.objects.filter(user=target, lifted_at__isnull=True).first()
        if in_force is not None:
            return MarkResult(user=target, mark=in_force, newly_marked=False)
        mark = FairPlayMark.objects.create(user=target, marked_by=by, reason=reason, marked_at=now)
        target.fairplay_marked_at = now
        target.save(update_fields=["fairplay_marked_at"])
        refunds = ratings_refund(marked_id=target.pk, now=now)
        tournaments = tournament_results_strike(user_id=target.pk, reason=_("fair play"), now=now)
        audit_record(
            actor=by,
            action=AuditLog.Action.FAIRPLAY_MARK,
            target_user=target,
            reason=reason,
            details={
                "mark_id": mark.pk,
                "refunds": _refunds_told(refunds),
                "tournaments": tournaments,
            },
        )
    return MarkResult(
        user=target, mark=mark, newly_marked=True, refunds=refunds, tournaments=tournaments
    )


def _refunds_told(refunds: list[RatingRefund]) -> list[dict[str, object]]:
    """One line per victim and speed (what each is told), the points as players see them."""
    owed: defaultdict[tuple[int, str], float] = defaultdict(float)
    for refund in refunds:
        owed[(refund.user_id, refund.speed)] += refund.mu
    return [
        {"user_id": user_id, "speed": speed, "points": refund_points(mu)}
        for (user_id, speed), mu in sorted(owed.items())
    ]


def account_close(*, by: User, user_id: int, reason: str, now: datetime | None = None) -> User:
    """Close an account for breaking fair play: marked (if it is not yet) and banned for
    good, its sessions ended and its sockets closed (``user_ban``). Locks the user row."""
    now = now or timezone.now()
    with transaction.atomic():
        account_mark(by=by, user_id=user_id, reason=reason, now=now)
        return user_ban(by=by, user_id=user_id, reason=reason, until=None, now=now)


# --- the appeal -------------------------------------------------------------------------------


def appeal_create(*, user: User, text: str, now: datetime | None = None) -> FairPlayAppeal:
    """The marked player's answer to his mark: one per mark. Locks his user row."""
    now = now or timezone.now()
    text = "\n".join(line.rstrip() for line in (text or "").strip().splitlines())
    if not text:
        raise Refused(_("Write your appeal."))
    if len(text) > APPEAL_MAX:
        raise Refused(_("An appeal has at most %(n)d characters.") % {"n": APPEAL_MAX})
    with transaction.atomic():
        locked_user(user.pk)
        mark = FairPlayMark.objects.filter(user_id=user.pk, lifted_at__isnull=True).first()
        if mark is None:
            raise Refused(_("Your account is not marked: there is nothing to appeal."))
        if FairPlayAppeal.objects.filter(mark=mark).exists():
            raise Refused(_("You have already appealed: a mark can be appealed once."))
        return FairPlayAppeal.objects.create(mark=mark, text=text, created_at=now)


def appeal_decide(
    *, by: User, appeal_id: int, lift: bool, reason: str, now: datetime | None = None
) -> FairPlayAppeal:
    """A moderator decides an open appeal: the mark stays (``lift`` False) or is lifted,
    which gives the player's tournament places back and lets him play rated again; the
    refunds stay given. One audit entry, which tells him. Locks the user row, then the
    appeal."""
    now = now or timezone.now()
    require_permission(by, PERM_BAN)
    reason = clean_reason(reason, required=True)
    seen = FairPlayAppeal.objects.select_related("mark").filter(pk=appeal_id).first()
    if seen is None:
        raise Refused(_("This appeal does not exist."))
    with transaction.atomic():
        target = locked_user(seen.mark.user_id)
        require_may_act_on(by, target)
        appeal = FairPlayAppeal.objects.select_for_update().select_related("mark").get(pk=seen.pk)
        if appeal.status != FairPlayAppeal.Status.OPEN:
            raise Refused(_("This appeal has already been decided."))
        details: dict[str, object] = {"appeal_id": appeal.pk}
        if lift:
            mark = appeal.mark
            mark.lifted_at, mark.lifted_by = now, by
            mark.save(update_fields=["lifted_at", "lifted_by"])
            target.fairplay_marked_at = None
            target.save(update_fields=["fairplay_marked_at"])
            details["tournaments"] = tournament_results_restore(user_id=target.pk)
        appeal.status = FairPlayAppeal.Status.LIFTED if lift else FairPlayAppeal.Status.UPHELD
        appeal.decided_by, appeal.decided_at, appeal.decision = by, now, reason
        appeal.save(update_fields=["status", "decided_by", "decided_at", "decision"])
        audit_record(
            actor=by,
            action=AuditLog.Action.FAIRPLAY_LIFT if lift else AuditLog.Action.FAIRPLAY_UPHOLD,
            target_user=target,
            reason=reason,
            details=details,
        )
    return appeal
