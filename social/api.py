"""Challenges through the API (``/api/challenge``), for programs and third-party clients,
modelled on lichess's challenge API. Scopes: ``challenge:read`` to list, ``challenge:write``
to send, accept, decline and cancel. Refusals are the API's JSON errors
(``{"error": {"code", "message"}}``) with the service's code; nothing changes then.

``api.api`` mounts this router by its dotted path (``api.add_router("/challenge",
"social.api.router")``): the helpers of that module are imported when a request runs,
so that either module may be imported first.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Literal

from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.responses import codes_4xx

from accounts.models import User
from accounts.selectors import active_user_named
from api.auth import Caller, require_scope
from api.db import in_pool
from api.errors import ApiError
from api.models import Scope
from api.parser import BodyIn
from api.streams import KEEP_ALIVE, KEEP_ALIVE_LINE, Listener, ndjson
from core.broadcast import user_group
from core.errors import Refused
from games.engine import PROFILES
from games.models import MAX_SEATS, MIN_SEATS
from games.services.tables import MAX_BASE_SECONDS, MAX_INCREMENT_SECONDS, MIN_BASE_SECONDS
from social import events, selectors, services
from social.models import Challenge, DeclineReason

router = Router(tags=["challenges"])

# The HTTP status of each refusal's code; any other refusal is a conflict with the state.
STATUS_OF = {
    "unknown_challenge": 404,
    "not_challenged": 403,
    "not_challenger": 403,
    "challenge_followed_only": 403,
    "challenge_blocked": 403,
    "blocked": 403,
    "challenge_self": 403,
    "bad_seats": 400,
    "bad_rules": 400,
    "bad_time_control": 400,
    "bad_reason": 400,
    "challenge_rate": 429,
}
RATE_RETRY_AFTER = 60  # seconds: the window of the challenge limit moves on by then


# --- schemas ------------------------------------------------------------------------------


class ChallengeIn(BodyIn):
    """A challenge's table: ``seats`` (2 to 4), ``rules`` (a rule profile's key: kurnik,
    english, piki_cofane, beton, deck52, tournament), the clock (``limit`` seconds per hand
    and ``increment`` seconds added per action) and whether it is ``rated``."""

    # The bounds the services refuse with their own codes (bad_seats, bad_rules,
    # bad_time_control), declared for the schema's readers.
    seats: int = Field(2, json_schema_extra={"minimum": MIN_SEATS, "maximum": MAX_SEATS})
    rules: str = Field("kurnik", json_schema_extra={"enum": sorted(PROFILES)})
    limit: int = Field(
        180, json_schema_extra={"minimum": MIN_BASE_SECONDS, "maximum": MAX_BASE_SECONDS}
    )
    increment: int = Field(2, json_schema_extra={"minimum": 0, "maximum": MAX_INCREMENT_SECONDS})
    rated: bool = True


class DeclineIn(BodyIn):
    """Why: generic, later, too_fast, too_slow, rated, casual, rules, seats, no_bot, only_bot."""

    reason: str = Field(
        DeclineReason.GENERIC, json_schema_extra={"enum": list(DeclineReason.values)}
    )


class PlayerOut(Schema):
    id: int
    name: str


class ClockOut(Schema):
    """Minutes per hand (``limit`` seconds) and ``increment`` seconds added per action."""

    type: Literal["clock"]
    limit: int
    increment: int
    show: str


class CorrespondenceOut(Schema):
    """``daysPerTurn`` days per move, each move restoring them."""

    type: Literal["correspondence"]
    daysPerTurn: int
    show: str


class ChallengeOut(Schema):
    """A challenge; the names are camelCase, as lichess's."""

    id: int
    url: str
    status: str
    challenger: PlayerOut
    destUser: PlayerOut
    seats: int
    rules: str
    rated: bool
    timeControl: ClockOut | CorrespondenceOut
    createdAt: int
    expiresAt: int
    tableId: int | None = None
    declineReasonKey: str | None = None
    declineReason: str | None = None


class ChallengeListOut(Schema):
    incoming: list[ChallengeOut] = Field(..., alias="in")
    outgoing: list[ChallengeOut] = Field(..., alias="out")


class AnswerOut(Schema):
    ok: bool
    challenge: ChallengeOut


class ChallengeErrorBody(Schema):
    code: str
    message: str


class ChallengeErrorOut(Schema):
    error: ChallengeErrorBody


ERRORS = {codes_4xx: ChallengeErrorOut}
View = Callable[..., Awaitable[Any]]


def _one_at_a_time(view: View) -> View:
    """The API's rule of one request at a time per token (``api.api.one_at_a_time``)."""

    @functools.wraps(view)
    async def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        from api.api import one_at_a_time

        return await one_at_a_time(view)(request, *args, **kwargs)

    return limited


def _refusal(exc: Refused) -> ApiError:
    status = STATUS_OF.get(exc.code, 409)
    retry_after = RATE_RETRY_AFTER if status == 429 else None
    return ApiError(status, exc.code or "refused", exc.message, retry_after=retry_after)


def _json(challenge: Challenge) -> dict[str, Any]:
    return selectors.challenge_json(challenge)


# --- endpoints ----------------------------------------------------------------------------


