"""One read of a table, the same for every viewer (``TableSnapshot``): built once per
change, updated in place of a re-read after a move (``snapshot_after_change``), with
what every viewer sees alike (``CommonView``, once per language) and who is connected.
Each viewer's own view is derived from it in ``tables.table_view``."""

from __future__ import annotations

import copy
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from typing import Any

from django.core.cache import cache
from django.db.models import OuterRef, Subquery
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games.engine import LETTERS, HandState, Rules, move_from_json
from games.engine.match import PAN
from games.models import (
    STATES,
    Hand,
    Match,
    MatchPlayer,
    RatingChange,
    Seat,
    Table,
    to_instant,
)
from games.ratings import attach_ratings, rating_label
from games.selectors.labels import (
    CardView,
    RuleLine,
    card_view,
    describe_action,
    describe_outcome,
    rating_delta,
    rules_summary,
    time_control_label,
)
from live.presence import lag_key, presence_key

ACTIONS_SHOWN = 6  # the latest actions the log shows (site.css hides those it holds under them)


def actions_kept(history: int) -> int:
    """How many of a hand's latest actions its log holds after ``history`` actions: those
    it shows, and up to five more under them, hidden, dropped six at a time. So a move
    adds its line to a page's log and drops the oldest only every sixth time
    (``games.renderers``), and a page drawn whole holds the same lines."""
    if history <= ACTIONS_SHOWN:
        return history
    return ACTIONS_SHOWN + (history - ACTIONS_SHOWN) % ACTIONS_SHOWN


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
    # Why a bot plays a person's seat: "left" (he stood up, or was removed) or "banned".
    bot_for: str = ""
    berserk: bool = False  # an arena's Berserk: half the time, no increment (Clock.bare)


@dataclass(frozen=True)
class TournamentEnd:
    """How the tournament that manages a table (``Table.managed``) ended, as the floor
    that runs tournaments tells it (``register_tournament_end``: games never imports it)."""

    cancelled: bool
    winners: tuple[str, ...]  # the names in first place (none when it was cancelled)
    url: str  # the tournament's page, with its final standings


# Table id -> how its tournament ended, or None while it goes on (or for no tournament's).
TournamentEndReader = Callable[[int], "TournamentEnd | None"]
_tournament_end_readers: dict[str, TournamentEndReader] = {}


def register_tournament_end(reader: TournamentEndReader) -> None:
    """``reader`` tells, for a managed table, whether its tournament is over (one reader:
    the tournaments floor registers it in its ``AppConfig.ready()``)."""
    known = _tournament_end_readers.get("reader")
    if known is not None and known is not reader:
        raise ValueError(f"the tournament's end already has a reader: {known!r}")
    _tournament_end_readers["reader"] = reader


# (Table id, user id) -> where his Berserk posts, or "" (an arena's game he may still
# take it in); the tournaments floor registers the one reader.
BerserkReader = Callable[[int, int], str]
_berserk_readers: dict[str, BerserkReader] = {}


def register_berserk(reader: BerserkReader) -> None:
    """``reader`` tells, for a managed table and a player seated there, where his Berserk
    posts while he may still take it (one reader: the tournaments floor's ``ready()``)."""
    known = _berserk_readers.get("reader")
    if known is not None and known is not reader:
        raise ValueError(f"Berserk already has a reader: {known!r}")
    _berserk_readers["reader"] = reader


def berserk_url(table: Table, user_id: int | None) -> str:
    """Where the player ``user_id`` at ``table`` posts his Berserk, or "" (no query for a
    table that is no tournament's)."""
    reader = _berserk_readers.get("reader")
    if not table.managed or reader is None or user_id is None:
        return ""
    return reader(table.pk, user_id)


def tournament_end(table: Table) -> TournamentEnd | None:
    """How the tournament of a managed table ended; None while it goes on, or for a table
    that is no tournament's (no query then)."""
    reader = _tournament_end_readers.get("reader")
    return reader(table.pk) if table.managed and reader is not None else None


