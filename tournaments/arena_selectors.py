"""Reads of an arena: its leaderboard by pages (with the viewer's own rank), a player's
games, the top table, the podium, and a recount of the points from the hands.

Plain data for the pages and the API; nothing here writes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.engine import Timeout, hand_places
from games.models import Hand
from games.selectors import time_control_label
from tournaments.arena_scale import SCALE, GameLine, score_games
from tournaments.formats.arena import arena_rank_order, overtime
from tournaments.models import ArenaGame, ArenaPlayer, Tournament, TournamentEntry
from tournaments.services import arena_join_closes

__all__ = [
    "PAGE_SIZE",
    "ArenaPage",
    "ArenaRow",
    "Leaderboard",
    "arena_leaderboard",
    "arena_overtime_ends",
    "arena_page",
    "arena_player_games",
    "arena_recount",
    "arena_top_table",
    "berserk_offer",
    "table_in_play",
    "table_strength",
]

PAGE_SIZE = 20


@dataclass(frozen=True)
class ArenaRow:
    rank: int
    entry_id: int
    name: str
    user_id: int | None
    is_bot: bool
    points: Decimal
    streak: int
    on_fire: bool  # his next game counts double
    games: int
    performance: int | None
    rating: int
    paused: bool
    playing: bool
    is_me: bool


@dataclass(frozen=True)
class Leaderboard:
    rows: list[ArenaRow]
    page: int
    pages: int
    total: int
    my_rank: int | None
    my_page: int | None


def _ordered(tournament: Tournament) -> list[TournamentEntry]:
    entries = list(tournament.entries.filter(disqualified=False, struck_at__isnull=True))
    if tournament.is_over or any(e.place for e in entries):
        return sorted(entries, key=lambda e: (e.place or 10**6, e.display_name.lower()))
    return arena_rank_order(entries)


def arena_leaderboard(
    *, tournament: Tournament, viewer: User | None, page: int | None = None
) -> Leaderboard:
    """One page of the leaderboard (``PAGE_SIZE`` rows); without ``page``, the viewer's
    own page (the first for a visitor or a player not in it). Ranks count from 1."""
    ordered = _ordered(tournament)
    total = len(ordered)
    pages = max(1, -(-total // PAGE_SIZE))
    my_rank = None
    if viewer is not None and viewer.is_authenticated:
        my_rank = next((i for i, e in enumerate(ordered, 1) if e.user_id == viewer.pk), None)
    my_page = None if my_rank is None else (my_rank - 1) // PAGE_SIZE + 1
    if page is None:
        page = my_page or 1
    page = min(max(1, page), pages)
    start = (page - 1) * PAGE_SIZE
    rows = [
        ArenaRow(
            rank=start + i,
            entry_id=e.pk,
            name=e.display_name,
            user_id=e.user_id,
            is_bot=bool(e.bot_level),
            points=e.points,
            streak=e.streak,
            on_fire=e.streak >= 2,
            games=e.games_played,
            performance=round(e.performance) if e.performance is not None else None,
            rating=e.start_rating,
            paused=e.paused,
            playing=e.table_id is not None,
            is_me=my_rank == start + i,
        )
        for i, e in enumerate(ordered[start : start + PAGE_SIZE], 1)
    ]
    return Leaderboard(
        rows=rows, page=page, pages=pages, total=total, my_rank=my_rank, my_page=my_page
    )


@dataclass(frozen=True)
class PlayerGame:
    game_id: int
    hand_id: int | None
    place: str  # "1", or "2–3" for a shared place
    players: int
    points: Decimal | None
    doubled: bool
    berserk: bool
    berserk_point: bool
    in_play: bool


def arena_player_games(*, tournament: Tournament, entry_id: int) -> list[PlayerGame]:
    """An arena player's games, newest first, with their places and points."""
    parts = list(
        ArenaPlayer.objects.filter(game__tournament=tournament, entry_id=entry_id)
        .select_related("game")
        .annotate(size=Count("game__players"))
        .order_by("-game_id")
    )
    hands = dict(
        Hand.objects.filter(match_id__in=[p.game.match_id for p in parts]).values_list(
            "match_id", "pk"
        )
    )
    games = []
    for part in parts:
        if part.place_best is None:
            place = ""
        elif part.place_best == part.place_worst:
            place = str(part.place_best)
        else:
            place = f"{part.place_best}–{part.place_worst}"
        games.append(
            PlayerGame(
                game_id=part.game_id,
                hand_id=hands.get(part.game.match_id),
                place=place,
                players=part.size,
                points=part.points,
                doubled=part.doubled,
                berserk=part.berserk,
                berserk_point=part.berserk_point,
                in_play=part.game.finished_at is None,
            )
        )
    return games


