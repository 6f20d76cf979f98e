"""Every change of follows, preferences and challenges: one function per action, each in
one transaction, refusing with ``Refused`` (a message and a ``code``) and changing
nothing when it refuses. Events leave after the commit (``social.events``).

Lock order: a challenger's user row (creating a challenge), then the challenge, then the
table (accepting one: games' table services lock it).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from core.errors import Refused
from games import services as games
from games.engine import PROFILES
from games.models import MAX_SEATS, MIN_SEATS
from social import events, selectors
from social.models import Challenge, DeclineReason, Follow, Preferences

# An open challenge lives this long after its creation or the challenger's last sign
# that he still waits (his page, or his API event stream).
CHALLENGE_TTL = timedelta(seconds=20)
# The most challenges one user may send in a window.
CHALLENGES_PER_WINDOW, CHALLENGE_WINDOW = 10, timedelta(minutes=5)


# --- follows and preferences ------------------------------------------------------------


def follow_create(*, follower: User, followed: User, now: datetime | None = None) -> Follow:
    """``follower`` follows ``followed``; following him again changes nothing."""
    if follower.pk == followed.pk:
        raise Refused(_("You cannot follow yourself."), code="follow_self")
    if not followed.is_active:
        raise Refused(_("This player cannot be followed."), code="follow_inactive")
    follow, _created = Follow.objects.get_or_create(
        follower=follower, followed=followed, defaults={"created_at": now or timezone.now()}
    )
    return follow


def follow_delete(*, follower: User, followed: User) -> bool:
    """``follower`` no longer follows ``followed``; True if he did."""
    deleted, _kinds = Follow.objects.filter(follower=follower, followed=followed).delete()
    return bool(deleted)


def preferences_set(*, user: User, challenges_from_followed_only: bool) -> Preferences:
    """Store ``user``'s choice of who may challenge him."""
    preferences, _created = Preferences.objects.update_or_create(
        user=user, defaults={"challenges_from_followed_only": challenges_from_followed_only}
    )
    return preferences


# --- challenges -------------------------------------------------------------------------


def challenge_create(
    *,
    challenger: User,
    challenged: User,
    seats: int = 2,
    profile: str = "kurnik",
    base_seconds: int = 180,
    increment_seconds: int = 2,
    move_days: int = 0,
    rated: bool = True,
    now: datetime | None = None,
) -> Challenge:
    """``challenger`` asks ``challenged`` to a table of ``seats`` with the rule profile
    ``profile`` and the time control. Refused: oneself, a blocked account on either side,
    someone who takes challenges only from the people he follows and does not follow the
    challenger, a second open challenge to the same player, too many challenges lately,
    and settings a table would refuse. ``move_days``: a correspondence table's days per
    move (0: real time). Holds the challenger's row lock."""
    now = now or timezone.now()
    if challenger.pk == challenged.pk:
        raise Refused(_("You cannot challenge yourself."), code="challenge_self")
    _require_settings(seats=seats, profile=profile, base=base_seconds, increment=increment_seconds)
    games.validate_move_days(move_days)
    with transaction.atomic():
        challenger = User.objects.select_for_update().get(pk=challenger.pk)
        challenged = User.objects.get(pk=challenged.pk)
        if challenger.is_banned(now):
            raise Refused(_("A blocked account cannot challenge anyone."), code="blocked")
        if not challenged.is_active or challenged.is_banned(now):
            raise Refused(_("This player cannot be challenged."), code="challenge_blocked")
        if not selectors.accepts_challenges_from(challenged=challenged, challenger=challenger):
            raise Refused(
                _("%(name)s accepts challenges only from the people they follow.")
                % {"name": challenged.username},
                code="challenge_followed_only",
            )
        _expire_due(Challenge.objects.filter(challenger=challenger, challenged=challenged), now)
        if Challenge.objects.filter(
            challenger=challenger, challenged=challenged, status=Challenge.Status.CREATED
        ).exists():
            raise Refused(
                _("You have already challenged %(name)s; wait for the answer.")
                % {"name": challenged.username},
                code="challenge_duplicate",
            )
        recent = Challenge.objects.filter(
            challenger=challenger, created_at__gt=now - CHALLENGE_WINDOW
        ).count()
        if recent >= CHALLENGES_PER_WINDOW:
            raise Refused(
                _("You have sent %(n)d challenges in the last few minutes; wait a while.")
                % {"n": CHALLENGES_PER_WINDOW},
                code="challenge_rate",
            )
        try:
            with transaction.atomic():
                challenge = Challenge.objects.create(
                    challenger=challenger,
                    challenged=challenged,
                    seats=seats,
                    profile=profile,
                    base_seconds=base_seconds,
                    increment_seconds=increment_seconds,
                    move_days=move_days,
                    rated=rated,
                    created_at=now,
                    expires_at=now + CHALLENGE_TTL,
                )
        except IntegrityError:  # only the open-challenge constraint can fail here
            raise Refused(
                _("You have already challenged %(name)s; wait for the answer.")
                % {"name": challenged.username},
                code="challenge_duplicate",
            ) from None
        events.challenge_changed_on_commit(challenge)
    return challenge


