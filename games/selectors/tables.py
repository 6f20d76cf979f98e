"""The lobby and a table for one viewer: what the table page shows him (``table_view``,
derived from a shared ``TableSnapshot``), whether he may see it, and its chat.

A player sees his own hand and legal moves; everybody else (other players, spectators)
sees only the engine's public view (RULES.md §10)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.engine import Rules, card_label
from games.models import ChatMessage, Hand, Match, MatchPlayer, Seat, Table
from games.ratings import attach_ratings, is_rated
from games.selectors.labels import (
    CardView,
    RuleLine,
    card_sort_key,
    card_view,
    cards_in_words,
)
from games.selectors.snapshot import PlayerView, TableSnapshot, table_snapshot

CHAT_SHOWN = 50


# --- lobby ---------------------------------------------------------------------------------


def lobby_tables() -> list[Table]:
    """Public tables still open or in play, newest first, with their seats and their
    players' ratings."""
    tables = list(
        Table.objects.filter(is_public=True, status__in=[Table.Status.OPEN, Table.Status.PLAYING])
        .select_related("owner")
        .order_by("-created_at")[:100]
    )
    return with_seats(tables)


def with_seats(tables: list[Table]) -> list[Table]:
    """``tables``, each with its seats (``lobby_seats``, their users' ratings attached) as
    a row of the lobby shows them."""
    # Read apart, not prefetched: a prefetched seat holds its table, which holds it (a
    # reference cycle per table, freed only by the collector's complete pass).
    seats: defaultdict[int, list[Seat]] = defaultdict(list)
    for seat in Seat.objects.filter(table__in=tables).select_related("user"):
        seats[seat.table_id].append(seat)
    for table in tables:
        table.lobby_seats = seats[table.pk]
    attach_ratings(seat.user for table_seats in seats.values() for seat in table_seats)
    return tables


# --- a table for one viewer ----------------------------------------------------------------


@dataclass
class MoveOption:
    """One legal move as a button: its JSON and its words."""

    kind: str  # "single", "multi", "pickup"
    label: str
    move: dict[str, Any]
    cards: list[str] = field(default_factory=list)


@dataclass
class TableView:
    table: Table
    rules: Rules
    rules_lines: list[RuleLine]
    time_control: str
    seats: list[Seat]
    viewer: User | None
    my_position: int | None
    is_owner: bool
    match: Match | None
    hand: Hand | None
    version: int
    players: list[PlayerView]
    my_seat: int | None
    my_cards: list[CardView]
    playable: dict[str, dict[str, Any]]
    multi_moves: list[MoveOption]
    pickups: list[MoveOption]
    pile: list[CardView]
    last_actions: list[str]
    outcome_text: str
    match_over: bool
    ranking: list[tuple[int, str, str, str]]  # place, name, letters, rating change
    chat: list[ChatMessage]
    can_sit: bool
    can_start: bool
    can_rematch: bool
    server_now_ms: int
    hands_count: int
    # What the table's matches count for: "rated", "casual" or "tournament".
    rated_as: str = "casual"
    match_over_title: str = ""  # see snapshot._match_over_words
    match_over_note: str = ""
    # At a table of a tournament that is over: who won, and a link to its page.
    tournament_over: str = ""
    tournament_link: str = ""
    tournament_url: str = ""
    # Who sees this table otherwise than a spectator: its owner, whoever holds a seat,
    # the players of its match (moderators too, but that is a permission).
    insiders: frozenset[int] = frozenset()
    # The last action and the hand's outcome as a screen reader should say them
    # (``CommonView.said``).
    said: str = ""
    history_length: int = 0  # the hand's actions so far (``CommonView.history_length``)
    # How many of ``last_actions`` (the first ones, the latest) the viewer had not seen
    # at his last visit of this correspondence table (``services.table_visit``).
    new_actions: int = 0

    @property
    def hand_in_play(self) -> bool:
        """Whether the hand shown is being played: a card pressed is judged, and one that
        may not be played is told why."""
        return self.hand is not None and not self.hand.is_over

    @property
    def seen_from(self) -> int:
        """The index in the hand of the first action new to the viewer."""
        return self.history_length - self.new_actions


def can_view_table(table: Table, user: User | None, invited_tables: list[int]) -> bool:
    """Public tables are open to all; private ones to the owner, the seated and the invited."""
    if table.is_public or table.pk in invited_tables:
        return True
    if user is None or not user.is_authenticated:
        return False
    if table.owner_id == user.pk:
        return True
    return (
        table.seats.filter(user=user).exists()
        or MatchPlayer.objects.filter(match__table=table, user=user).exists()
    )


def sees_table(snapshot: TableSnapshot, user: User | None, invited_tables: list[int]) -> bool:
    """``can_view_table`` answered from a read of the table, without a query, for everyone
    it lets in but a former player of a private table's earlier match (False: ask it)."""
    table = snapshot.table
    if table.is_public or table.pk in invited_tables:
        return True
    if user is None or not user.is_authenticated:
        return False
    return (
        table.owner_id == user.pk
        or any(seat.user_id == user.pk for seat in snapshot.seats)
        or any(player.user_id == user.pk for player in snapshot.match_players)
    )