def current_match(table: Table) -> Match | None:
    return table.matches.order_by("-started_at").first()


def current_hand(match: Match | None) -> Hand | None:
    return None if match is None else match.hands.order_by("-number").first()


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
    tournament_end: TournamentEnd | None = None  # a managed table's tournament, once over

    @cached_property
    def public(self) -> dict[str, Any]:
        """The hand's public view (RULES.md §10), built once for every viewer."""
        return self.state.public_view() if self.state is not None else {}

    @cached_property
    def _common_views(self) -> dict[str, CommonView]:
        return {}

    @cached_property
    def _settled_views(self) -> dict[str, Settled]:
        return {}

    def settled(self) -> Settled:
        """What the table shows alike through its hand, in the active language (built
        once per language, and carried to the snapshots after a move: ``evolve``)."""
        language = translation.get_language() or ""
        settled = self._settled_views.get(language)
        if settled is None:
            settled = self._settled_views[language] = _settled(self)
        return settled

    def evolve(self, **changes: Any) -> TableSnapshot:
        """This snapshot with another state of its match's hand, presence or time: what
        depends on none of them (the rules, who sits, the words of what is settled) is
        carried over rather than built again at every move."""
        unknown = set(changes) - _EVOLVING
        if unknown:
            raise ValueError(f"a snapshot evolves in {sorted(_EVOLVING)}, not {sorted(unknown)}")
        evolved = replace(self, **changes)
        for name in _CARRIED:
            if name in self.__dict__:
                evolved.__dict__[name] = self.__dict__[name]
        return evolved

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

    @cached_property
    def rules(self) -> Rules:
        """The table's rules, parsed once for every viewer."""
        return self.table.rules

    @cached_property
    def seats_taken(self) -> int:
        return sum(1 for s in self.seats if not s.is_empty)

    @cached_property
    def insiders(self) -> frozenset[int]:
        """Who sees this table otherwise than a spectator: its owner, whoever holds a
        seat, the players of its match (moderators too, but that is a permission)."""
        return frozenset(
            {self.table.owner_id}
            | {s.user_id for s in self.seats if s.user_id}
            | {p.user_id for p in self.match_players if p.user_id}
        )

    @cached_property
    def presence_marks(self) -> frozenset[int]:
        """The users whose presence mark the table shows: the people playing its hand,
        each in his box (``player_box``). A spectator, one seated before the match, or
        one a bot plays for has none to update."""
        if self.match is None or self.hand is None:
            return frozenset()
        return frozenset(p.user_id for p in self.match_players if p.user_id and not p.bot_level)


# What a snapshot's ``evolve`` may change, and the cached parts that survive it.
_EVOLVING = frozenset({"hand", "state", "presence", "taken_at"})
_CARRIED = ("rules", "seats_taken", "insiders", "_settled_views")


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
            return frame.evolve(
                hand=hand,
                state=hand.engine_state,
                presence=table_presence(frame.table, frame.match_players),
                taken_at=now,
            )
    table = Table.objects.select_related("owner").get(pk=table_id)  # for its title
    seats = list(table.seats.select_related("user"))
    match = current_match(table)
    hand = current_hand(match)
    match_players = list(match.players.select_related("user")) if match else []
    attach_ratings(row.user for row in [*seats, *match_players])
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
        tournament_end=tournament_end(table),
    )


