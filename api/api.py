"""The Bot and Board API at ``/api/``: a program plays Pan for a bot account (``/api/bot/``,
scope ``bot:play``) or for its person's own account (``/api/board/``, scope
``board:play``), authorised by a personal access token (``api.auth``). Its OpenAPI
schema is ``/api/openapi.json``, its docs ``/api/docs``; ``docs/bot-api.md`` tells how to
use it.

Why django-ninja (rather than Django REST framework with drf-spectacular): the request
and response bodies are typed schemas (pydantic) read straight from the views'
signatures, so the OpenAPI schema is generated from the code that runs and cannot drift
from it; its views may be ``async def``, so the NDJSON streams and the moves run on the
site's existing ASGI server (daphne) beside the websockets, with no second server or
framework; and its docs page is ours to draw (``api.views.SiteReference``): the
reference is read from the same schema and shown as a page of the site.

Every refusal is ``{"error": {"code": ..., "message": ...}}`` (``api.errors``) and
changes nothing. A token makes one request at a time (a second at once: 429 with
``Retry-After``); its streams do not count, and its event stream opens at most 30 times
in 10 minutes (``api.limits``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext as _
from ninja import Field, NinjaAPI, Router, Schema
from ninja.errors import HttpError, ValidationError
from ninja.responses import codes_4xx
from pydantic import ConfigDict

from api import limits, play, services, streams
from api import selectors as api_selectors
from api.auth import Caller, TokenAuth, require_player, require_scope
from api.db import in_pool
from api.errors import ApiError, error_response
from api.models import Scope
from api.parser import BodyIn, StorableJsonParser
from api.views import SiteReference
from core.errors import Refused
from games import selectors
from games.models import Table
from games.services import CHAT_MAX_LENGTH

logger = logging.getLogger(__name__)

NDJSON = "application/x-ndjson"
PLAYERS = ("bot", "board")

api = NinjaAPI(
    title="Pan online API",
    version="1",
    description=(
        "Play Pan from a program: a bot account's games (scope bot:play, /api/bot/) or "
        "your own (scope board:play, /api/board/). Send a personal access token "
        "(account settings, API access tokens) as `Authorization: Bearer <token>`."
    ),
    urls_namespace="api",
    auth=TokenAuth(),
    docs=SiteReference(),
    parser=StorableJsonParser(),
)


# --- errors -------------------------------------------------------------------------------


class ErrorBody(Schema):
    code: str
    message: str


class ErrorOut(Schema):
    error: ErrorBody


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
    return error_response(exc)


@api.exception_handler(ValidationError)
def _validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    first = exc.errors[0] if exc.errors else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("body", "payload"))
    reason = first.get("msg", _("the request is not valid"))
    message = f"{where}: {reason}" if where else str(reason)
    return error_response(ApiError(400, "bad_request", message))


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if isinstance(exc.__cause__, ApiError):  # the parser's own refusal (api.parser)
        return error_response(exc.__cause__)
    code = "bad_request" if exc.status_code == 400 else "error"
    return error_response(ApiError(exc.status_code, code, str(exc)))


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return error_response(ApiError(404, "not_found", _("There is nothing here.")))


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return error_response(
        ApiError(413, "too_large", _("The request's body is too large to be read."))
    )


@api.exception_handler(Exception)
def _server_error(request: HttpRequest, exc: Exception) -> HttpResponse:
    logger.exception("the API failed on %s %s", request.method, request.path)
    return error_response(ApiError(500, "server_error", _("Something went wrong on our side.")))


def not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any other path under ``/api/``: the API's 404, not the site's page."""
    return error_response(ApiError(404, "not_found", _("There is nothing here.")))


# --- one request at a time per token --------------------------------------------------------


def _in_slot(token_id: int, work: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    if not limits.request_slot_take(token_id):
        raise ApiError(
            429,
            "too_many_requests",
            _("One request at a time per token: wait for the answer to the last one."),
            retry_after=limits.BUSY_RETRY_AFTER,
        )
    try:
        return work(**kwargs)
    finally:
        limits.request_slot_free(token_id)


async def in_slot(caller: Caller, work: Callable[..., Any], /, **kwargs: Any) -> Any:
    """``work(**kwargs)`` in the thread pool while it holds the token's one request slot;
    a request that finds the slot taken is refused (429) before anything is done. One
    trip to the pool for the slot and the work together."""
    return await in_pool(_in_slot)(caller.token_id, work, kwargs)


View = Callable[..., Awaitable[Any]]


def one_at_a_time(view: View) -> View:
    """``in_slot`` as a view's decorator: the token's slot is held while the whole view
    runs (two trips to the pool more than ``in_slot``; for views whose work is not one
    synchronous call)."""

    @functools.wraps(view)
    async def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        caller: Caller = request.auth
        if not await in_pool(limits.request_slot_take)(caller.token_id):
            raise ApiError(
                429,
                "too_many_requests",
                _("One request at a time per token: wait for the answer to the last one."),
                retry_after=limits.BUSY_RETRY_AFTER,
            )
        try:
            return await view(request, *args, **kwargs)
        finally:
            await in_pool(limits.request_slot_free)(caller.token_id)

    return limited


def ndjson_response(lines: Any) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type=NDJSON)
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # a proxy passes each line on at once
    return response