@router.get("", response={200: ChallengeListOut, **ERRORS}, by_alias=True)
@_one_at_a_time
async def challenge_list(request: HttpRequest) -> dict[str, Any]:
    """The open challenges to you (`in`) and from you (`out`), oldest first. Scope
    challenge:read."""
    caller: Caller = request.auth
    require_scope(caller, Scope.CHALLENGE_READ)

    def read() -> dict[str, Any]:
        user = caller.user
        return {
            "in": [_json(c) for c in selectors.incoming_challenges(user=user)],
            "out": [_json(c) for c in selectors.outgoing_challenges(user=user)],
        }

    return await in_pool(read)()


KEPT_ALIVE_DOC = {
    "responses": {
        200: {
            "description": "The challenge; with keepAliveStream=true, NDJSON lines: the "
            'challenge, empty lines, then {"done": status}',
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    }
}


@router.post("/{username}", response={200: ChallengeOut, **ERRORS}, openapi_extra=KEPT_ALIVE_DOC)
@_one_at_a_time
async def challenge_create(
    request: HttpRequest, username: str, body: ChallengeIn, keepAliveStream: bool = False
) -> Any:
    """Challenge the player `username` to a table. The challenge expires after 20 s unless
    you keep waiting: keep your event stream (`/api/stream/event`) open, or send
    `keepAliveStream=true`, which answers with an NDJSON stream (the challenge, then an
    empty line every 6 s) that keeps it alive while open and ends with `{"done":
    "accepted"|"declined"|"canceled"|"expired"}`. Scope challenge:write."""
    caller: Caller = request.auth
    require_scope(caller, Scope.CHALLENGE_WRITE)

    def create() -> dict[str, Any]:
        challenged = active_user_named(username)
        if challenged is None:
            raise ApiError(404, "unknown_user", _("There is no such player."))
        try:
            challenge = services.challenge_create(
                challenger=caller.user,
                challenged=challenged,
                seats=body.seats,
                profile=body.rules,
                base_seconds=body.limit,
                increment_seconds=body.increment,
                rated=body.rated,
            )
        except Refused as exc:
            raise _refusal(exc) from exc
        return _json(challenge)

    created = await in_pool(create)()
    if not keepAliveStream:
        return created
    from api.api import ndjson_response

    return ndjson_response(_kept_alive(caller.user, created))


async def _kept_alive(user: User, created: dict[str, Any]) -> AsyncIterator[bytes]:
    """The challenge, then a keep-alive line every ``KEEP_ALIVE`` seconds (each one keeps
    the challenge alive), until it is answered or runs out: ``{"done": status}``."""
    challenge_id = created["id"]
    listener = Listener()
    try:
        await listener.open(user_group(user.pk))
        yield ndjson(created)
        while True:
            message = await listener.next(KEEP_ALIVE)
            if message is None:
                kept = await in_pool(services.challenge_keep_alive)(
                    challenger=user, challenge_id=challenge_id
                )
                if not kept:
                    status = await in_pool(_status)(challenge_id)
                    yield ndjson({"done": status})
                    return
                yield KEEP_ALIVE_LINE
                continue
            if (
                message.get("type") == events.CHANGED
                and message.get("challenge") == challenge_id
                and message.get("status") != Challenge.Status.CREATED
            ):
                yield ndjson({"done": message["status"]})
                return
    finally:
        await listener.close()


def _status(challenge_id: int) -> str:
    """The challenge's status as every reader sees it now."""
    challenge = Challenge.objects.filter(pk=challenge_id).first()
    return challenge.status_at(timezone.now()) if challenge else Challenge.Status.CANCELED


def _answer(run: Callable[..., Challenge]) -> View:
    """An answer's view body: the scope, then ``run`` (a service) by the caller."""

    async def answer(request: HttpRequest, challenge_id: int, **fields: Any) -> dict[str, Any]:
        caller: Caller = request.auth
        require_scope(caller, Scope.CHALLENGE_WRITE)

        def act() -> dict[str, Any]:
            try:
                challenge = run(challenge_id=challenge_id, user=caller.user, **fields)
            except Refused as exc:
                raise _refusal(exc) from exc
            return {"ok": True, "challenge": _json(challenge)}

        return await in_pool(act)()

    return answer


_accept = _answer(services.challenge_accept)
_decline = _answer(services.challenge_decline)
_cancel = _answer(services.challenge_cancel)


@router.post("/{challenge_id}/accept", response={200: AnswerOut, **ERRORS})
@_one_at_a_time
async def challenge_accept(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    """Accept a challenge to you: a table is made with the challenger in the first seat and
    you in the second (`challenge.tableId`); with two seats the match starts at once.
    Scope challenge:write."""
    return await _accept(request, challenge_id)


@router.post("/{challenge_id}/decline", response={200: AnswerOut, **ERRORS})
@_one_at_a_time
async def challenge_decline(
    request: HttpRequest, challenge_id: int, body: DeclineIn | None = None
) -> dict[str, Any]:
    """Decline a challenge to you, with a reason. Scope challenge:write."""
    reason = body.reason if body is not None else DeclineReason.GENERIC
    return await _decline(request, challenge_id, reason=reason)


@router.post("/{challenge_id}/cancel", response={200: AnswerOut, **ERRORS})
@_one_at_a_time
async def challenge_cancel(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    """Take back a challenge you sent. Scope challenge:write."""
    return await _cancel(request, challenge_id)
