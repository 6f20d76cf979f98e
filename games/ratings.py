"""Ratings: OpenSkill's Plackett-Luce model over the places of finished matches.

Each speed (``games.speeds``: bullet, blitz, rapid, classical, correspondence) has
ratings of its own, as on lichess: a match is rated in its table's speed, and a player
has one rating per speed he has played rated matches in.

Which matches count: a match at an ordinary, rated table (the owner may make it casual;
tournaments have their own places)
that ended at P-A-N with at least two people in it. Bots are not rated (the site's, and
bot accounts, which programs play through the API), and people are
rated against each other by their places among themselves. A player who left during the
match (a bot finished it for him) ranks below everyone who stayed.

The shown rating is ``1500 + 24 × (mu − 25)``: a newcomer shows 1500, and one initial
uncertainty (sigma 25/3) is 200 points. It is provisional, shown with a "?", until
``PROVISIONAL_MATCHES`` rated matches; only established players are on the leaderboard.

An annulled match must not count, nor anything that followed from it, so annulling a
rated match takes back its changes and every change rated after it, and rates the later
matches again (``ratings_replay_after``): the cost is that of the matches since, and the
ratings are those a rebuild from the start (``ratings_recompute``) would give.

Refunds (``ratings_refund``): when an account is marked for breaking fair play, each
person rated with it in the last 90 days gets back what it cost him in each such match,
as lichess gives back the points lost to a cheater. A match's cost is the difference
between his change as rated and the change the same match gives him rated without the
marked account (among two people: the whole loss, as no match is rated with one person
left); a match he gained from costs nothing and nothing is taken back. A refund adds to
his skill estimate only (his uncertainty stays) and is part of his rating's history: a
replay or a rebuild applies it again at its time, between the matches rated around it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from django.db import transaction
from django.db.models import Case, CharField, Count, F, Min, QuerySet, Value, When
from django.db.models.lookups import LessThan
from django.utils import timezone
from openskill.models import PlackettLuce

from accounts.models import User
from games.models import (
    RATING_MU,
    RATING_SIGMA,
    Match,
    MatchPlayer,
    Rating,
    RatingChange,
    RatingRefund,
    Table,
)
from games.speeds import ACTIONS_PER_HAND, LIMITS, Speed, table_speed

logger = logging.getLogger(__name__)

MODEL = PlackettLuce(mu=RATING_MU, sigma=RATING_SIGMA)
DISPLAY_BASE, DISPLAY_SCALE = 1500, 24.0
PROVISIONAL_MATCHES = 10
MIN_RATED_PEOPLE = 2
# How far back the matches against an account marked for breaking fair play are refunded.
REFUND_WINDOW = timedelta(days=90)


def display_rating(mu: float) -> int:
    """The number players see for a skill estimate ``mu``."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - RATING_MU))


def is_provisional(rating: Rating | None) -> bool:
    return rating is None or rating.matches < PROVISIONAL_MATCHES


def attach_ratings(users: Iterable[User | None]) -> None:
    """Reads the ratings of ``users`` in one query and keeps each person's, by speed, on
    his instance (``speed_ratings``), where ``rating_in`` finds them.

    A rating read here does not hold its user, unlike one from
    ``prefetch_related("user__ratings")``, which makes each person a reference cycle (the
    user, his prefetched queryset, its ratings, the user again) that only the collector's
    complete pass frees: a daphne reading its tables made some 35,000 such objects a
    minute (docs/performance-log.md)."""
    by_pk: defaultdict[int, list[User]] = defaultdict(list)
    for user in users:
        if user is not None:
            user.speed_ratings = {}
            by_pk[user.pk].append(user)
    if not by_pk:
        return
    for rating in Rating.objects.filter(user_id__in=by_pk):
        for user in by_pk[rating.user_id]:
            user.speed_ratings[rating.speed] = rating


def rating_in(user: User, speed: str) -> Rating | None:
    """A person's rating in ``speed``, None before his first rated match of it. Read the
    ratings of many people with ``attach_ratings``, or this costs a query each."""
    known: dict[str, Rating] | None = getattr(user, "speed_ratings", None)
    if known is None:
        return Rating.objects.filter(user=user, speed=speed).first()
    return known.get(speed)


def rating_label(user: User, speed: str) -> str:
    """A person's shown rating in ``speed`` as it stands beside his name ("1531", a
    newcomer "1500?"). Read the ratings of many people with ``attach_ratings``, or this
    costs a query each."""
    rating = rating_in(user, speed)
    shown = display_rating(rating.mu if rating is not None else RATING_MU)
    return f"{shown}?" if is_provisional(rating) else str(shown)