def table_view(
    *,
    table: Table | None = None,
    viewer: User | None,
    now: datetime | None = None,
    snapshot: TableSnapshot | None = None,
    with_chat: bool = True,
) -> TableView:
    """Everything the table page shows to ``viewer`` (None or anonymous: a spectator).

    From ``snapshot`` when given (no query then, unless ``with_chat``), else from a
    fresh read of ``table``.
    """
    if snapshot is None:
        assert table is not None
        snapshot = table_snapshot(table_id=table.pk, now=now)
    table, seats, match, hand = snapshot.table, snapshot.seats, snapshot.match, snapshot.hand
    viewer = viewer if viewer is not None and viewer.is_authenticated else None
    my_seat = next(
        (p.seat for p in snapshot.match_players if viewer and p.user_id == viewer.pk), None
    )
    my_position = next((s.position for s in seats if viewer and s.user_id == viewer.pk), None)
    is_owner = viewer is not None and table.owner_id == viewer.pk
    common = snapshot.common_view()

    players = common.players
    my_cards: list[CardView] = []
    playable: dict[str, dict[str, Any]] = {}
    multi_moves: list[MoveOption] = []
    pickups: list[MoveOption] = []
    if my_seat is not None and match is not None and hand is not None:
        players = [replace(p, is_me=True) if p.seat == my_seat else p for p in players]
        private = snapshot.state.private_view(my_seat)
        language = translation.get_language()
        my_cards = [card_view(c, language) for c in sorted(private["hand"], key=card_sort_key)]
        playable, multi_moves, pickups = group_moves(private["legal_moves"])

    table_open = table.status in (Table.Status.OPEN, Table.Status.FINISHED)
    filled = snapshot.seats_taken
    return TableView(
        table=table,
        rules=snapshot.rules,
        rules_lines=common.rules_lines,
        time_control=common.time_control,
        seats=seats,
        viewer=viewer,
        my_position=my_position,
        is_owner=is_owner,
        match=match,
        hand=hand,
        version=hand.version if hand else 0,
        players=players,
        my_seat=my_seat,
        my_cards=my_cards,
        playable=playable,
        multi_moves=multi_moves,
        pickups=pickups,
        pile=common.pile,
        last_actions=common.last_actions,
        history_length=common.history_length,
        outcome_text=common.outcome_text,
        match_over=match is not None and match.status != Match.Status.PLAYING,
        ranking=common.ranking,
        chat=visible_chat(table.pk) if with_chat else [],
        can_sit=viewer is not None and table_open and my_position is None and filled < len(seats),
        can_start=is_owner and table_open and filled >= 2,
        can_rematch=is_owner and table.status == Table.Status.FINISHED and filled >= 2,
        server_now_ms=int(snapshot.taken_at.timestamp() * 1000),
        hands_count=hand.number if hand else 0,
        insiders=snapshot.insiders,
        rated_as=_rated_as(snapshot),
        match_over_title=common.match_over_title,
        match_over_note=common.match_over_note,
        tournament_over=common.tournament_over,
        tournament_link=common.tournament_link,
        tournament_url=snapshot.tournament_end.url if snapshot.tournament_end else "",
        said=common.said,
    )


def _rated_as(snapshot: TableSnapshot) -> str:
    """Whether the match being played, else the next one (with the people seated now),
    is rated (``ratings.is_rated``), casual, or a tournament's."""
    table = snapshot.table
    if table.managed:
        return "tournament"
    if snapshot.match is not None and snapshot.match.status == Match.Status.PLAYING:
        people = sum(1 for p in snapshot.match_players if p.user and not p.user.is_bot_account)
    else:
        people = sum(1 for s in snapshot.seats if s.user and not s.user.is_bot_account)
    return "rated" if is_rated(table=table, people=people) else "casual"


def pickup_label(count: int) -> str:
    """A pick-up's button, saying how many cards it takes: 'Pick up 3 cards'."""
    return ngettext("Pick up %(n)d card", "Pick up %(n)d cards", count) % {"n": count}


def group_moves(
    legal: list[dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], list[MoveOption], list[MoveOption]]:
    """A player's legal moves (JSON) as the hand shows them: the single cards that may be
    played (by code), the plays of several cards and the pick-ups as buttons."""
    singles: dict[str, dict[str, Any]] = {}
    multis: list[MoveOption] = []
    pickups: list[MoveOption] = []
    for move in legal:
        if move["type"] == "pickup":
            pickups.append(MoveOption("pickup", pickup_label(move["count"]), move))
        elif len(move["cards"]) == 1:
            singles[move["cards"][0]] = move
        else:
            cards = move["cards"]
            multis.append(
                MoveOption(
                    "multi",
                    _("Play %(cards)s (%(top)s on top)")
                    % {
                        "cards": cards_in_words(sorted(cards, key=card_sort_key)),
                        "top": card_label(cards[-1]),
                    },
                    move,
                    cards,
                )
            )
    return singles, multis, pickups


def visible_chat(table_id: int) -> list[ChatMessage]:
    """The last ``CHAT_SHOWN`` messages of a table's chat not hidden, oldest first."""
    messages = (
        ChatMessage.objects.filter(table_id=table_id, hidden_at__isnull=True)
        .select_related("author")
        .order_by("-created_at")[:CHAT_SHOWN]
    )
    return list(reversed(messages))
