"""What the API shows, as JSON-ready data: a user's tokens, his games in play, and the
lines of a game stream.

A game stream's lines are derived from the same read of a table every viewer's page
comes from (``games.selectors.table_snapshot``), and a player's part is what his seat
may see and nothing more: the engine's public view (RULES.md §10) and his own seat's
``private_view`` (his hand, and his legal moves when it is his turn), as the table page
shows a seated player. A stream never holds another seat's cards.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.models import User
from api.models import AccessToken
from games import selectors
from games.engine import LETTERS
from games.models import ChatMessage, Match, MatchPlayer, Table, to_instant
from games.selectors import TableSnapshot


def user_tokens(user: User) -> QuerySet[AccessToken]:
    """A user's tokens for his settings page: the live ones first, newest first."""
    return AccessToken.objects.filter(owner=user).order_by("revoked_at", "-created_at")


# --- the event stream ------------------------------------------------------------------


def game_start_line(*, table_id: int, match_id: int, seat: int) -> dict[str, Any]:
    """The event stream's ``gameStart``: a match the user plays in began (or was in play
    when the stream opened); its game stream is ``/api/<bot|board>/game/stream/<tableId>``."""
    return {"type": "gameStart", "game": {"tableId": table_id, "matchId": match_id, "seat": seat}}


def game_finish_line(*, table_id: int, match_id: int, seat: int, status: str) -> dict[str, Any]:
    """The event stream's ``gameFinish``: the match ended (``finished``) or was annulled."""
    return {
        "type": "gameFinish",
        "game": {"tableId": table_id, "matchId": match_id, "seat": seat, "status": status},
    }


def games_in_play(user: User) -> list[dict[str, Any]]:
    """A ``gameStart`` line for every match in play in which ``user`` holds his seat (not
    one a bot took over from him), oldest first."""
    players = (
        MatchPlayer.objects.filter(user=user, bot_level="", match__status=Match.Status.PLAYING)
        .select_related("match")
        .order_by("match__started_at")
    )
    return [
        game_start_line(table_id=p.match.table_id, match_id=p.match_id, seat=p.seat)
        for p in players
    ]


# --- a game stream ---------------------------------------------------------------------


def seat_of(snapshot: TableSnapshot, user: User) -> int | None:
    """``user``'s engine seat in the table's match, as the table page finds it."""
    return next((p.seat for p in snapshot.match_players if p.user_id == user.pk), None)


def may_follow(snapshot: TableSnapshot, user: User) -> bool:
    """Whether ``user`` may open the table's game stream: he holds one of its seats or
    plays in its match."""
    return any(s.user_id == user.pk for s in snapshot.seats) or seat_of(snapshot, user) is not None


def _is_bot(user: User | None, bot_level: str) -> bool:
    return bool(bot_level) or (user is not None and user.is_bot_account)


def game_full(snapshot: TableSnapshot, user: User) -> dict[str, Any]:
    """The first line of a game stream: the table, its rules and clock, its seats, and
    the state as ``user``'s seat sees it (``game_state``)."""
    table, rules = snapshot.table, snapshot.rules
    seat = seat_of(snapshot, user)
    if snapshot.match is not None:
        players = [
            {
                "seat": p.seat,
                "name": p.name,
                "userId": p.user_id,
                "bot": _is_bot(p.user, p.bot_level),
                # A bot finishes the match for a person who left (or was removed).
                "botFor": bool(p.bot_level and p.user_id),
                "me": p.user_id == user.pk,
            }
            for p in snapshot.match_players
        ]
    else:
        players = []
    return {
        "type": "gameFull",
        "tableId": table.pk,
        "name": table.title,
        "rules": rules.to_json(),
        # Days per move (``daysPerTurn``, lichess's name) make a correspondence table: each
        # move restores them, and the minutes do not apply; 0 at a table of real time.
        "clock": {
            "baseMs": table.base_seconds * 1000,
            "incrementMs": table.increment_seconds * 1000,
            "daysPerTurn": table.move_days,
        },
        "rated": table.rated and not table.managed,
        "tournament": table.managed,
        "seats": [
            {
                "position": s.position,
                "name": s.user.username if s.user else (s.get_bot_level_display() or ""),
                "userId": s.user_id,
                "bot": _is_bot(s.user, s.bot_level),
                "empty": s.is_empty,
            }
            for s in snapshot.seats
        ],
        "players": players,
        "mySeat": seat,
        "state": game_state(snapshot, seat),
    }