def is_rated(*, table: Table, people: int) -> bool:
    """Whether a match at ``table`` with ``people`` people in it (bots not counted) is
    rated: the table is rated (an elimination tournament's never is, its places are the
    tournament's; a rated arena's is, each game a match) and at least two people play.
    The one rule of ``match_rate`` and of the table page."""
    return table.rated and people >= MIN_RATED_PEOPLE


def _rated_players(match: Match) -> tuple[list[MatchPlayer], int]:
    """The people of a finished ordinary match (none if it is not rated), and its seats."""
    table = match.table
    # The table alone may already rule it out, before the players are read.
    if match.status != Match.Status.FINISHED or not is_rated(table=table, people=MIN_RATED_PEOPLE):
        return [], 0
    players = list(match.players.select_related("user"))
    # A bot account (accounts.User.is_bot_account) is a bot here too: never rated.
    people = [
        p
        for p in players
        if p.user_id is not None and p.place is not None and not p.user.is_bot_account
    ]
    return (people if is_rated(table=table, people=len(people)) else []), len(players)


def _rank(player: MatchPlayer, seats: int) -> int:
    """Lower is better; everyone who left shares the rank after the last place."""
    return seats + 1 if player.bot_level else player.place


Book = dict[tuple[int, str], Rating]  # by user id and speed


class RatingModels(NamedTuple):
    """The models a rebuild reads and writes: the site's, or a migration's historical
    ones (``games.migrations``' split of the ratings by speed rebuilds with these)."""

    match: type[Match]
    rating: type[Rating]
    change: type[RatingChange]


SITE_MODELS = RatingModels(Match, Rating, RatingChange)


def _rate(match: Match, book: Book, models: RatingModels = SITE_MODELS) -> list[RatingChange]:
    """Rate one match in its speed on the ratings in ``book`` (a player not in it starts
    as a newcomer and is added): update them and return the changes, unsaved."""
    people, seats = _rated_players(match)
    if not people:
        return []
    speed = table_speed(match.table)
    before = [
        book.setdefault((p.user_id, speed), models.rating(user_id=p.user_id, speed=speed))
        for p in people
    ]
    after = MODEL.rate(
        [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before],
        ranks=[_rank(p, seats) for p in people],
    )
    changes = []
    for rating, (new,) in zip(before, after, strict=True):
        changes.append(
            models.change(
                match=match,
                user_id=rating.user_id,
                speed=speed,
                mu_before=rating.mu,
                sigma_before=rating.sigma,
                mu_after=new.mu,
                sigma_after=new.sigma,
            )
        )
        rating.mu, rating.sigma = new.mu, new.sigma
        rating.matches += 1
    return changes


def match_rate(*, match: Match) -> list[RatingChange]:
    """Rate a finished match once (again: nothing). Runs in the caller's transaction if
    there is one; locks the players' ratings of its speed in user order, so two matches
    ending at the same moment with a player in common wait for each other instead of
    deadlocking."""
    with transaction.atomic():
        people, _ = _rated_players(match)
        if not people or RatingChange.objects.filter(match=match).exists():
            return []
        speed = table_speed(match.table)
        user_ids = sorted(p.user_id for p in people)
        for user_id in user_ids:
            Rating.objects.get_or_create(user_id=user_id, speed=speed)
        book = {
            (r.user_id, r.speed): r
            for r in Rating.objects.select_for_update()
            .filter(user_id__in=user_ids, speed=speed)
            .order_by("user_id")
        }
        changes = _rate(match, book)
        for rating in book.values():
            rating.save(update_fields=["mu", "sigma", "matches", "updated_at"])
        RatingChange.objects.bulk_create(changes)
        return changes


def on_match_finished(sender: object, *, match: Match, **kwargs: object) -> None:
    """``games.signals.match_finished``: rate the match (an unrated or managed one: nothing)."""
    match_rate(match=match)


