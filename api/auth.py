"""Who is calling the API: a personal access token in the ``Authorization: Bearer``
header, and nothing else (a session cookie never authorises ``/api/``). A token is
refused when it is unknown or revoked, or when its owner is deactivated or banned.

The token is never logged nor shown back: only its hash is looked up.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

from accounts.models import User
from accounts.notices import owner_ban_notice
from api import services
from api.db import in_pool
from api.errors import ApiError
from api.models import AccessToken, Scope

LANGUAGES = ("en", "pl")


@dataclass(frozen=True)
class Caller:
    """The token a request came with and the user it acts for (``request.auth``)."""

    token: AccessToken
    user: User

    @property
    def token_id(self) -> int:
        return self.token.pk


def api_language(request: HttpRequest) -> str:
    """The language of the API's sentences: the first of ours the request's
    ``Accept-Language`` names, else English (never the site's default, Polish, which a
    program did not ask for)."""
    for part in request.headers.get("Accept-Language", "").split(","):
        tag = part.split(";")[0].strip().lower().split("-")[0]
        if tag in LANGUAGES:
            return tag
    return "en"


def caller_for_token(token: str) -> Caller:
    """The caller a token stands for (its last use recorded); ApiError 401 otherwise."""
    row = (
        AccessToken.objects.select_related("owner")
        .filter(token_hash=services.token_hash(token))
        .first()
    )
    if row is None or not row.owner.is_active:
        raise ApiError(401, "token_invalid", _("This token is not valid."))
    if row.revoked_at is not None:
        raise ApiError(401, "token_revoked", _("This token has been revoked."))
    owner = row.owner
    if owner.is_banned():
        raise ApiError(401, "owner_banned", owner_ban_notice(owner))
    services.token_touch(row=row)
    return Caller(token=row, user=owner)


class TokenAuth(HttpBearer):
    """ninja's bearer scheme (so the OpenAPI schema says how to authorise), read here:
    a missing or malformed header is refused with the API's error, never logged."""

    async def __call__(self, request: HttpRequest) -> Caller:
        translation.activate(api_language(request))
        scheme, _space, token = request.headers.get("Authorization", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise ApiError(
                401,
                "token_missing",
                _("Send a personal access token: Authorization: Bearer <token>."),
            )
        return await in_pool(caller_for_token)(token)

    def authenticate(self, request: HttpRequest, token: str) -> Caller:
        return caller_for_token(token)


def require_scope(caller: Caller, *scopes: str) -> None:
    """Refuse (403) a token that holds none of ``scopes``."""
    if not any(caller.token.allows(s) for s in scopes):
        raise ApiError(
            403,
            "missing_scope",
            _("This token lacks the scope %(scopes)s.") % {"scopes": " or ".join(scopes)},
        )


def require_player(caller: Caller, kind: str) -> None:
    """The play endpoints: ``bot`` (``/api/bot/``) needs ``bot:play`` and a bot account,
    ``board`` (``/api/board/``) needs ``board:play`` and a person's account."""
    if kind == "bot":
        require_scope(caller, Scope.BOT_PLAY)
        if not caller.user.is_bot_account:
            raise ApiError(
                403,
                "not_a_bot_account",
                _("Only a bot account plays through /api/bot/; upgrade it first."),
            )
    else:
        require_scope(caller, Scope.BOARD_PLAY)
        if caller.user.is_bot_account:
            raise ApiError(
                403, "bot_account", _("A bot account plays through /api/bot/, not /api/board/.")
            )
