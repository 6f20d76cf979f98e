"""What the API's tests share: tokens, bot accounts, a started table and reading a stream."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable
from typing import Any

from accounts.models import User
from api import services as api_services
from games import services
from games.engine import Rules
from games.models import Hand, Match, MatchPlayer, Table
from tests.factories import make_user


def token_for(user: User, scopes: Iterable[str] = ("bot:play",), name: str = "my bot") -> str:
    return api_services.token_create(owner=user, name=name, scopes=list(scopes)).token


def bearer(token: str) -> dict[str, dict[str, str]]:
    """The keyword arguments of a test client's request that send ``token``."""
    return {"headers": {"Authorization": f"Bearer {token}"}}


def bot_account(username: str | None = None) -> User:
    return make_user(username, is_bot_account=True)


def started_match(owner: User, *, opponent: User | None = None, bot_level: str = "") -> Hand:
    """A 2-seat table of ``owner`` against ``opponent`` (a new person by default) or a bot
    of ``bot_level``, its match started; the first hand."""
    table = services.table_create(
        owner=owner, name="API table", rules=Rules(), seats=2, base_seconds=600
    )
    if bot_level:
        services.table_add_bot(table_id=table.pk, by=owner, position=1, level=bot_level)
    else:
        services.table_sit(table_id=table.pk, user=opponent or make_user())
    services.match_start(table_id=table.pk, by=owner)
    return Hand.objects.select_related("match").get(match__table=table)


def current_hand(table: Table | int) -> Hand:
    table_id = table if isinstance(table, int) else table.pk
    return (
        Hand.objects.filter(match__table_id=table_id, match__status=Match.Status.PLAYING)
        .select_related("match")
        .order_by("-number")
        .first()
    )


def seats(hand: Hand) -> dict[int, MatchPlayer]:
    return {p.seat: p for p in hand.match.players.select_related("user")}


def bot_game():
    """A bot account against a person, the match started: (bot, its token, the hand,
    the bot's seat, the person)."""
    bot = bot_account()
    token = token_for(bot)
    hand = started_match(bot)
    players = seats(hand)
    seat = next(s for s, p in players.items() if p.user_id == bot.pk)
    return bot, token, hand, seat, players[1 - seat].user


def bots_turn(hand: Hand, bot_seat: int, opponent) -> Hand:
    """Make it the bot's turn (the person opens if it is his)."""
    state = hand.engine_state
    if state.to_move != bot_seat:
        move = state.private_view(state.to_move)["legal_moves"][0]
        services.execute(
            services.move_action(move, hand_id=hand.pk, version=hand.version, user=opponent)
        )
    return current_hand(hand.match.table_id)


class LineReader:
    """Reads an NDJSON stream of the in-process ASGI test client line by line."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.chunks = response.streaming_content.__aiter__()
        self.buffer = b""
        self.raw: list[bytes] = []  # every line as sent, keep-alives included

    async def next_line(self, timeout: float = 10) -> dict[str, Any] | None:
        """The next line (None for a keep-alive)."""
        while b"\n" not in self.buffer:
            chunk = await asyncio.wait_for(self.chunks.__anext__(), timeout)
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        self.raw.append(line)
        return json.loads(line) if line.strip() else None

    async def until(self, kind: str, timeout: float = 10, **fields: Any) -> list[dict[str, Any]]:
        """Lines up to one of type ``kind`` (with ``fields``) within ``timeout`` seconds,
        keep-alives left out."""
        seen: list[dict[str, Any]] = []
        give_up = time.monotonic() + timeout
        while True:
            left = give_up - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} {fields} in {str(seen)[-2000:]}")
            try:
                line = await self.next_line(left)
            except TimeoutError:
                raise AssertionError(f"no {kind} {fields} in {str(seen)[-2000:]}") from None
            if line is None:
                continue
            seen.append(line)
            if line["type"] == kind and all(line.get(k) == v for k, v in fields.items()):
                return seen

    async def close(self) -> None:
        await self.chunks.aclose()
