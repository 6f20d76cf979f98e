"""Reads for the games app: what a given viewer may see, as plain data for templates.

A player sees his own hand and legal moves; everybody else (other players, spectators)
sees only the engine's public view (RULES.md §10). Nothing here changes state.
"""

from __future__ import annotations

import copy
import operator
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property, reduce
from typing import Any

from django.core.cache import cache
from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.permissions import PERM_INTERVENE, may
from games.engine import LETTERS, PROFILES, HandState, Reason, Rules, card_label, parse_card
from games.engine.rules import MAX_PLAYERS
from games.models import (
    BotLevel,
    ChatMessage,
    Hand,
    Match,
    MatchPlayer,
    Rating,
    RatingChange,
    Seat,
    Table,
    to_instant,
)
from games.ratings import PROVISIONAL_MATCHES, display_rating, is_provisional, rating_label

CHAT_SHOWN = 50
ACTIONS_SHOWN = 6
SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3, "X": 4}


# --- cards -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardView:
    code: str
    label: str
    rank: str
    suit: str  # S H D C, or X for a joker
    red: bool

    @classmethod
    def of(cls, code: str) -> CardView:
        if code.startswith("X"):
            return cls(code, _("Joker"), "★", "X", False)
        rank, suit = code[:-1], code[-1]
        return cls(code, card_label(code), rank, suit, suit in "HD")


def card_sort_key(code: str) -> tuple[int, int]:
    return parse_card(code), SUIT_ORDER[code[-1]]


def cards_in_words(codes: list[str]) -> str:
    return " ".join(card_label(c) if not c.startswith("X") else _("Joker") for c in codes)


# --- lobby ---------------------------------------------------------------------------------


def lobby_tables() -> QuerySet[Table]:
    """Public tables still open or in play, newest first, with their seats."""
    return (
        Table.objects.filter(is_public=True, status__in=[Table.Status.OPEN, Table.Status.PLAYING])
        .select_related("owner")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user__rating")))
        .order_by("-created_at")[:100]
    )


def profile_name(key: str, language: str) -> str:
    profile = PROFILES.get(key)
    if profile is None:
        return _("Custom rules")
    return profile.name_pl if language.startswith("pl") else profile.name_en


def rules_summary(rules: Rules) -> list[str]:
    """Every option of a table in words, in the active language (shown before sitting down)."""
    three = {
        "nines": _("Three nines only on the lone base card."),
        "match": _("Three cards of the top card's rank."),
        "any": _("Three cards of one rank, equal to or higher than the top."),
    }[rules.three_cards]
    pickup = {
        "three": _("A pick-up takes the top three cards."),
        "three_or_more": _("A pick-up takes three cards or more, as the player chooses."),
        "three_or_all": _("A pick-up takes three cards or everything above the base card."),
    }[rules.pickup]
    lines = [
        _("%(deck)d-card deck, base card %(base)s.")
        % {"deck": rules.deck, "base": card_label(rules.base_card)},
        three,
        pickup,
        _("A player may pick up even when he could play.")
        if rules.voluntary_pickup
        else _("A player may pick up only when he cannot play."),
    ]
    if rules.spades_back:
        lines.append(_("A spade on top sends the turn back (piki cofane)."))
    if rules.beton:
        lines.append(_("Beton: %(n)d face-down cards per player.") % {"n": rules.beton})
    if rules.jokers:
        lines.append(_("Two jokers: played alone on anything, they take the covered rank."))
    lines.append(
        _("A tie needs exactly one ace or four aces as the last play.")
        if rules.tie_rule == "aces_only"
        else _("The last player ties if one legal play empties his hand.")
    )
    lines.append(
        _("After %(n)d actions the hand ends: the player holding most cards loses.")
        % {"n": rules.max_actions}
        if rules.max_actions_result == "most_cards"
        else _("After %(n)d actions the hand ends in a tie.") % {"n": rules.max_actions}
    )
    return lines


def time_control_label(base_seconds: int, increment_seconds: int) -> str:
    minutes, seconds = divmod(base_seconds, 60)
    base = f"{minutes}" if not seconds else f"{minutes}:{seconds:02d}"
    return f"{base}+{increment_seconds}"


# --- a table for one viewer ----------------------------------------------------------------