def table_snapshots(
    table_ids: Iterable[int], *, now: datetime | None = None
) -> dict[int, TableSnapshot]:
    """``table_snapshot`` of several tables, by id, in the same few queries whatever their
    number (after a restart every table's sockets come back at once); tables that do
    not exist are left out."""
    now = now or timezone.now()
    tables = {t.pk: t for t in Table.objects.select_related("owner").filter(pk__in=table_ids)}
    if not tables:
        return {}
    seats: dict[int, list[Seat]] = _by_parent(Seat.objects, "table", tables)
    latest = Match.objects.filter(table_id=OuterRef("table_id")).order_by("-started_at")
    matches: dict[int, Match] = {}
    for match in Match.objects.filter(table_id__in=tables, pk=Subquery(latest.values("pk")[:1])):
        match.table = tables[match.table_id]
        matches[match.pk] = match
    last_hand = Hand.objects.filter(match_id=OuterRef("match_id")).order_by("-number")
    hands: dict[int, Hand] = {}
    for hand in Hand.objects.filter(match_id__in=matches, pk=Subquery(last_hand.values("pk")[:1])):
        hand.match = matches[hand.match_id]
        hands[hand.match_id] = hand
    players: dict[int, list[MatchPlayer]] = _by_parent(MatchPlayer.objects, "match", matches)
    finished = [pk for pk, match in matches.items() if match.status == Match.Status.FINISHED]
    changes: defaultdict[int, dict[int, RatingChange]] = defaultdict(dict)
    for change in RatingChange.objects.filter(match_id__in=finished) if finished else []:
        changes[change.match_id][change.user_id] = change
    match_of = {match.table_id: match for match in matches.values()}
    presence = tables_presence(
        [
            (table, players[match_of[pk].pk] if pk in match_of else [])
            for pk, table in tables.items()
        ]
    )
    snapshots = {}
    for pk, table in tables.items():
        match = match_of.get(pk)
        hand = hands.get(match.pk) if match is not None else None
        snapshots[pk] = TableSnapshot(
            table=table,
            seats=seats.get(pk, []),
            match=match,
            hand=hand,
            match_players=players.get(match.pk, []) if match is not None else [],
            rating_changes=changes[match.pk] if match is not None else {},
            presence=presence.get(pk, {}),
            taken_at=now,
            state=hand.engine_state if hand is not None else None,
            tournament_end=tournament_end(table),
        )
    return snapshots


def _by_parent(manager: Any, parent: str, parents: dict[int, Any]) -> dict[int, list[Any]]:
    """The rows of ``parents`` (by id) with their users and ratings, in the model's order,
    by parent id; each holds its parent, as a related manager's rows do (no query when
    read)."""
    rows: defaultdict[int, list[Any]] = defaultdict(list)
    query = manager.filter(**{f"{parent}_id__in": parents}).select_related("user")
    for row in query:
        setattr(row, parent, parents[getattr(row, f"{parent}_id")])
        rows[getattr(row, f"{parent}_id")].append(row)
    attach_ratings(row.user for parent_rows in rows.values() for row in parent_rows)
    return rows


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
        return frame.evolve(taken_at=now)
    if hand.version != version - 1:
        return None
    state = _state_after(frame.state, change)
    if state is None:
        return None
    hand = copy.copy(hand)  # the frame stays as it was for whoever holds it
    hand.state = state.to_json()
    hand.clock_ms = list(change["clock_ms"])
    hand.bare_seats = change.get("bare_seats", hand.bare_seats)
    hand.turn_started_at = _moment(change["turn_started_at"])
    hand.deadline = _moment(change["deadline"])
    hand.version = version
    STATES.remember(hand.pk, version, hand.state, state)
    return frame.evolve(hand=hand, state=state, taken_at=now)


def _state_after(state: HandState | None, change: dict[str, Any]) -> HandState | None:
    """The engine state a change leaves (``events.hand_change``): ``state`` itself when its
    history is as long (the clock alone changed), else ``state`` after the change's last
    action; None when that does not lead to what the change says (read instead)."""
    expected, last = change.get("history"), change.get("last")
    if state is None or expected is None:  # an event of an older release: read
        return None
    length = state.history_length
    if length != expected:
        if length != expected - 1 or last is None or last["seat"] != state.to_move:
            return None
        try:
            state = state.apply(move_from_json(last["move"]))
        except ValueError:
            return None
        if state.history_length != expected:
            return None
    if state.is_over or state.to_move != change["to_move"]:
        return None
    return state


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text is not None else None