def challenge_accept(*, challenge_id: int, user: User, now: datetime | None = None) -> Challenge:
    """The challenged player accepts: a table with the challenge's settings is created
    with the challenger as its owner in the first seat and ``user`` in the second. With
    two seats the match starts at once; with three or four the other seats stay open
    (the table is listed in the lobby) and the owner fills them, with players or bots,
    and starts the match as at any table. Holds the challenge's row lock, then the table's."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenged_id != user.pk:
            raise Refused(
                _("Only the challenged player can accept this challenge."), code="not_challenged"
            )
        expired = _expire_if_due(challenge, now)
        if not expired:
            _require_open(challenge)
            challenger, challenged = challenge.challenger, challenge.challenged
            if challenged.is_banned(now):
                raise Refused(_("A blocked account cannot accept a challenge."), code="blocked")
            if challenger.is_banned(now) or not challenger.is_active:
                raise Refused(
                    _("%(name)s cannot play now.") % {"name": challenger.username},
                    code="challenge_blocked",
                )
            try:
                table = games.table_create(
                    owner=challenger,
                    name="",
                    rules=PROFILES[challenge.profile].rules,
                    profile=challenge.profile,
                    seats=challenge.seats,
                    base_seconds=challenge.base_seconds,
                    increment_seconds=challenge.increment_seconds,
                    move_days=challenge.move_days,
                    rated=challenge.rated,
                )
            except Refused as refusal:
                raise Refused(
                    _("The table could not be made: %(why)s") % {"why": refusal.message},
                    code="table_refused",
                ) from None
            games.table_sit(table_id=table.pk, user=challenged)
            if challenge.seats == 2:
                games.match_start(table_id=table.pk, by=challenger, now=now)
            challenge.status = Challenge.Status.ACCEPTED
            challenge.table = table
            challenge.answered_at = now
            challenge.save(update_fields=["status", "table", "answered_at"])
            events.challenge_changed_on_commit(challenge)
    if expired:
        raise Refused(_("This challenge has expired."), code="challenge_expired")
    return challenge


def challenge_decline(
    *,
    challenge_id: int,
    user: User,
    reason: str = DeclineReason.GENERIC,
    now: datetime | None = None,
) -> Challenge:
    """The challenged player declines, saying why (one of ``DeclineReason``)."""
    now = now or timezone.now()
    if reason not in DeclineReason.values:
        raise Refused(_("Unknown reason for declining."), code="bad_reason")
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenged_id != user.pk:
            raise Refused(
                _("Only the challenged player can decline this challenge."),
                code="not_challenged",
            )
        expired = _expire_if_due(challenge, now)
        if not expired:
            _require_open(challenge)
            challenge.status = Challenge.Status.DECLINED
            challenge.decline_reason = reason
            challenge.answered_at = now
            challenge.save(update_fields=["status", "decline_reason", "answered_at"])
            events.challenge_changed_on_commit(challenge)
    if expired:
        raise Refused(_("This challenge has expired."), code="challenge_expired")
    return challenge


def challenge_cancel(*, challenge_id: int, user: User, now: datetime | None = None) -> Challenge:
    """The challenger takes his challenge back before it is answered."""
    now = now or timezone.now()
    with transaction.atomic():
        challenge = _locked(challenge_id)
        if challenge.challenger_id != user.pk:
            raise Refused(
                _("Only the challenger can cancel this challenge."), code="not_challenger"
            )
        expired = _expire_if_due(challenge, now)
        if not expired:
            _require_open(challenge)
            challenge.status = Challenge.Status.CANCELED
            challenge.answered_at = now
            challenge.save(update_fields=["status", "answered_at"])
            events.challenge_changed_on_commit(challenge)
    if expired:
        raise Refused(_("This challenge has expired."), code="challenge_expired")
    return challenge


def challenge_keep_alive(
    *, challenger: User, challenge_id: int | None = None, now: datetime | None = None
) -> int:
    """The challenger still waits (his page or his event stream is open): his open
    challenges (or only ``challenge_id``) live another ``CHALLENGE_TTL`` from ``now``.
    One that has already run out stays expired. Returns how many were kept."""
    now = now or timezone.now()
    open_ones = Challenge.objects.filter(
        challenger=challenger, status=Challenge.Status.CREATED, expires_at__gt=now
    )
    if challenge_id is not None:
        open_ones = open_ones.filter(pk=challenge_id)
    return open_ones.update(expires_at=now + CHALLENGE_TTL)


def challenge_expire_due(*, now: datetime | None = None) -> int:
    """Write "expired" on every open challenge whose time has run out, and tell both
    players (the sweep; every reader already treats them as expired). Returns how many."""
    now = now or timezone.now()
    with transaction.atomic():
        return _expire_due(Challenge.objects.all(), now)


# --- helpers ------------------------------------------------------------------------------


def _require_settings(*, seats: int, profile: str, base: int, increment: int) -> None:
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise Refused(_("A table has 2 to 4 seats."), code="bad_seats")
    if profile not in PROFILES:
        raise Refused(_("Unknown rules."), code="bad_rules")
    try:
        games.validate_time_control(base, increment)
        PROFILES[profile].rules.validate_for_players(seats)
    except Refused as refusal:
        raise Refused(refusal.message, code="bad_time_control") from None
    except ValueError as exc:
        raise Refused(str(exc), code="bad_rules") from None


def _locked(challenge_id: int) -> Challenge:
    try:
        return (
            Challenge.objects.select_for_update(of=("self",))
            .select_related("challenger", "challenged")
            .get(pk=challenge_id)
        )
    except Challenge.DoesNotExist:
        raise Refused(_("This challenge does not exist."), code="unknown_challenge") from None


def _require_open(challenge: Challenge) -> None:
    closed = {
        Challenge.Status.ACCEPTED: _("This challenge has already been accepted."),
        Challenge.Status.DECLINED: _("This challenge has been declined."),
        Challenge.Status.CANCELED: _("This challenge has been canceled."),
        Challenge.Status.EXPIRED: _("This challenge has expired."),
    }
    if challenge.status in closed:
        raise Refused(str(closed[challenge.status]), code=f"challenge_{challenge.status}")


def _expire_if_due(challenge: Challenge, now: datetime) -> bool:
    """Write "expired" on a locked challenge whose time has run out; True if it had."""
    if not challenge.is_due(now):
        return False
    challenge.status = Challenge.Status.EXPIRED
    challenge.save(update_fields=["status"])
    events.challenge_changed_on_commit(challenge)
    return True


def _expire_due(challenges: QuerySet[Challenge], now: datetime) -> int:
    """Expire the due ones among ``challenges`` (a queryset), skipping rows another
    transaction holds (it is answering them)."""
    due = list(
        challenges.filter(status=Challenge.Status.CREATED, expires_at__lte=now)
        .select_for_update(of=("self",), skip_locked=True)
        .select_related("challenger", "challenged")
    )
    for challenge in due:
        challenge.status = Challenge.Status.EXPIRED
        challenge.save(update_fields=["status"])
        events.challenge_changed_on_commit(challenge)
    return len(due)