@dataclass(frozen=True)
class PlayerView:
    seat: int
    name: str
    user_id: int | None
    is_bot: bool
    is_me: bool
    to_move: bool
    hand_count: int
    beton_count: int
    letters: str
    clock_ms: int
    clock_running: bool
    connected: bool
    lag_ms: int | None
    place: int | None = None
    rating: str = ""  # a person's shown rating; bots have none


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
    rules_lines: list[str]
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
    # Who sees this table otherwise than a spectator: its owner, whoever holds a seat,
    # the players of its match (moderators too, but that is a permission).
    insiders: frozenset[int] = frozenset()


def sees_as_spectator(viewer: User | None, insiders: frozenset[int]) -> bool:
    """Whether ``viewer`` sees a table as every spectator of his kind does: a visitor, or
    a signed-in user with no part in it (not one of ``TableView.insiders``, not a
    moderator, whose tools are his own)."""
    if viewer is None or not viewer.is_authenticated:
        return True
    return viewer.pk not in insiders and not may(viewer, PERM_INTERVENE)


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


def current_match(table: Table) -> Match | None:
    return table.matches.order_by("-started_at").first()


def current_hand(match: Match | None) -> Hand | None:
    return None if match is None else match.hands.order_by("-number").first()


def presence_key(table_id: int, user_id: int) -> str:
    return f"presence:{table_id}:{user_id}"


def lag_key(table_id: int, user_id: int) -> str:
    return f"lag:{table_id}:{user_id}"


@dataclass(frozen=True)
class TableSnapshot:
    """One read of everything a table shows, the same for every viewer: built once per
    change and shared by all the viewers of a process, who each derive their own view
    from it without touching the database (``table_view``)."""

    table: Table
    seats: list[Seat]
    match: Match | None
    hand: Hand | None
    match_players: list[MatchPlayer]
    rating_changes: dict[int, RatingChange]
    presence: dict[int, tuple[bool, int | None]]
    taken_at: datetime
    state: HandState | None = None  # the hand's engine state, parsed once

    @cached_property
    def public(self) -> dict[str, Any]:
        """The hand's public view (RULES.md §10), built once for every viewer."""
        return self.state.public_view() if self.state is not None else {}

    @cached_property
    def _common_views(self) -> dict[str, CommonView]:
        return {}

    def common_view(self) -> CommonView:
        """What every viewer sees alike, in the active language (built once per language)."""
        language = translation.get_language() or ""
        common = self._common_views.get(language)
        if common is None:
            common = self._common_views[language] = _common_view(self)
        return common

    @property
    def position(self) -> tuple[int, int]:
        """Where the table stands: (hand id, hand version). Hand ids grow with each deal,
        so a later hand always stands after an earlier one whatever their versions."""
        return (self.hand.pk, self.hand.version) if self.hand is not None else (0, 0)

    @property
    def insiders(self) -> frozenset[int]:
        """Who sees this table otherwise than a spectator: its owner, whoever holds a
        seat, the players of its match (moderators too, but that is a permission)."""
        return frozenset(
            {self.table.owner_id}
            | {s.user_id for s in self.seats if s.user_id}
            | {p.user_id for p in self.match_players if p.user_id}
        )


def table_snapshot(
    *,
    table_id: int,
    now: datetime | None = None,
    frame: TableSnapshot | None = None,
    hand_id: int | None = None,
) -> TableSnapshot:
    """Read a table once (a handful of queries); raises Table.DoesNotExist.

    With ``frame`` (an earlier snapshot of the table) and ``hand_id`` (the hand that just
    moved), only that hand and the presence are read again, in one query: a move in play
    changes nothing else (the seats, the match and the ratings change with events that
    read everything). A hand of another match, or a hand that ended (its loser's letter
    is the match's), is read in full.
    """
    now = now or timezone.now()
    if frame is not None and hand_id is not None and frame.match is not None:
        hand = Hand.objects.filter(
            pk=hand_id, match_id=frame.match.pk, outcome__isnull=True
        ).first()
        if hand is not None:
            return replace(
                frame,
                hand=hand,
                state=hand.engine_state,
                presence=table_presence(frame.table, frame.match_players),
                taken_at=now,
            )
    table = Table.objects.get(pk=table_id)
    seats = list(table.seats.select_related("user__rating"))
    match = current_match(table)
    hand = current_hand(match)
    match_players = list(match.players.select_related("user__rating")) if match else []
    finished = match is not None and match.status == Match.Status.FINISHED
    return TableSnapshot(
        table=table,
        seats=seats,
        match=match,
        hand=hand,
        match_players=match_players,
        rating_changes={c.user_id: c for c in match.rating_changes.all()} if finished else {},
        presence=table_presence(table, match_players),
        taken_at=now,
        state=hand.engine_state if hand is not None else None,
    )