@dataclass(frozen=True)
class CommonView:
    """What every viewer of a snapshot sees alike, in one language: built once per
    snapshot and language (``TableSnapshot.common_view``), shared by all the views."""

    players: list[PlayerView]  # with ``is_me`` False: a player's view marks his own
    pile: list[CardView]
    last_actions: list[str]
    outcome_text: str
    ranking: list[tuple[int, str, str, str]]  # place, name, letters, rating change
    rules_lines: list[RuleLine]
    time_control: str
    # The last action and the hand's outcome as a screen reader should say them, cards in
    # words ("Ola played nine of hearts"); the table's live region says it once.
    said: str = ""
    # Over a finished match: what its end means at this table (a heading and a line).
    match_over_title: str = ""
    match_over_note: str = ""
    # At a table of a tournament that is over: its end (who won) and its page's link.
    tournament_over: str = ""
    tournament_link: str = ""
    history_length: int = 0  # the hand's actions so far (the log's latest is the last)


def _bot_for(player: MatchPlayer, now: datetime) -> str:
    """Why a bot plays for a person (``games.services.table_leave`` seats it when he
    stands up during a match, a ban or a moderator's removal among the ways): "banned"
    while his ban is in force, else "left"; "" for a seat that is no person's."""
    if not player.bot_level or player.user is None:
        return ""
    return "banned" if player.user.is_banned(now) else "left"


def _match_over_words(snapshot: TableSnapshot) -> tuple[str, str]:
    """What the end of the table's match means. At a casual table the match is over; at
    a tournament's table (``Table.managed``; games never asks tournaments) whoever
    completed P-A-N is out of the tournament, and the table goes on (the tournament
    seats and deals it again) unless the tournament has closed it."""
    table, match = snapshot.table, snapshot.match
    if match is None or match.status == Match.Status.PLAYING:
        return "", ""
    if not table.managed:
        return _("The match is over"), ""
    letters = match.match_state.letters
    out = " ".join(
        _("%(name)s is out of the tournament.") % {"name": p.name}
        for p in snapshot.match_players
        if letters[p.seat] >= PAN
    )
    if snapshot.tournament_end is not None:
        return out, ""  # the tournament's end is said on its own (_tournament_over_words)
    if table.status == Table.Status.CLOSED:
        over = _("Play at this table is over.")
        return (out, over) if out else (over, "")
    return out, _("The tournament goes on: this table is seated and dealt again after the pause.")


def _tournament_over_words(end: TournamentEnd | None) -> tuple[str, str]:
    """What a table says once its tournament is over (a line, and its page's link's words)."""
    if end is None:
        return "", ""
    if end.cancelled:
        return _("The tournament is cancelled."), _("The tournament's page")
    if len(end.winners) == 1:
        over = _("The tournament is over: %(name)s won.") % {"name": end.winners[0]}
    elif end.winners:
        over = _("The tournament is over: %(names)s share first place.") % {
            "names": ", ".join(end.winners)
        }
    else:
        over = _("The tournament is over.")
    return over, _("Final standings")


@dataclass(frozen=True)
class Settled:
    """What every viewer of a table sees alike and a move in its hand does not change,
    in one language (``TableSnapshot.settled``)."""

    names: dict[int, str]  # seat -> the player's name
    # For each match player, what his box shows whatever the move: seat, name, user id,
    # bot or not, letters, place, rating, and why a bot plays for him.
    players: tuple[tuple[int, str, int | None, bool, str, int | None, str, str], ...]
    ranking: list[tuple[int, str, str, str]]
    rules_lines: list[RuleLine]
    time_control: str
    match_over_title: str
    match_over_note: str
    tournament_over: str
    tournament_link: str


