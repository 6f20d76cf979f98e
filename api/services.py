"""Changes of state the API owns: making and revoking access tokens, recording a token's
use, and turning an account into a bot account. Each refusal raises
:class:`~core.errors.Refused` with a ``code`` (the API's error code) and changes nothing."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from api.models import AccessToken, Scope
from core.errors import Refused
from games.models import Match, MatchPlayer, RatingChange

TOKEN_PREFIX = "pan_"
TOKEN_NAME_MAX = 60
TOKENS_PER_USER = 20  # live (not revoked) tokens an account may hold
HINT_LENGTH = len(TOKEN_PREFIX) + 4
# A token's last use is written at most this often: not one write per request.
LAST_USED_EVERY = timedelta(minutes=1)


def token_hash(token: str) -> str:
    """The stored form of a token: its SHA-256 in hex (a token is random, so no salt or
    slow hash is needed: nobody can guess one from its hash)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class NewToken:
    """A token just made: its row, and the token itself, shown to its owner this once."""

    row: AccessToken
    token: str


def token_create(*, owner: User, name: str, scopes: list[str] | tuple[str, ...]) -> NewToken:
    """Make a token named ``name`` for ``owner`` with ``scopes`` (Scope values)."""
    name = " ".join((name or "").split())
    if not name:
        raise Refused(_("Give the token a name."), code="bad_name")
    if len(name) > TOKEN_NAME_MAX:
        raise Refused(
            _("A token's name has at most %(n)d characters.") % {"n": TOKEN_NAME_MAX},
            code="bad_name",
        )
    chosen = sorted(set(scopes))
    if not chosen:
        raise Refused(_("Choose at least one scope."), code="bad_scopes")
    unknown = [s for s in chosen if s not in Scope.values]
    if unknown:
        raise Refused(
            _("Unknown scope: %(scopes)s.") % {"scopes": ", ".join(unknown)}, code="bad_scopes"
        )
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=owner.pk).first()  # one count at a time
        if owner.access_tokens.filter(revoked_at__isnull=True).count() >= TOKENS_PER_USER:
            raise Refused(
                _("You have %(n)d tokens already; revoke one first.") % {"n": TOKENS_PER_USER},
                code="too_many_tokens",
            )
        row = AccessToken.objects.create(
            owner=owner,
            name=name,
            scopes=chosen,
            token_hash=token_hash(token),
            hint=token[:HINT_LENGTH],
        )
    return NewToken(row=row, token=token)


def token_revoke(*, owner: User, token_id: int, now: datetime | None = None) -> AccessToken:
    """Revoke one of ``owner``'s tokens: it authorises nothing from now on (again: no-op)."""
    now = now or timezone.now()
    with transaction.atomic():
        row = AccessToken.objects.select_for_update().filter(pk=token_id, owner=owner).first()
        if row is None:
            raise Refused(_("You have no such token."), code="unknown_token")
        if row.revoked_at is None:
            row.revoked_at = now
            row.save(update_fields=["revoked_at"])
    return row


def token_touch(*, row: AccessToken, now: datetime | None = None) -> None:
    """Record that ``row`` was just used (written at most once per ``LAST_USED_EVERY``)."""
    now = now or timezone.now()
    if row.last_used_at is not None and now - row.last_used_at < LAST_USED_EVERY:
        return
    AccessToken.objects.filter(pk=row.pk).update(last_used_at=now)
    row.last_used_at = now


def bot_account_upgrade(*, user: User) -> User:
    """Make ``user`` a bot account, for good: from then on a program plays it through
    the API (scope ``bot:play``), it is marked "bot" wherever its name is shown, and its
    matches are not rated. Refused to an account that has a rated match (its rating
    would go on standing among the people's) or is playing a match now.

    Locks the user's row."""
    with transaction.atomic():
        locked = User.objects.select_for_update().get(pk=user.pk)
        if locked.is_bot_account:
            raise Refused(_("This account is a bot account already."), code="already_bot")
        if RatingChange.objects.filter(user=locked).exists():
            raise Refused(
                _("Only an account without a rated match can become a bot account."),
                code="has_rated_matches",
            )
        playing = MatchPlayer.objects.filter(user=locked, match__status=Match.Status.PLAYING)
        if playing.exists():
            raise Refused(_("Finish the match you are playing first."), code="in_a_match")
        locked.is_bot_account = True
        locked.save(update_fields=["is_bot_account"])
    user.is_bot_account = True
    return user