def snapshot_after_change(
    frame: TableSnapshot,
    *,
    hand_id: int,
    version: int,
    change: dict[str, Any],
    now: datetime | None = None,
) -> TableSnapshot | None:
    """The table after a change to its hand in play that an event carried
    (``events.hand_change``), from the snapshot that showed the version before; None
    when ``frame`` is not that (another hand, an older or later version): read instead.
    Touches neither the database nor the cache (the frame's presence is kept)."""
    hand = frame.hand
    if hand is None or hand.pk != hand_id or hand.outcome is not None:
        return None
    now = now or timezone.now()
    if hand.version == version:
        return replace(frame, taken_at=now)
    if hand.version != version - 1:
        return None
    hand = copy.copy(hand)  # the frame stays as it was for whoever holds it
    hand.state = change["state"]
    hand.clock_ms = list(change["clock_ms"])
    hand.turn_started_at = _moment(change["turn_started_at"])
    hand.deadline = _moment(change["deadline"])
    hand.version = version
    return replace(frame, hand=hand, state=hand.engine_state, taken_at=now)


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text is not None else None


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
        my_cards = [CardView.of(c) for c in sorted(private["hand"], key=card_sort_key)]
        playable, multi_moves, pickups = _group_moves(private["legal_moves"])

    table_open = table.status in (Table.Status.OPEN, Table.Status.FINISHED)
    filled = sum(1 for s in seats if not s.is_empty)
    return TableView(
        table=table,
        rules=table.rules,
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
        outcome_text=common.outcome_text,
        match_over=match is not None and match.status != Match.Status.PLAYING,
        ranking=common.ranking,
        chat=visible_chat(table) if with_chat else [],
        can_sit=viewer is not None and table_open and my_position is None and filled < len(seats),
        can_start=is_owner and table_open and filled >= 2,
        can_rematch=is_owner and table.status == Table.Status.FINISHED and filled >= 2,
        server_now_ms=int(snapshot.taken_at.timestamp() * 1000),
        hands_count=hand.number if hand else 0,
        insiders=snapshot.insiders,
    )


@dataclass(frozen=True)
class CommonView:
    """What every viewer of a snapshot sees alike, in one language: built once per
    snapshot and language (``TableSnapshot.common_view``), shared by all the views."""

    players: list[PlayerView]  # with ``is_me`` False: a player's view marks his own
    pile: list[CardView]
    last_actions: list[str]
    outcome_text: str
    ranking: list[tuple[int, str, str, str]]  # place, name, letters, rating change
    rules_lines: list[str]
    time_control: str


def _common_view(snapshot: TableSnapshot) -> CommonView:
    table, match, hand = snapshot.table, snapshot.match, snapshot.hand
    presence, now = snapshot.presence, snapshot.taken_at
    players: list[PlayerView] = []
    pile: list[CardView] = []
    last_actions: list[str] = []
    outcome_text = ""
    ranking: list[tuple[int, str, str, str]] = []
    if match is not None and hand is not None:
        view = snapshot.public
        letters = match.match_state.letters
        clock, at = hand.clock, to_instant(now)  # paused: every clock stands
        for p in snapshot.match_players:
            to_move = hand.outcome is None and p.seat == clock.running
            connected, lag_ms = presence.get(p.user_id, (False, None))
            players.append(
                PlayerView(
                    seat=p.seat,
                    name=p.display_name,
                    user_id=p.user_id,
                    is_bot=bool(p.bot_level),
                    is_me=False,
                    to_move=to_move,
                    hand_count=view["hand_counts"][p.seat],
                    beton_count=view["beton_counts"][p.seat],
                    letters=LETTERS[letters[p.seat]],
                    clock_ms=clock.remaining(p.seat, at),
                    clock_running=to_move,
                    connected=bool(p.bot_level) or connected,
                    lag_ms=None if p.bot_level else lag_ms,
                    place=p.place,
                    rating=rating_label(p.user) if p.user else "",
                )
            )
        pile = [CardView.of(c) for c in view["pile"]]
        names = {p.seat: p.display_name for p in snapshot.match_players}
        last_actions = [
            describe_action(entry, names) for entry in view["history"][-ACTIONS_SHOWN:]
        ][::-1]
        if hand.outcome is not None:
            outcome_text = describe_outcome(hand.outcome, names)
        placed = sorted(
            (p for p in snapshot.match_players if p.place), key=lambda p: (p.place, p.seat)
        )
        if match.status == Match.Status.FINISHED and placed:
            for p in placed:
                delta = rating_delta(snapshot.rating_changes.get(p.user_id))
                ranking.append((p.place, p.display_name, LETTERS[letters[p.seat]], delta))
    return CommonView(
        players=players,
        pile=pile,
        last_actions=last_actions,
        outcome_text=outcome_text,
        ranking=ranking,
        rules_lines=rules_summary(table.rules),
        time_control=time_control_label(table.base_seconds, table.increment_seconds),
    )