def _counting(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.select_related("table").prefetch_related("players")


def rated_matches(models: RatingModels = SITE_MODELS) -> list[Match]:
    """Every match that counts, in the order they ended."""
    return list(
        _counting(
            models.match.objects.filter(
                status=Match.Status.FINISHED,
                table__rated=True,
            )
        ).order_by("finished_at", "pk")
    )


def _lock_every_rating(models: RatingModels = SITE_MODELS) -> Book:
    """Hold every rating row (a match that ends meanwhile waits until the rebuild is done
    and is then rated on top of it)."""
    return {
        (r.user_id, r.speed): r
        for r in models.rating.objects.select_for_update().order_by("user_id", "speed")
    }


Event = Match | RatingRefund  # what moves a rating, in the order it happened


def _rate_in_turn(
    events: Sequence[Event],
    book: Book,
    touched: set[tuple[int, str]],
    models: RatingModels = SITE_MODELS,
) -> int:
    """Rate ``events`` one after the other on ``book`` (a match is rated, a refund added)
    and store the result: the ratings in ``touched`` and every rating rated (those left
    with no match are deleted), and every change. Returns the matches rated."""
    changes = []
    rated = 0
    for event in events:
        if isinstance(event, RatingRefund):
            key = (event.user_id, event.speed)
            book.setdefault(key, models.rating(user_id=event.user_id, speed=event.speed))
            book[key].mu += event.mu
            touched.add(key)
            continue
        done = _rate(event, book, models)
        rated += bool(done)
        changes.extend(done)
        touched.update((change.user_id, change.speed) for change in done)
    now = timezone.now()
    kept = [book[key] for key in touched if book[key].matches]
    for rating in kept:
        rating.updated_at = now
    emptied = [book[key].pk for key in touched if not book[key].matches and book[key].pk]
    models.rating.objects.filter(pk__in=emptied).delete()
    models.rating.objects.bulk_update(
        [r for r in kept if r.pk], ["mu", "sigma", "matches", "updated_at"]
    )
    models.rating.objects.bulk_create([r for r in kept if not r.pk])
    models.change.objects.bulk_create(changes)
    return rated


def ratings_replay_after(*, match: Match) -> int:
    """Take back what ``match`` and every match rated after it did to the ratings, then
    rate again, in their first order, those later matches that still count (``match``
    itself only if it still does). Returns the matches rated again."""
    with transaction.atomic():
        book = _lock_every_rating()
        cutoff = RatingChange.objects.filter(match=match).aggregate(first=Min("pk"))["first"]
        if cutoff is None:
            return 0
        undone = list(RatingChange.objects.filter(pk__gte=cutoff).order_by("pk"))
        first_undone: dict[tuple[int, str], RatingChange] = {}
        for change in undone:
            first_undone.setdefault((change.user_id, change.speed), change)
        kept = {
            (user_id, speed): n
            for user_id, speed, n in RatingChange.objects.filter(
                pk__lt=cutoff, user_id__in={user_id for user_id, _ in first_undone}
            )
            .values("user_id", "speed")
            .annotate(n=Count("pk"))
            .values_list("user_id", "speed", "n")
        }
        for key, change in first_undone.items():
            rating = book[key]
            rating.mu, rating.sigma = change.mu_before, change.sigma_before
            rating.matches = kept.get(key, 0)
        RatingChange.objects.filter(pk__gte=cutoff).delete()
        # Each match again at the time it was first rated; each refund given after the
        # first change taken back from its player's rating again at its own time.
        when: dict[int, datetime] = {}
        for change in undone:
            when.setdefault(change.match_id, change.created_at)
        matches = _counting(Match.objects.all()).in_bulk(list(when))
        refunds = [
            refund
            for refund in RatingRefund.objects.filter(
                user_id__in={user_id for user_id, _ in first_undone}
            )
            if (refund.user_id, refund.speed) in first_undone
            and refund.created_at >= first_undone[(refund.user_id, refund.speed)].created_at
        ]
        events = _in_time_order(
            [(when[pk], matches[pk]) for pk in when], [(r.created_at, r) for r in refunds]
        )
        rated = _rate_in_turn(events, book, set(first_undone))
    logger.info("ratings replayed: %s matches rated again after match %s", rated, match.pk)
    return rated


def ratings_recompute(models: RatingModels = SITE_MODELS) -> int:
    """Rebuild every rating from the matches that count, oldest first, each in its speed
    (after an annulment: what followed from the annulled match goes too). Returns the
    matches rated."""
    with transaction.atomic():
        _lock_every_rating(models)
        models.change.objects.all().delete()
        models.rating.objects.all().delete()
        matches = [(m.finished_at, m) for m in rated_matches(models)]
        # A migration's historical models have no refunds.
        refunds = (
            [(r.created_at, r) for r in RatingRefund.objects.all()] if models is SITE_MODELS else []
        )
        rated = _rate_in_turn(_in_time_order(matches, refunds), {}, set(), models)
    logger.info("ratings rebuilt from %s rated matches", rated)
    return rated


def _in_time_order(
    matches: list[tuple[datetime, Match]], refunds: list[tuple[datetime, RatingRefund]]
) -> list[Event]:
    """Matches and refunds merged by time, the matches in their given order (a refund
    given at the moment a match was rated comes after it)."""
    timed = [(when, 0, i, match) for i, (when, match) in enumerate(matches)]
    timed += [(when, 1, refund.pk, refund) for when, refund in refunds]
    timed.sort(key=lambda item: item[:3])
    return [event for *_, event in timed]


# --- refunds: an account marked for breaking fair play -------------------------------------


def ratings_refund(
    *, marked_id: int, now: datetime | None = None, window: timedelta = REFUND_WINDOW
) -> list[RatingRefund]:
    """Give back to every person rated with the account ``marked_id`` in a match that
    ended within ``window`` of ``now`` (or later) what that match cost him because of it (see
    the module's docstring); a match refunded before is not refunded again, nor is a
    person whose own account is marked. Locks the ratings it changes in user order. Runs
    in the caller's transaction if there is one; returns the refunds given."""
    now = now or timezone.now()
    with transaction.atomic():
        match_ids = RatingChange.objects.filter(
            user_id=marked_id, match__finished_at__gte=now - window
        ).values("match_id")
        matches = _counting(Match.objects.filter(pk__in=match_ids)).order_by("finished_at", "pk")
        refunded = set(
            RatingRefund.objects.filter(match__in=match_ids).values_list("match_id", "user_id")
        )
        owed: list[RatingRefund] = []
        for match in matches:
            changes = {c.user_id: c for c in RatingChange.objects.filter(match=match)}
            for user_id, mu in _cost_of(match, changes, marked_id).items():
                if (match.pk, user_id) not in refunded:
                    owed.append(
                        RatingRefund(
                            user_id=user_id,
                            speed=changes[user_id].speed,
                            match=match,
                            because_of_id=marked_id,
                            mu=mu,
                            created_at=now,
                        )
                    )
        marked = set(
            User.objects.filter(
                pk__in={r.user_id for r in owed}, fairplay_marked_at__isnull=False
            ).values_list("pk", flat=True)
        )
        owed = [r for r in owed if r.user_id not in marked]
        ratings = {
            (r.user_id, r.speed): r
            for r in Rating.objects.select_for_update()
            .filter(user_id__in={r.user_id for r in owed})
            .order_by("user_id", "speed")
        }
        for refund in owed:
            ratings[(refund.user_id, refund.speed)].mu += refund.mu
        Rating.objects.bulk_update(
            [ratings[key] for key in {(r.user_id, r.speed) for r in owed}], ["mu"]
        )
        return RatingRefund.objects.bulk_create(owed)


def _cost_of(match: Match, changes: dict[int, RatingChange], marked_id: int) -> dict[int, float]:
    """What ``match`` cost each of its other people because ``marked_id`` was rated in it
    (only those it cost something): his skill estimate after the match rated without the
    marked account, less the one it gave him."""
    people, seats = _rated_players(match)
    others = [p for p in people if p.user_id != marked_id and p.user_id in changes]
    if len(others) < MIN_RATED_PEOPLE:
        without = {p.user_id: changes[p.user_id].mu_before for p in others}
    else:
        before = [changes[p.user_id] for p in others]
        rated = MODEL.rate(
            [[MODEL.rating(mu=c.mu_before, sigma=c.sigma_before)] for c in before],
            ranks=[_rank(p, seats) for p in others],
        )
        without = {p.user_id: new.mu for p, (new,) in zip(others, rated, strict=True)}
    cost = {user_id: mu - changes[user_id].mu_after for user_id, mu in without.items()}
    return {user_id: mu for user_id, mu in cost.items() if mu > 0}


def refund_points(mu: float) -> int:
    """A refund in the points players see (a skill estimate's difference)."""
    return round(DISPLAY_SCALE * mu)


def table_speed_sql(table: str = "") -> Case:
    """``table_speed`` in SQL, for the table at the lookup path ``table`` ("table__" from
    a match), so that a query can join each player's rating of his table's speed. It
    follows ``table_speed`` rule for rule: days per move come first here too."""
    estimate = F(f"{table}base_seconds") + ACTIONS_PER_HAND * F(f"{table}increment_seconds")
    return Case(
        When(**{f"{table}move_days__gt": 0}, then=Value(Speed.CORRESPONDENCE.value)),
        *(When(LessThan(estimate, limit), then=Value(speed.value)) for speed, limit in LIMITS),
        default=Value(Speed.CLASSICAL.value),
        output_field=CharField(),
    )
