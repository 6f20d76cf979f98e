"""A player's actions through the API: a move, a chat message, leaving the seat. Each
calls the service the table page's socket calls (``games.services``), so a move goes the
one way every move goes (DESIGN.md, "the way of a move").

The services refuse with a sentence; the API also gives a stable code. Where a refusal
carries none, the code is read from the hand as it stood, in the order the move service
checks it: the hand in play, its clock, the seat and its turn, the version, then the
engine's judgement (whose own code, ``Illegal``, comes along as ``engine``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from api.errors import ApiError
from core.errors import Refused
from games import refusals, services
from games.engine import IllegalMove, MalformedMove, Timeout, move_from_json
from games.models import Hand, Match, MatchPlayer, Seat, Table
from games.services import CHAT_MAX_LENGTH, CHAT_RATE

PICKUP_COUNT = 3  # a pick-up that names no count takes the usual three cards


def unknown_game() -> ApiError:
    return ApiError(404, "unknown_game", _("There is no such game."))


def not_seated() -> ApiError:
    return ApiError(403, "not_seated", _("You have no seat at this table."))


def move_json(*, cards: list[str] | None, pickup: bool | int | None) -> dict[str, Any]:
    """The engine's move JSON from the API's body: ``cards`` to play (codes such as
    ``9H``, ``10S``, ``X1``; case does not matter), or ``pickup`` (true: three cards, or
    a number of cards)."""
    if (cards is None) == (pickup is None or pickup is False):
        raise ApiError(400, "bad_move", _("Send either the cards to play or a pick-up, not both."))
    if cards is not None:
        return {"type": "play", "cards": [str(c).strip().upper() for c in cards]}
    count = PICKUP_COUNT if pickup is True else pickup
    return {"type": "pickup", "count": count}


def _table_or_404(table_id: int) -> Table:
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise unknown_game()
    return table


def _hand_in_play(table_id: int, user: User) -> tuple[Hand, MatchPlayer]:
    """The hand of the table's match in play and ``user``'s player in it (two queries);
    the refusal that fits when there is none."""
    hand = (
        Hand.objects.filter(match__table_id=table_id, match__status=Match.Status.PLAYING)
        .select_related("match")
        .order_by("-number")
        .first()
    )
    me = (
        MatchPlayer.objects.filter(match_id=hand.match_id, user=user).first()
        if hand is not None
        else None
    )
    if hand is not None and me is not None:
        return hand, me
    table = _table_or_404(table_id)
    if not table.seats.filter(user=user).exists() and me is None:
        if not table.is_public:
            raise unknown_game()
        raise not_seated()
    raise ApiError(409, "no_game_in_play", _("No match is being played at this table."))


def move_play(
    *,
    user: User,
    table_id: int,
    version: int,
    move: dict[str, Any],
    hand_id: int | None = None,
    now: datetime | None = None,
) -> Hand:
    """``user`` makes ``move`` at ``version`` on the hand in play at table ``table_id``
    (``hand_id``: only if it is still that hand). Raises ApiError; nothing changed then."""
    hand, me = _hand_in_play(table_id, user)
    if hand_id is not None and hand_id != hand.pk:
        raise ApiError(
            409,
            "wrong_hand",
            _("That hand is over; the table plays hand %(n)d now.") % {"n": hand.number},
            handId=hand.pk,
            version=hand.version,
        )
    try:
        action = services.move_action(move, hand_id=hand.pk, version=version, user=user)
        return services.execute(action, now=now)
    except Refused as exc:
        raise move_refusal(exc, before=hand, me=me, move=move, version=version) from exc


def move_refusal(
    exc: Refused, *, before: Hand, me: MatchPlayer, move: dict[str, Any], version: int
) -> ApiError:
    """The API's refusal of a move the service refused: its code (the service's own,
    else read from the hand as it stood, ``before``, and as it stands now), its sentence
    and the hand's current id and version, to resynchronise from."""
    now = timezone.now()
    hand = Hand.objects.filter(pk=before.pk).select_related("match").first() or before
    where = {"handId": hand.pk, "version": hand.version}
    if exc.code:
        return ApiError(409, exc.code, exc.message, **where)
    if before.is_over or hand.match.status != Match.Status.PLAYING:
        return ApiError(409, "hand_over", exc.message, **where)
    if before.deadline is None:
        return ApiError(409, "paused", exc.message, **where)
    if before.deadline <= now or hand.is_over:
        return ApiError(409, "time_ran_out", exc.message, **where)
    state = hand.engine_state
    if state.to_move != me.seat:
        return ApiError(409, "not_your_turn", exc.message, **where)
    if me.bot_level:
        return ApiError(409, "seat_played_by_bot", exc.message, **where)
    if version != hand.version:
        return ApiError(409, "wrong_version", exc.message, **where)
    try:
        engine_move = move_from_json(move)
        if isinstance(engine_move, Timeout):
            return ApiError(400, "malformed_move", refusals.timeout_not_a_move_text(), **where)
        state.apply(engine_move)
    except MalformedMove as malformed:
        return ApiError(400, "malformed_move", exc.message, engine=malformed.code.value, **where)
    except IllegalMove as illegal:
        return ApiError(400, "illegal_move", exc.message, engine=illegal.code.value, **where)
    return ApiError(409, "refused", exc.message, **where)  # the hand moved on meanwhile


def chat_send(*, user: User, table_id: int, text: str) -> None:
    """``user`` (a player of the table) writes ``text`` in its chat."""
    _require_player(table_id, user)
    text = " ".join((text or "").split())
    if not text:
        raise ApiError(400, "bad_text", _("Write something first."))
    if len(text) > CHAT_MAX_LENGTH:
        raise ApiError(
            400,
            "bad_text",
            _("A message has at most %(n)d characters.") % {"n": CHAT_MAX_LENGTH},
        )
    try:
        services.chat_post(table_id=table_id, user=user, text=text)
    except Refused as exc:
        if exc.code:
            raise ApiError.from_refused(exc) from exc
        if user.is_muted():  # chat_post read it fresh
            raise ApiError(403, "muted", exc.message) from exc
        raise ApiError(429, "too_fast", exc.message, retry_after=CHAT_RATE[1]) from exc


def seat_leave(*, user: User, table_id: int) -> None:
    """``user`` stands up; during a match a bot plays his seat on (``table_leave``)."""
    table = _table_or_404(table_id)
    if not table.seats.filter(user=user).exists():
        if (
            not table.is_public
            and not MatchPlayer.objects.filter(match__table=table, user=user).exists()
        ):
            raise unknown_game()
        raise not_seated()
    try:
        services.table_leave(table_id=table_id, user=user)
    except Refused as exc:
        table.refresh_from_db(fields=["managed"])
        code = "tournament_seat" if table.managed else "refused"
        raise ApiError.from_refused(exc, code=code) from exc


def _require_player(table_id: int, user: User) -> Table:
    table = _table_or_404(table_id)
    seated = Seat.objects.filter(table=table, user=user).exists()
    if not seated and not MatchPlayer.objects.filter(match__table=table, user=user).exists():
        if not table.is_public:
            raise unknown_game()
        raise not_seated()
    return table