def table_presence(table: Table, players: list[MatchPlayer]) -> dict[int, tuple[bool, int | None]]:
    """Whether each player of the match has a socket open, and his lag in ms."""
    user_ids = [p.user_id for p in players if p.user_id]
    if not user_ids:
        return {}
    keys = {presence_key(table.pk, uid): uid for uid in user_ids}
    lag_keys = {lag_key(table.pk, uid): uid for uid in user_ids}
    found = cache.get_many([*keys, *lag_keys])
    return {
        uid: (bool(found.get(presence_key(table.pk, uid))), found.get(lag_key(table.pk, uid)))
        for uid in user_ids
    }


def _group_moves(
    legal: list[dict[str, Any]],
) -> tuple[dict[str, dict[str, Any]], list[MoveOption], list[MoveOption]]:
    singles: dict[str, dict[str, Any]] = {}
    multis: list[MoveOption] = []
    pickups: list[MoveOption] = []
    for move in legal:
        if move["type"] == "pickup":
            pickups.append(
                MoveOption(
                    "pickup",
                    _("Pick up %(n)d") % {"n": move["count"]}
                    if len(legal) > 1 or move["count"] != 3
                    else _("Pick up"),
                    move,
                )
            )
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
    if len(pickups) == 1:
        pickups[0].label = _("Pick up")
    return singles, multis, pickups


def describe_action(entry: dict[str, Any], names: dict[int, str]) -> str:
    """One line of the action log in words: 'Ola picked up K♠ Q♦ Q♣'."""
    name = names.get(entry["seat"], "?")
    if entry["type"] == "pickup":
        return _("%(name)s picked up %(cards)s") % {
            "name": name,
            "cards": cards_in_words(entry["cards"]),
        }
    if entry["type"] == "timeout":
        return _("%(name)s ran out of time") % {"name": name}
    if entry.get("auto"):
        return _("%(name)s finished with %(cards)s") % {
            "name": name,
            "cards": cards_in_words(entry["cards"]),
        }
    return _("%(name)s played %(cards)s") % {"name": name, "cards": cards_in_words(entry["cards"])}


def describe_outcome(outcome: dict[str, Any], names: dict[int, str]) -> str:
    reason = outcome["reason"]
    if reason == Reason.ABORTED:  # by a moderator (services.hand_stop_without_letter)
        return _("A moderator aborted this hand: nobody gets a letter.")
    if outcome["loser"] is None:
        if reason == "max_actions":
            return _("The hand reached its action limit: a tie, nobody gets a letter.")
        return _("A tie: %(name)s emptied his hand with the last play. Nobody gets a letter.") % {
            "name": names.get((outcome.get("final_play") or {}).get("seat"), "?")
        }
    name = names.get(outcome["loser"], "?")
    return {
        "timeout": _("%(name)s ran out of time and loses the hand."),
        "max_actions": _("The hand reached its action limit: %(name)s holds most cards and loses."),
        "last_player": _("%(name)s is left holding cards and loses the hand."),
    }.get(reason, _("%(name)s loses the hand.")) % {"name": name}


def visible_chat(table: Table) -> list[ChatMessage]:
    messages = (
        table.chat_messages.filter(hidden_at__isnull=True)
        .select_related("author")
        .order_by("-created_at")[:CHAT_SHOWN]
    )
    return list(reversed(messages))


def bot_label(level: str) -> str:
    return str(BotLevel(level).label)


# --- ratings ------------------------------------------------------------------------------------

LEADERBOARD_SIZE = 100


def rating_delta(change: RatingChange | None) -> str:
    """A match's effect on the shown rating, signed ("+23", "-8"), or "" if unrated."""
    if change is None:
        return ""
    return f"{display_rating(change.mu_after) - display_rating(change.mu_before):+d}"


@dataclass(frozen=True)
class LeaderRow:
    place: int
    user: User
    rating: int
    matches: int


