"""A player's own games: every table he sits at, whose turn it is and the time left
("My games", ``/games/``), and how many correspondence games wait for his move (the
header's count, live over the page's own socket)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import F, IntegerField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from accounts.models import User
from core.cached import cached
from games.events import waiting_key
from games.models import Hand, Match, MatchPlayer, Table
from games.selectors.labels import bot_label, time_control_label

# The tables "My games" lists: those still to be played at.
LISTED_STATUSES = (Table.Status.OPEN, Table.Status.PLAYING)


@dataclass(frozen=True)
class MyGame:
    """One table of the player's, as "My games" shows it. ``to_move``: the name of the
    player to move (None: no hand in play); ``left_ms``: his time left now."""

    table: Table
    time_control: str
    opponents: tuple[str, ...]
    my_turn: bool
    to_move: str | None
    deadline: datetime | None
    left_ms: int | None

    @property
    def correspondence(self) -> bool:
        return bool(self.table.move_days)


def _to_move() -> Cast:
    return Cast(KeyTextTransform("to_move", "state"), IntegerField())


def my_games(*, user: User, now: datetime) -> list[MyGame]:
    """Every open or playing table ``user`` sits at, the most urgent first: those waiting
    for his move by their deadline, then those waiting for another by theirs, then the
    tables whose match has not started. A few queries, whatever the number of tables."""
    tables = list(
        Table.objects.filter(seats__user=user, status__in=LISTED_STATUSES)
        .select_related("owner")
        .distinct()
    )
    matches = dict(
        Match.objects.filter(table__in=tables, status=Match.Status.PLAYING).values_list(
            "pk", "table_id"
        )
    )
    hands = {
        matches[h.match_id]: h
        for h in Hand.objects.filter(match_id__in=matches, outcome__isnull=True)
        .annotate(to_move=_to_move())
        .only("pk", "match_id", "deadline")
    }
    players: dict[int, list[MatchPlayer]] = {}
    for player in MatchPlayer.objects.filter(match_id__in=matches).order_by("seat"):
        players.setdefault(matches[player.match_id], []).append(player)
    seated: dict[int, list[str]] = {}
    for table in tables:
        for seat in table.seats.all().select_related("user").order_by("position"):
            if seat.user_id and seat.user_id != user.pk:
                seated.setdefault(table.pk, []).append(seat.user.username)
    games = []
    for table in tables:
        hand, at_table = hands.get(table.pk), players.get(table.pk, [])
        mover = next((p for p in at_table if hand is not None and p.seat == hand.to_move), None)
        deadline = hand.deadline if hand is not None else None
        games.append(
            MyGame(
                table=table,
                time_control=time_control_label(
                    table.base_seconds, table.increment_seconds, table.move_days
                ),
                opponents=tuple(_name(p) for p in at_table if p.user_id != user.pk)
                or tuple(seated.get(table.pk, ())),
                my_turn=mover is not None and mover.user_id == user.pk and not mover.bot_level,
                to_move=_name(mover) if mover is not None else None,
                deadline=deadline,
                left_ms=(
                    max(0, int((deadline - now).total_seconds() * 1000))
                    if deadline is not None
                    else None
                ),
            )
        )
    games.sort(
        key=lambda g: (
            not g.my_turn,
            g.deadline is None,
            g.deadline or now,
            -g.table.pk,
        )
    )
    return games


# The count is kept per user in the cache until a turn of his games passes
# (``events.correspondence_changed_on_commit``); this long at most.
WAITING_KEPT = 600


def waiting_count(*, user: User) -> int:
    """How many correspondence games wait for ``user``'s move now. The header of every
    page of his shows it: it is read from the cache, where it is kept until a turn of
    one of his games passes (one query when it is not kept)."""
    return cached(waiting_key(user.pk), lambda: _waiting_count(user), timeout=WAITING_KEPT)


def _waiting_count(user: User) -> int:
    # One filter() call: the player's conditions hold on one and the same MatchPlayer.
    return (
        Hand.objects.annotate(to_move=_to_move())
        .filter(
            outcome__isnull=True,
            match__status=Match.Status.PLAYING,
            match__table__move_days__gt=0,
            match__players__user=user,
            match__players__bot_level="",
            to_move=F("match__players__seat"),
        )
        .count()
    )


def _name(player: MatchPlayer) -> str:
    return bot_label(player.bot_level) if player.bot_level else player.display_name