def seat_names(players: list[MatchPlayer]) -> dict[int, str]:
    """Each player's name by seat, told apart: players of one name (bots of one level)
    carry their seat's number, as the seat list shows it ('Bot: greedy (seat 2)'), so
    that a screen reader's listener knows which of them moved."""
    counts = Counter(p.name for p in players)
    return {
        p.seat: p.name
        if counts[p.name] == 1
        else _("%(name)s (seat %(n)d)") % {"name": p.name, "n": p.table_position + 1}
        for p in players
    }


def _settled(snapshot: TableSnapshot) -> Settled:
    table, match, now = snapshot.table, snapshot.match, snapshot.taken_at
    players: list[tuple[int, str, int | None, bool, str, int | None, str, str]] = []
    ranking: list[tuple[int, str, str, str]] = []
    names = seat_names(snapshot.match_players)
    speed = table.speed
    if match is not None:
        letters = match.match_state.letters
        for p in snapshot.match_players:
            # A bot account (a program plays it through the API) shows as a bot, unrated.
            is_bot = bool(p.bot_level) or (p.user is not None and p.user.is_bot_account)
            players.append(
                (
                    p.seat,
                    names[p.seat],
                    p.user_id,
                    is_bot,
                    LETTERS[letters[p.seat]],
                    p.place,
                    rating_label(p.user, speed) if p.user and not p.user.is_bot_account else "",
                    _bot_for(p, now),
                )
            )
        placed = sorted(
            (p for p in snapshot.match_players if p.place), key=lambda p: (p.place, p.seat)
        )
        if match.status == Match.Status.FINISHED and placed:
            for p in placed:
                delta = rating_delta(snapshot.rating_changes.get(p.user_id))
                ranking.append((p.place, names[p.seat], LETTERS[letters[p.seat]], delta))
    match_over_title, match_over_note = _match_over_words(snapshot)
    tournament_over, tournament_link = _tournament_over_words(snapshot.tournament_end)
    return Settled(
        names=names,
        players=tuple(players),
        ranking=ranking,
        rules_lines=rules_summary(snapshot.rules),
        time_control=time_control_label(
            table.base_seconds, table.increment_seconds, table.move_days
        ),
        match_over_title=match_over_title,
        match_over_note=match_over_note,
        tournament_over=tournament_over,
        tournament_link=tournament_link,
    )


def _common_view(snapshot: TableSnapshot) -> CommonView:
    """The settled words with what the hand shows now: the players' counts and clocks,
    the pile and the last actions."""
    settled, hand = snapshot.settled(), snapshot.hand
    presence, now = snapshot.presence, snapshot.taken_at
    players: list[PlayerView] = []
    pile: list[CardView] = []
    last_actions: list[str] = []
    history_length = 0
    outcome_text = said = ""
    if snapshot.match is not None and hand is not None:
        state = snapshot.state if snapshot.state is not None else hand.engine_state
        counts, betons = state.hand_counts, state.beton_counts
        clock, at = hand.clock, to_instant(now)  # paused: every clock stands
        for seat, name, user_id, is_bot, letters, place, rating, bot_for in settled.players:
            to_move = hand.outcome is None and seat == clock.running
            connected, lag_ms = presence.get(user_id, (False, None))
            players.append(
                PlayerView(
                    seat=seat,
                    name=name,
                    user_id=user_id,
                    is_bot=is_bot,
                    is_me=False,
                    to_move=to_move,
                    hand_count=counts[seat],
                    beton_count=betons[seat],
                    letters=letters,
                    clock_ms=clock.remaining(seat, at),
                    clock_running=to_move,
                    connected=is_bot or connected,
                    lag_ms=None if is_bot else lag_ms,
                    place=place,
                    rating=rating,
                    bot_for=bot_for,
                    berserk=bool(clock.bare >> seat & 1),
                )
            )
        language = translation.get_language()
        history_length = state.history_length
        pile = [card_view(c, language) for c in state.pile]
        last_actions = [
            describe_action(entry.to_json(), settled.names, language=language)
            for entry in reversed(state.recent_history(actions_kept(state.history_length)))
        ]
        if hand.outcome is not None:
            outcome_text = describe_outcome(hand.outcome, settled.names)
        last = state.recent_history(1)
        spoken = [
            describe_action(last[0].to_json(), settled.names, language=language, spoken=True)
            if last
            else "",
            outcome_text,
        ]
        said = ". ".join(part for part in spoken if part)
    return CommonView(
        players=players,
        pile=pile,
        last_actions=last_actions,
        history_length=history_length,
        outcome_text=outcome_text,
        said=said,
        ranking=settled.ranking,
        rules_lines=settled.rules_lines,
        time_control=settled.time_control,
        match_over_title=settled.match_over_title,
        match_over_note=settled.match_over_note,
        tournament_over=settled.tournament_over,
        tournament_link=settled.tournament_link,
    )