def arena_top_table(tournament: Tournament) -> int | None:
    """The games table of the arena's game in play with the best-ranked players (the
    highest mean of points, then of ratings), for its TV; None when none is in play."""
    best, best_key = None, None
    games = ArenaGame.objects.filter(tournament=tournament, finished_at__isnull=True)
    for game in games.prefetch_related("players__entry").select_related("link"):
        entries = [p.entry for p in game.players.all()]
        if not entries:
            continue
        key = (
            sum(e.points for e in entries) / len(entries),
            sum(e.start_rating for e in entries) / len(entries),
        )
        if best_key is None or key > best_key:
            best, best_key = game.link.table_id, key
    return best


def table_strength(table_id: int) -> int:
    """The mean rating at the start of the arena players at a games table's game in play."""
    ratings = list(
        ArenaPlayer.objects.filter(
            game__link__table_id=table_id, game__finished_at__isnull=True
        ).values_list("entry__start_rating", flat=True)
    )
    return round(sum(ratings) / len(ratings)) if ratings else 0


def table_in_play(tournament: Tournament, table_id: int) -> bool:
    """Whether a game of the arena is in play at the games table ``table_id``."""
    return ArenaGame.objects.filter(
        tournament=tournament, link__table_id=table_id, finished_at__isnull=True
    ).exists()


def arena_overtime_ends(tournament: Tournament) -> datetime | None:
    """When the games still in play at the end stop counting (the bound the page states)."""
    return None if tournament.ends_at is None else tournament.ends_at + overtime(tournament)


def arena_recount(tournament: Tournament) -> dict[int, Decimal]:
    """Every entry's points counted again from the hands alone: each counted game's hand
    gives the places (``games.engine.hand_places``), the actions and Berserk (the seats
    its clock gave no increment), and ``arena_scale`` the points, in the order the
    player played them."""
    parts = list(
        ArenaPlayer.objects.filter(game__tournament=tournament, game__counted=True)
        .select_related("game")
        .order_by("game_id")
    )
    hands = {
        h.match_id: h for h in Hand.objects.filter(match_id__in={p.game.match_id for p in parts})
    }
    sizes: dict[int, int] = defaultdict(int)
    for part in parts:
        sizes[part.game_id] += 1
    lines: dict[int, list[GameLine]] = defaultdict(list)
    for part in parts:
        hand = hands[part.game.match_id]
        state = hand.engine_state
        places = hand_places(state)
        if places is None:
            continue
        actions = sum(
            1
            for entry in state.history
            if entry.seat == part.seat and not entry.auto and entry.move.__class__ is not Timeout
        )
        lines[part.entry_id].append(
            GameLine(
                places[part.seat],
                sizes[part.game_id],
                berserk=bool(hand.bare_seats >> part.seat & 1),
                actions=actions,
            )
        )
    points = {
        entry_id: Decimal(0)
        for entry_id in tournament.entries.filter(~Q(disqualified=True)).values_list(
            "pk", flat=True
        )
    }
    for entry_id, games in lines.items():
        points[entry_id] = score_games(games)[0]
    return points