NDJSON_LINES = {"description": "NDJSON lines", "content": {NDJSON: {"schema": {"type": "string"}}}}
STREAM_DOC = {"responses": {200: NDJSON_LINES}}
# A stream is refused as any request is, before its first line.
STREAM_ERRORS = {codes_4xx: ErrorOut}


# --- the account -----------------------------------------------------------------------------


class AccountOut(Schema):
    id: int
    username: str
    bot: bool
    scopes: list[str]
    token: str  # the token's name


def account_json(caller: Caller) -> dict[str, Any]:
    user = caller.user
    return {
        "id": user.pk,
        "username": user.username,
        "bot": user.is_bot_account,
        "scopes": list(caller.token.scopes),
        "token": caller.token.name,
    }


@api.get("/account", response={200: AccountOut, codes_4xx: ErrorOut}, tags=["account"])
async def account(request: HttpRequest) -> dict[str, Any]:
    """Who the token acts for, whether it is a bot account, and the token's scopes."""
    return await in_slot(request.auth, account_json, caller=request.auth)


@api.post("/bot/account/upgrade", response={200: AccountOut, codes_4xx: ErrorOut}, tags=["account"])
async def bot_account_upgrade(request: HttpRequest) -> dict[str, Any]:
    """Make the token's account a bot account, for good (scope bot:play). Only an account
    without a rated match may; a bot account is marked "bot" wherever its name is shown
    and its matches are not rated."""
    caller: Caller = request.auth
    require_scope(caller, Scope.BOT_PLAY)
    try:
        await in_slot(caller, services.bot_account_upgrade, user=caller.user)
    except Refused as exc:
        raise ApiError.from_refused(exc) from exc
    return account_json(caller)


# --- the event stream --------------------------------------------------------------------


@api.get("/stream/event", response=STREAM_ERRORS, tags=["streams"], openapi_extra=STREAM_DOC)
async def event_stream(request: HttpRequest) -> StreamingHttpResponse:
    """The account's events as NDJSON: on opening, a `gameStart` for every match it
    plays now; then `gameStart` and `gameFinish` as they happen, and the challenges'
    lines (`challenge`, `challengeCanceled`, `challengeDeclined`). An empty line every
    6 s keeps it open. Scope bot:play, board:play or challenge:read (a token with
    challenge:read alone reads the challenges' lines only); at most 30 openings in 10
    minutes per token."""
    caller: Caller = request.auth
    require_scope(caller, Scope.BOT_PLAY, Scope.BOARD_PLAY, Scope.CHALLENGE_READ)
    retry_after = await in_pool(limits.stream_open_refused)(caller.token_id)
    if retry_after is not None:
        raise ApiError(
            429,
            "too_many_streams",
            _("The event stream was opened too often; wait before opening it again."),
            retry_after=retry_after,
        )
    plays = caller.token.allows(Scope.BOT_PLAY) or caller.token.allows(Scope.BOARD_PLAY)
    return ndjson_response(streams.event_stream(caller.user, caller.token_id, games=plays))


# --- playing -----------------------------------------------------------------------------


# What the schema says of a body, the server refuses with the refusal's own code
# (bad_move, bad_text): declared for the schema's readers (json_schema_extra), enforced
# by the views.
CARD_CODE = "^([2-9]|10|[JQKAjqka])[SHDCshdc]$|^[Xx][12]$"


class MoveIn(BodyIn):
    """A move at the hand's ``version`` (from the last gameState): ``cards`` to play
    (codes such as "9H", "10S", "X1"; the last one lies on top), or ``pickup`` (true for
    three cards, or a number), never both. ``handId``: only if that hand is still in
    play."""

    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {"required": ["cards"], "properties": {"cards": {"type": "array"}}},
                {"required": ["pickup"], "properties": {"pickup": {"not": {"type": "null"}}}},
            ]
        }
    )

    version: int
    cards: list[str] | None = Field(
        None,
        json_schema_extra={
            "anyOf": [
                {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 4,
                    "items": {"type": "string", "pattern": CARD_CODE},
                },
                {"type": "null"},
            ]
        },
    )
    pickup: bool | int | None = Field(
        None,
        json_schema_extra={
            "anyOf": [{"const": True}, {"type": "integer", "minimum": 1}, {"type": "null"}]
        },
    )
    handId: int | None = None