def leaderboard() -> list[LeaderRow]:
    """The established players (no longer provisional) by rating, banned ones left out."""
    now = timezone.now()
    rows = (
        Rating.objects.filter(matches__gte=PROVISIONAL_MATCHES, user__is_active=True)
        .exclude(user__banned_until__gt=now)
        .select_related("user")
        .order_by("-mu", "user__username")[:LEADERBOARD_SIZE]
    )
    return [
        LeaderRow(place=i, user=r.user, rating=display_rating(r.mu), matches=r.matches)
        for i, r in enumerate(rows, start=1)
    ]


# --- a player's record ------------------------------------------------------------------------

RECENT_MATCHES = 10


@dataclass(frozen=True)
class RecentMatch:
    """One finished match on a profile: where, when, the place, and its last hand."""

    match: Match
    place: int
    players: int
    replay: Hand | None  # the hand that ended it, when the viewer may replay it
    rating_delta: str = ""  # "+12", "-8", or "" if it was not rated


RATING_CHART_MATCHES = 100
_CHART_WIDTH, _CHART_HEIGHT, _CHART_MARGIN = 300, 60, 4


@dataclass(frozen=True)
class RatingChart:
    """A player's shown rating before his last rated matches and after each of them,
    oldest first, with the points of a line through them in a 300 × 60 box."""

    ratings: list[int]

    @property
    def matches(self) -> int:
        return len(self.ratings) - 1

    @property
    def low(self) -> int:
        return min(self.ratings)

    @property
    def high(self) -> int:
        return max(self.ratings)

    @property
    def points(self) -> str:
        span = (self.high - self.low) or 1
        step = _CHART_WIDTH / (len(self.ratings) - 1)
        inner = _CHART_HEIGHT - 2 * _CHART_MARGIN
        return " ".join(
            f"{i * step:.1f},{_CHART_MARGIN + inner * (self.high - r) / span:.1f}"
            for i, r in enumerate(self.ratings)
        )


@dataclass(frozen=True)
class PlayerRecord:
    """What a profile says of a player's games. Matches are those at ordinary tables
    (tournaments are listed on their own); hands count every table, tournaments too."""

    rating: int | None  # the shown rating, None before his first rated match
    provisional: bool
    matches: int
    wins: int
    pans: int  # matches he ended with P-A-N: last place
    hands: int
    hands_lost: int
    recent: list[RecentMatch]
    rating_chart: RatingChart | None = None  # from his first rated match on

    @staticmethod
    def _percent(part: int, whole: int) -> int | None:
        return round(100 * part / whole) if whole else None

    @property
    def win_percent(self) -> int | None:
        return self._percent(self.wins, self.matches)

    @property
    def hands_lost_percent(self) -> int | None:
        return self._percent(self.hands_lost, self.hands)


_match_size = (
    MatchPlayer.objects.filter(match=OuterRef("match"))
    .values("match")
    .annotate(n=Count("pk"))
    .values("n")
)

_last_hand = Hand.objects.filter(match=OuterRef("match")).order_by("-number").values("pk")[:1]


def player_record(*, user: User, viewer: User | None) -> PlayerRecord:
    """The profile's statistics for ``user``, with replays that ``viewer`` may open."""
    finished = (
        MatchPlayer.objects.filter(
            user=user,
            place__isnull=False,
            match__status=Match.Status.FINISHED,
            match__table__managed=False,
        )
        .annotate(size=Subquery(_match_size))
        .select_related("match__table")
        .order_by("-match__finished_at")
    )
    counts = finished.aggregate(
        matches=Count("pk"),
        wins=Count("pk", filter=Q(place=1)),
        pans=Count("pk", filter=Q(place=F("size"))),
    )
    # One filter() call each, so that the user and his seat are the same player row.
    mine = (
        Q(match__players__user=user, finished_at__isnull=False)
        & ~Q(match__status=Match.Status.ANNULLED)
        & ~Q(outcome__reason=Reason.ABORTED.value)
    )
    lost_seat = reduce(
        operator.or_,
        (Q(match__players__seat=seat, outcome__loser=seat) for seat in range(MAX_PLAYERS)),
    )
    rows = list(finished.annotate(last_hand=Subquery(_last_hand))[:RECENT_MATCHES])
    last_hands = Hand.objects.select_related("match__table").in_bulk([r.last_hand for r in rows])
    # The newest rated matches in the order they were rated (each one's rating before is
    # the previous one's after); those among the recent matches are necessarily here.
    changes = list(RatingChange.objects.filter(user=user).order_by("-pk")[:RATING_CHART_MATCHES])
    changes.reverse()
    by_match = {c.match_id: c for c in changes}
    recent = []
    for row in rows:
        last = last_hands.get(row.last_hand)
        visible = last is not None and (viewer == user or can_view_hand(last, viewer))
        recent.append(
            RecentMatch(
                row.match,
                row.place,
                row.size,
                last if visible else None,
                rating_delta(by_match.get(row.match_id)),
            )
        )
    chart = None
    if changes:
        shown = [display_rating(changes[0].mu_before)]
        chart = RatingChart(shown + [display_rating(c.mu_after) for c in changes])
    rating = Rating.objects.filter(user=user).first()
    return PlayerRecord(
        rating=display_rating(rating.mu) if rating else None,
        provisional=is_provisional(rating),
        matches=counts["matches"],
        wins=counts["wins"],
        pans=counts["pans"],
        hands=Hand.objects.filter(mine).count(),
        hands_lost=Hand.objects.filter(mine & lost_seat).count(),
        recent=recent,
        rating_chart=chart,
    )


