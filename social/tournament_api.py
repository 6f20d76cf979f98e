"""Tournaments and arenas through the API (``/api/tournament``): list those open or in
play, join and withdraw, for a bot account (scope ``bot:play``) or a person's own
program (``board:play``). The games themselves reach the program as any game does, on
its event stream and the game streams.

It sits on this floor, above both the API and the tournaments, as the challenges'
router does; ``api.api`` mounts it by its dotted path.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.responses import codes_4xx

from api.auth import Caller, require_scope
from api.db import in_pool
from api.errors import ApiError
from api.models import Scope
from core.errors import Refused
from tournaments import selectors, services
from tournaments.models import Tournament

router = Router(tags=["tournaments"])
View = Callable[..., Awaitable[Any]]


class TimeControlOut(Schema):
    limit: int
    increment: int


class SeatsOut(Schema):
    min: int
    max: int


class TournamentOut(Schema):
    """A tournament or arena (``format``: rolling_elimination or arena)."""

    id: int
    url: str
    name: str
    format: str
    status: str
    startsAt: int
    endsAt: int | None = None
    minutes: int | None = None
    timeControl: TimeControlOut
    seats: SeatsOut
    rated: bool
    botsAllowed: bool
    players: int
    joinUntil: int | None = None


class TournamentListOut(Schema):
    tournaments: list[TournamentOut]


class JoinedOut(Schema):
    ok: bool
    tournament: TournamentOut


class ErrorBody(Schema):
    code: str
    message: str


class ErrorOut(Schema):
    error: ErrorBody


ERRORS = {codes_4xx: ErrorOut}


def _one_at_a_time(view: View) -> View:
    """The API's rule of one request at a time per token (``api.api.one_at_a_time``)."""

    @functools.wraps(view)
    async def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        from api.api import one_at_a_time

        return await one_at_a_time(view)(request, *args, **kwargs)

    return limited


def _require_player_scope(caller: Caller) -> None:
    require_scope(caller, Scope.BOT_PLAY if caller.user.is_bot_account else Scope.BOARD_PLAY)


def _act(caller: Caller, tournament_id: int, *, join: bool) -> dict[str, Any]:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise ApiError(404, "unknown_tournament", _("This tournament does not exist."))
    user = caller.user
    try:
        if tournament.is_arena:
            if join:
                services.arena_join(tournament_id=tournament_id, user=user)
            else:
                services.arena_withdraw(tournament_id=tournament_id, user=user)
        elif join:
            services.tournament_register(tournament_id=tournament_id, user=user)
        else:
            services.tournament_unregister(tournament_id=tournament_id, user=user)
    except Refused as refusal:
        raise ApiError(409, refusal.code or "refused", refusal.message) from None
    tournament.refresh_from_db()
    return {"ok": True, "tournament": selectors.tournament_json(tournament)}


@router.get("", response={200: TournamentListOut, **ERRORS})
@_one_at_a_time
async def tournament_list(request: HttpRequest) -> dict[str, Any]:
    """The tournaments and arenas open for registration or in play, soonest first (at
    most 100). Any token."""
    return {"tournaments": await in_pool(selectors.api_tournaments)()}


@router.post("/{tournament_id}/join", response={200: JoinedOut, **ERRORS})
@_one_at_a_time
async def tournament_join(request: HttpRequest, tournament_id: int) -> dict[str, Any]:
    """Register for a tournament before its start, or join an arena until its last tenth
    (a paused player comes back). A bot account needs bot:play and a tournament that
    allows bots; a person's program, board:play. The games come on the event stream."""
    caller: Caller = request.auth
    _require_player_scope(caller)
    return await in_pool(_act)(caller, tournament_id, join=True)


@router.post("/{tournament_id}/withdraw", response={200: JoinedOut, **ERRORS})
@_one_at_a_time
async def tournament_withdraw(request: HttpRequest, tournament_id: int) -> dict[str, Any]:
    """Withdraw: before the start the registration goes; in an arena a player who has
    played keeps his points and is paused (join again to come back)."""
    caller: Caller = request.auth
    _require_player_scope(caller)
    return await in_pool(_act)(caller, tournament_id, join=False)