@dataclass(frozen=True)
class ArenaPage:
    """Everything an arena's page shows to one viewer."""

    tournament: Tournament
    time_control: str
    board: Leaderboard
    me: ArenaRow | None  # the viewer's own row, wherever it is on the leaderboard
    my_entry: TournamentEntry | None
    my_games: list[PlayerGame]
    my_table_url: str | None
    can_join: bool
    can_pause: bool
    can_withdraw: bool
    join_closes: datetime | None
    overtime_ends: datetime | None
    top_table_url: str | None
    podium: list[ArenaRow]
    games_played: int
    players: int
    scale: list[tuple[int, tuple[int, ...]]]


def arena_page(
    *,
    tournament: Tournament,
    viewer: User | None,
    page: int | None = None,
    now: datetime | None = None,
) -> ArenaPage:
    """The arena's page for ``viewer`` (None or anonymous: a visitor): the leaderboard's
    page (the viewer's own by default), his rank, his games, what he may do."""
    now = now or timezone.now()
    viewer = viewer if viewer is not None and viewer.is_authenticated else None
    board = arena_leaderboard(tournament=tournament, viewer=viewer, page=page)
    my_entry = tournament.entries.filter(user=viewer).first() if viewer is not None else None
    me = None
    if my_entry is not None and board.my_rank is not None:
        mine = arena_leaderboard(tournament=tournament, viewer=viewer, page=board.my_page)
        me = next((r for r in mine.rows if r.is_me), None)
    closes = arena_join_closes(tournament)
    status = tournament.status
    scheduled = status == Tournament.Status.SCHEDULED
    running = status == Tournament.Status.RUNNING and closes is not None and now < closes
    playable = viewer is not None and (tournament.bots_allowed or not viewer.is_bot_account)
    can_join = playable and (
        (scheduled and (my_entry is None or my_entry.paused))
        or (running and (my_entry is None or (my_entry.paused and not my_entry.disqualified)))
    )
    live = tournament.is_live and (tournament.ends_at is None or now < tournament.ends_at)
    can_pause = my_entry is not None and live and not my_entry.paused and not my_entry.disqualified
    top = arena_top_table(tournament) if tournament.is_live else None
    return ArenaPage(
        tournament=tournament,
        time_control=time_control_label(tournament.base_seconds, tournament.increment_seconds),
        board=board,
        me=me,
        my_entry=my_entry,
        my_games=(
            arena_player_games(tournament=tournament, entry_id=my_entry.pk) if my_entry else []
        ),
        my_table_url=(
            reverse("games:table", kwargs={"table_id": my_entry.table.table_id})
            if my_entry is not None and my_entry.table_id is not None
            else None
        ),
        can_join=can_join,
        can_pause=can_pause,
        can_withdraw=my_entry is not None and (scheduled or live),
        join_closes=closes,
        overtime_ends=arena_overtime_ends(tournament),
        top_table_url=(
            reverse("tournaments:arena_tv", kwargs={"tournament_id": tournament.pk})
            if top
            else None
        ),
        podium=(
            arena_leaderboard(tournament=tournament, viewer=None, page=1).rows[:3]
            if status == Tournament.Status.FINISHED
            else []
        ),
        games_played=tournament.games.filter(counted=True).count(),
        players=board.total,
        scale=sorted(SCALE.items(), reverse=True),
    )


def berserk_offer(table_id: int, user_id: int) -> str:
    """Where the player ``user_id`` at the games table ``table_id`` posts his Berserk:
    an arena's game in play, before his first action and before he took it; else ""
    (``games.selectors.register_berserk``)."""
    part = (
        ArenaPlayer.objects.filter(
            game__link__table_id=table_id,
            game__finished_at__isnull=True,
            entry__user_id=user_id,
            berserk=False,
        )
        .select_related("game")
        .first()
    )
    if part is None:
        return ""
    hand = Hand.objects.filter(match_id=part.game.match_id, outcome__isnull=True).first()
    if hand is None or any(e.seat == part.seat for e in hand.engine_state.history):
        return ""
    return reverse("tournaments:berserk", kwargs={"tournament_id": part.game.tournament_id})