# --- finished hands: replay, export, verification ----------------------------------------------


def can_view_hand(hand: Hand, user: User | None) -> bool:
    """A finished hand is shown to its players, and to anyone if its table is public."""
    if not hand.is_over:
        return False
    if hand.match.table.is_public:
        return True
    return bool(
        user is not None and user.is_authenticated and hand.match.players.filter(user=user).exists()
    )


@dataclass
class ReplayFrame:
    step: int
    text: str
    pile: list[CardView]
    hands: list[tuple[str, list[CardView], int]]  # name, cards, beton count
    to_move: str


@dataclass
class HandReplay:
    hand: Hand
    table: Table
    names: list[str]
    frames: list[ReplayFrame]
    outcome_text: str
    verified: bool


def hand_replay(hand: Hand) -> HandReplay:
    """Every position of a finished hand, from the deal to the end, all cards face up."""
    from games.engine import deal, move_from_json

    players = list(hand.match.players.order_by("seat"))
    names = [p.display_name for p in players]
    actions = list(hand.actions.order_by("index"))
    name_map = dict(enumerate(names))
    # Rebuild frame by frame from the recorded log, so each step is one line of it. The
    # automatic final play of a tie is made by the engine inside the move before it.
    state = deal(hand.match.table.rules, len(players), hand.dealer, hand.seed)
    frames = [_frame(0, _("The deal"), state, names)]
    for action in actions:
        if not action.entry.get("auto"):
            move = move_from_json(action.move)
            state = state.timeout() if action.move["type"] == "timeout" else state.apply(move)
        frames.append(
            _frame(action.index + 1, describe_action(action.entry, name_map), state, names)
        )
    from games.engine import verify_commitment

    return HandReplay(
        hand=hand,
        table=hand.match.table,
        names=names,
        frames=frames,
        outcome_text=describe_outcome(hand.outcome, name_map) if hand.outcome else "",
        verified=verify_commitment(hand.commitment, hand.seed, hand.salt),
    )


def _frame(step: int, text: str, state: Any, names: list[str]) -> ReplayFrame:
    return ReplayFrame(
        step=step,
        text=text,
        pile=[CardView.of(c) for c in state.pile],
        hands=[
            (
                names[seat],
                [CardView.of(c) for c in sorted(state.hand(seat), key=card_sort_key)],
                state.beton_counts[seat],
            )
            for seat in range(len(names))
        ],
        to_move=names[state.to_move] if state.outcome is None else "",
    )


def hand_export(hand: Hand) -> dict[str, Any]:
    """The hand as JSON: deal inputs, the seed and its commitment, the action log, the result."""
    players = list(hand.match.players.order_by("seat"))
    return {
        "hand": hand.pk,
        "table": hand.match.table.name,
        "match": hand.match_id,
        "number": hand.number,
        "rules": hand.match.table.rules_json,
        "players": [{"seat": p.seat, "name": p.display_name} for p in players],
        "dealer": hand.dealer,
        "seed": hand.seed,
        "salt": hand.salt,
        "commitment": hand.commitment,
        "commitment_formula": "sha256(salt + ':' + seed)",
        "actions": [
            {"index": a.index, "seat": a.seat, **a.entry, "time_used_ms": a.time_used_ms}
            for a in hand.actions.order_by("index")
        ],
        "outcome": hand.outcome,
        "started_at": hand.started_at.isoformat(),
        "finished_at": hand.finished_at.isoformat() if hand.finished_at else None,
    }