def table_presence(table: Table, players: list[MatchPlayer]) -> dict[int, tuple[bool, int | None]]:
    """Whether each player of the match has a socket open, and his lag in ms."""
    return tables_presence([(table, players)]).get(table.pk, {})


def tables_presence(
    tables: list[tuple[Table, list[MatchPlayer]]],
) -> dict[int, dict[int, tuple[bool, int | None]]]:
    """``table_presence`` of several tables, by table id, in one read of the cache."""
    users = {table.pk: [p.user_id for p in players if p.user_id] for table, players in tables}
    keys = [
        key(table_id, uid)
        for table_id, user_ids in users.items()
        for uid in user_ids
        for key in (presence_key, lag_key)
    ]
    found = cache.get_many(keys) if keys else {}
    return {
        table_id: {
            uid: (bool(found.get(presence_key(table_id, uid))), found.get(lag_key(table_id, uid)))
            for uid in user_ids
        }
        for table_id, user_ids in users.items()
    }


class SnapshotSource:
    """The games' tables as the live room keeps them (``live.tables.TableSource``; the
    games app connects it to ``LIVE`` in its ``ready()``): a snapshot per table."""

    def read(
        self, table_id: int, *, frame: TableSnapshot | None, hand_id: int | None
    ) -> TableSnapshot:
        return table_snapshot(table_id=table_id, frame=frame, hand_id=hand_id)

    def read_many(self, table_ids: list[int]) -> dict[int, TableSnapshot]:
        return table_snapshots(table_ids)

    def apply(
        self, frame: TableSnapshot, *, hand_id: int, version: int, change: dict[str, Any]
    ) -> TableSnapshot | None:
        return snapshot_after_change(frame, hand_id=hand_id, version=version, change=change)

    def read_presence(
        self, frames: list[TableSnapshot]
    ) -> dict[int, dict[int, tuple[bool, int | None]]]:
        return tables_presence([(frame.table, frame.match_players) for frame in frames])

    def with_presence(
        self, frame: TableSnapshot, presence: dict[int, tuple[bool, int | None]]
    ) -> TableSnapshot:
        return frame.evolve(presence=presence)

    def presence_seen(
        self, frame: TableSnapshot, user_id: int, *, connected: bool
    ) -> TableSnapshot | None:
        if user_id not in frame.presence:
            return None
        lag = frame.presence[user_id][1] if connected else None
        return frame.evolve(presence={**frame.presence, user_id: (connected, lag)})

    def shows_presence(self, frame: TableSnapshot, user_id: int) -> bool:
        return user_id in frame.presence_marks

    def known(
        self, frame: TableSnapshot, table_id: int
    ) -> tuple[Hand, list[MatchPlayer], int] | None:
        """The hand as the frame shows it, its match's players and the table's id: what
        ``services.execute_async`` judges a move on (it writes it only if the row is
        still at the hand's version)."""
        if frame.hand is None:
            return None
        return frame.hand, frame.match_players, table_id

    def position(self, frame: TableSnapshot) -> tuple[int, int]:
        return frame.position