class MoveOut(Schema):
    ok: bool
    handId: int
    version: int


class ChatIn(BodyIn):
    text: str = Field(
        json_schema_extra={
            "minLength": 1,
            "maxLength": CHAT_MAX_LENGTH,
            # Some character that is not a space, and no NUL (it cannot be stored).
            "pattern": r"^[^\x00]*\S[^\x00]*$",
        }
    )


class OkOut(Schema):
    ok: bool


def _readable_table(table_id: int, caller: Caller) -> None:
    """The game stream's check, before it opens: the table exists (404) and the caller
    plays at it (403, or 404 for a private table)."""
    try:
        snapshot = selectors.table_snapshot(table_id=table_id)
    except Table.DoesNotExist:
        raise play.unknown_game() from None
    if not api_selectors.may_follow(snapshot, caller.user):
        if not snapshot.table.is_public:
            raise play.unknown_game()
        raise play.not_seated()


def player_router(kind: str) -> Router:
    """The play endpoints of ``/api/<kind>/``: ``bot`` for bot accounts, ``board`` for a
    person's own account; the same views, each checking its kind's scope."""
    router = Router(tags=[kind])

    @router.get(
        "/game/stream/{table_id}",
        response=STREAM_ERRORS,
        operation_id=f"{kind}_game_stream",
        openapi_extra=STREAM_DOC,
    )
    async def game_stream(request: HttpRequest, table_id: int) -> StreamingHttpResponse:
        """The table's game as NDJSON: `gameFull` (rules, seats, clocks, your own hand,
        the pile, letters, the hand's version, whose turn), then `gameState` after every
        change (the next hand and the match's end too), `chatLine`, `opponentGone`. It
        ends once the match is over; an empty line every 6 s keeps it open."""
        caller: Caller = request.auth
        require_player(caller, kind)
        await in_pool(_readable_table)(table_id, caller)
        return ndjson_response(streams.game_stream(caller.user, caller.token_id, table_id))

    @router.post(
        "/game/{table_id}/move",
        response={200: MoveOut, codes_4xx: ErrorOut},
        operation_id=f"{kind}_game_move",
    )
    async def move(request: HttpRequest, table_id: int, body: MoveIn) -> dict[str, Any]:
        """Play cards or pick up, on the hand at `version`. Refusals: `wrong_version`,
        `not_your_turn`, `not_seated`, `illegal_move` (with the engine's code as
        `engine`), `malformed_move`, `hand_over`, `time_ran_out`, `unknown_game`..."""
        caller: Caller = request.auth
        require_player(caller, kind)
        move_json = play.move_json(cards=body.cards, pickup=body.pickup)
        hand = await in_slot(
            caller,
            play.move_play,
            user=caller.user,
            table_id=table_id,
            version=body.version,
            move=move_json,
            hand_id=body.handId,
        )
        return {"ok": True, "handId": hand.pk, "version": hand.version}

    @router.post(
        "/game/{table_id}/chat",
        response={200: OkOut, codes_4xx: ErrorOut},
        operation_id=f"{kind}_game_chat",
    )
    async def chat(request: HttpRequest, table_id: int, body: ChatIn) -> dict[str, Any]:
        """Write in the table's chat (a player of the table)."""
        caller: Caller = request.auth
        require_player(caller, kind)
        await in_slot(caller, play.chat_send, user=caller.user, table_id=table_id, text=body.text)
        return {"ok": True}

    @router.post(
        "/game/{table_id}/leave",
        response={200: OkOut, codes_4xx: ErrorOut},
        operation_id=f"{kind}_game_leave",
    )
    async def leave(request: HttpRequest, table_id: int) -> dict[str, Any]:
        """Stand up from the table; during a match a bot plays the seat on."""
        caller: Caller = request.auth
        require_player(caller, kind)
        await in_slot(caller, play.seat_leave, user=caller.user, table_id=table_id)
        return {"ok": True}

    return router


for _kind in PLAYERS:
    api.add_router(f"/{_kind}", player_router(_kind))

# Challenges (the social app): /api/challenge, /api/challenge/{username}, /api/challenge/{id}/...
api.add_router("/challenge", "social.api.router")
# Tournaments and arenas (the social floor, above both): /api/tournament, .../{id}/join, ...
api.add_router("/tournament", "social.tournament_api.router")