def game_state(snapshot: TableSnapshot, seat: int | None) -> dict[str, Any]:
    """A ``gameState`` line: the match (its status and letters), the hand in play or
    just over (its id, number and version), the clocks in milliseconds at the moment of
    the read, and ``view``: the engine's view of the hand for ``seat`` (its public view,
    plus that seat's own hand and legal moves), which is what a bot of ``games.bots``
    chooses from. ``seat`` None (not a player of this match): the public view only."""
    match, hand, state = snapshot.match, snapshot.hand, snapshot.state
    line: dict[str, Any] = {
        "type": "gameState",
        "matchId": None,
        "matchStatus": None,
        "letters": [],
        "places": [],
        "handId": None,
        "handNumber": None,
        "version": None,
        "toMove": None,
        "myTurn": False,
        "clocksMs": [],
        "clockRunning": None,
        "outcome": None,
        "view": None,
    }
    if match is None:
        return line
    letters = match.match_state.letters
    line.update(
        matchId=match.pk,
        matchStatus=match.status,
        letters=[LETTERS[n] for n in letters],
        places=[p.place for p in sorted(snapshot.match_players, key=lambda p: p.seat)],
    )
    if hand is None or state is None:
        return line
    clock, at = hand.clock, to_instant(snapshot.taken_at)
    in_play = hand.outcome is None and match.status == Match.Status.PLAYING
    to_move = state.to_move if in_play else None
    view = dict(snapshot.public)
    if seat is not None:
        view.update(state.private_view(seat))
    line.update(
        handId=hand.pk,
        handNumber=hand.number,
        version=hand.version,
        toMove=to_move,
        myTurn=to_move is not None and to_move == seat,
        clocksMs=[clock.remaining(s, at) for s in range(len(letters))],
        clockRunning=clock.running if in_play else None,
        outcome=hand.outcome,
        view=view,
    )
    return line


def state_key(snapshot: TableSnapshot) -> tuple[Any, ...]:
    """What a ``gameState`` line shows apart from the running clock: a new line is sent
    only when this changes."""
    match, hand = snapshot.match, snapshot.hand
    if match is None:
        return (None,)
    return (
        match.pk,
        match.status,
        tuple(match.match_state.letters),
        hand.pk if hand else None,
        hand.version if hand else None,
        hand.outcome is not None if hand else None,
    )


def match_over(snapshot: TableSnapshot) -> bool:
    """Whether the match the stream showed is over (finished or annulled)."""
    return snapshot.match is not None and snapshot.match.status != Match.Status.PLAYING


def chat_lines(table_id: int, *, after_id: int) -> list[dict[str, Any]]:
    """The table's visible chat messages newer than message ``after_id``, as
    ``chatLine`` lines (the newest ``selectors.CHAT_SHOWN`` at most)."""
    table = Table(pk=table_id)
    return [chat_line(m) for m in selectors.visible_chat(table.pk) if m.pk > after_id]


def chat_line(message: ChatMessage) -> dict[str, Any]:
    return {
        "type": "chatLine",
        "id": message.pk,
        "username": message.author.username,
        "text": message.text,
        "at": message.created_at.isoformat(),
    }


def last_chat_id(table_id: int) -> int:
    """The id of the table's newest chat message (0: none)."""
    last = ChatMessage.objects.filter(table_id=table_id).order_by("-pk").values("pk").first()
    return last["pk"] if last else 0
