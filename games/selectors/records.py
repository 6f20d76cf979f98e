"""What finished play leaves: the leaderboard, a player's record on his profile, and a
finished hand's replay and export (with the check of its deal's commitment)."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from datetime import datetime
from functools import reduce
from typing import Any

from django.db.models import Count, F, OuterRef, Q, Subquery, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from accounts.permissions import PERM_BAN, may
from games.engine import Reason
from games.engine.rules import MAX_PLAYERS
from games.models import (
    RATING_MU,
    Hand,
    Match,
    MatchPlayer,
    Rating,
    RatingChange,
    RatingRefund,
    Table,
)
from games.ratings import PROVISIONAL_MATCHES, display_rating, is_provisional, refund_points
from games.selectors.labels import (
    CardView,
    card_sort_key,
    describe_action,
    describe_outcome,
    rating_delta,
)
from games.speeds import Speed

# --- ratings ------------------------------------------------------------------------------------


LEADERBOARD_SIZE = 100


@dataclass(frozen=True)
class LeaderRow:
    place: int
    user: User
    rating: int
    matches: int


def leaderboard(speed: Speed) -> list[LeaderRow]:
    """The established players of ``speed`` (no longer provisional in it) by their rating
    of it, banned ones and those marked for breaking fair play left out."""
    now = timezone.now()
    rows = (
        Rating.objects.filter(
            speed=speed,
            matches__gte=PROVISIONAL_MATCHES,
            user__is_active=True,
            user__fairplay_marked_at__isnull=True,
        )
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
class SpeedRating:
    """A player's shown rating in one speed; before his first rated match of it the
    starting one."""

    speed: Speed
    rating: int
    provisional: bool
    matches: int


@dataclass(frozen=True)
class PlayerRecord:
    """What a profile says of a player's games. Matches are those at ordinary tables
    (tournaments are listed on their own); hands count every table, tournaments too.
    The rating chart is of his main speed: the one of his most rated matches."""

    ratings: list[SpeedRating]  # every speed, fastest first
    matches: int
    wins: int
    pans: int  # matches he ended with P-A-N: last place
    hands: int
    hands_lost: int
    recent: list[RecentMatch]
    rating_chart: RatingChart | None = None  # from his first rated match on
    chart_speed: Speed | None = None

    @staticmethod
    def _percent(part: int, whole: int) -> int | None:
        return round(100 * part / whole) if whole else None

    @property
    def win_percent(self) -> int | None:
        return self._percent(self.wins, self.matches)

    @property
    def hands_lost_percent(self) -> int | None:
        return self._percent(self.hands_lost, self.hands)


@dataclass(frozen=True)
class RefundLine:
    """Rating given back to a player in one speed by one fair play mark."""

    points: int
    speed: Speed
    given_at: datetime


def rating_refunds(*, user: User) -> list[RefundLine]:
    """The rating given back to ``user`` for games against accounts marked for breaking
    fair play, one line per mark and speed, the latest first (whose account is never
    said)."""
    given = (
        RatingRefund.objects.filter(user=user)
        .values("created_at", "speed", "because_of_id")
        .annotate(mu=Sum("mu"))
        .order_by("-created_at", "speed")
    )
    return [
        RefundLine(points=refund_points(g["mu"]), speed=Speed(g["speed"]), given_at=g["created_at"])
        for g in given
    ]


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
        .select_related("match__table__owner")
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
    by_match = {
        c.match_id: c
        for c in RatingChange.objects.filter(user=user, match__in=[r.match_id for r in rows])
    }
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
    held = {r.speed: r for r in Rating.objects.filter(user=user)}
    main = max(held.values(), key=lambda r: (r.matches, r.updated_at), default=None)
    # The newest rated matches of his main speed in the order they were rated (each one's
    # rating before is the previous one's after).
    changes = (
        list(
            RatingChange.objects.filter(user=user, speed=main.speed).order_by("-pk")[
                :RATING_CHART_MATCHES
            ]
        )
        if main is not None
        else []
    )
    changes.reverse()
    chart = None
    if changes:
        shown = [display_rating(changes[0].mu_before)]
        chart = RatingChart(shown + [display_rating(c.mu_after) for c in changes])
    return PlayerRecord(
        ratings=[
            SpeedRating(
                speed=speed,
                rating=display_rating(held[speed].mu if speed in held else RATING_MU),
                provisional=is_provisional(held.get(speed)),
                matches=held[speed].matches if speed in held else 0,
            )
            for speed in Speed
        ],
        matches=counts["matches"],
        wins=counts["wins"],
        pans=counts["pans"],
        hands=Hand.objects.filter(mine).count(),
        hands_lost=Hand.objects.filter(mine & lost_seat).count(),
        recent=recent,
        rating_chart=chart,
        chart_speed=Speed(main.speed) if chart else None,
    )


# --- finished hands: replay, export, verification ----------------------------------------------


def can_view_hand(hand: Hand, user: User | None) -> bool:
    """A finished hand is shown to its players, and to anyone if its table is public;
    a moderator sees every one (fair play's evidence links to them)."""
    if not hand.is_over:
        return False
    if hand.match.table.is_public or may(user, PERM_BAN):
        return True
    return bool(
        user is not None and user.is_authenticated and hand.match.players.filter(user=user).exists()
    )


PILE_SHOWN = 8  # the pile's top cards a replay step draws


@dataclass
class ReplayFrame:
    step: int
    text: str
    pile: list[CardView]  # its top PILE_SHOWN cards, the top last
    pile_text: str  # how many cards the whole pile holds, in words
    hands: list[tuple[str, list[CardView], int]]  # name, cards, beton count
    to_move: str  # "Ola to move", empty once the hand is over

    def as_json(self) -> dict[str, Any]:
        """The frame as the replay's script draws it: cards as space-separated codes
        (a long hand has a hundred frames; the names are on the page once)."""
        return {
            "text": f"{self.step}. {self.text}",
            "to_move": self.to_move,
            "pile": " ".join(c.code for c in self.pile),
            "pile_text": self.pile_text,
            "hands": [[" ".join(c.code for c in cards), beton] for _, cards, beton in self.hands],
        }


@dataclass
class HandReplay:
    hand: Hand
    table: Table
    names: list[str]
    frames: list[ReplayFrame]
    faces: list[CardView]  # every card of the hand, each drawn once for the script to copy
    outcome_text: str
    verified: bool

    @property
    def steps(self) -> list[dict[str, Any]]:
        return [frame.as_json() for frame in self.frames]


def hand_replay(hand: Hand) -> HandReplay:
    """Every position of a finished hand, from the deal to the end, all cards face up."""
    from games.engine import deal, move_from_json
    from games.selectors.snapshot import seat_names

    players = list(hand.match.players.order_by("seat"))
    by_seat = seat_names(players)  # bots of one level told apart, as at the table
    names = [by_seat[p.seat] for p in players]
    actions = list(hand.actions.order_by("index"))
    name_map = dict(enumerate(names))
    # Rebuild frame by frame from the recorded log, so each step is one line of it. The
    # automatic final play of a tie is made by the engine inside the move before it.
    state = deal(hand.match.table.rules, len(players), hand.dealer, hand.seed)
    dealt = [*state.pile, *(c for seat in range(len(names)) for c in state.hand(seat))]
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
        faces=[CardView.of(c) for c in sorted(set(dealt), key=card_sort_key)],
        outcome_text=describe_outcome(hand.outcome, name_map) if hand.outcome else "",
        verified=verify_commitment(hand.commitment, hand.seed, hand.salt),
    )


def _frame(step: int, text: str, state: Any, names: list[str]) -> ReplayFrame:
    pile = len(state.pile)
    return ReplayFrame(
        step=step,
        text=text,
        pile=[CardView.of(c) for c in state.pile[-PILE_SHOWN:]],
        pile_text=ngettext("%(n)s card on the pile", "%(n)s cards on the pile", pile) % {"n": pile},
        hands=[
            (
                names[seat],
                [CardView.of(c) for c in sorted(state.hand(seat), key=card_sort_key)],
                state.beton_counts[seat],
            )
            for seat in range(len(names))
        ],
        to_move=(
            _("%(name)s to move") % {"name": names[state.to_move]} if state.outcome is None else ""
        ),
    )


def hand_export(hand: Hand) -> dict[str, Any]:
    """The hand as JSON: deal inputs, the seed and its commitment, the action log, the result."""
    players = list(hand.match.players.order_by("seat"))
    return {
        "hand": hand.pk,
        "table": hand.match.table.title,
        "match": hand.match_id,
        "number": hand.number,
        "rules": hand.match.table.rules_json,
        "players": [{"seat": p.seat, "name": p.name} for p in players],
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
