"""Ratings: OpenSkill's Plackett-Luce model over the places of finished matches.

Which matches count: a match at an ordinary, rated table (the owner may make it casual;
tournaments have their own places)
that ended at P-A-N with at least two people in it. Bots are not rated, and people are
rated against each other by their places among themselves. A player who left during the
match (a bot finished it for him) ranks below everyone who stayed.

The shown rating is ``1500 + 24 × (mu − 25)``: a newcomer shows 1500, and one initial
uncertainty (sigma 25/3) is 200 points. It is provisional, shown with a "?", until
``PROVISIONAL_MATCHES`` rated matches; only established players are on the leaderboard.

An annulled match must not count, nor anything that followed from it, so annulling a
rated match replays every rated match from the start (``ratings_recompute``).
"""

from __future__ import annotations

import logging

from django.db import transaction
from openskill.models import PlackettLuce

from games.models import RATING_MU, RATING_SIGMA, Match, MatchPlayer, Rating, RatingChange

logger = logging.getLogger(__name__)

MODEL = PlackettLuce(mu=RATING_MU, sigma=RATING_SIGMA)
DISPLAY_BASE, DISPLAY_SCALE = 1500, 24.0
PROVISIONAL_MATCHES = 10


def display_rating(mu: float) -> int:
    """The number players see for a skill estimate ``mu``."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - RATING_MU))


def is_provisional(rating: Rating | None) -> bool:
    return rating is None or rating.matches < PROVISIONAL_MATCHES


def _rated_players(match: Match) -> tuple[list[MatchPlayer], int]:
    """The people of a finished ordinary match (none if it is not rated), and its seats."""
    table = match.table
    if match.status != Match.Status.FINISHED or not table.rated:
        return [], 0
    if hasattr(table, "tournament_table"):
        return [], 0
    players = list(match.players.all())
    people = [p for p in players if p.user_id is not None and p.place is not None]
    return (people if len(people) >= 2 else []), len(players)


def _rank(player: MatchPlayer, seats: int) -> int:
    """Lower is better; everyone who left shares the rank after the last place."""
    return seats + 1 if player.bot_level else player.place


def match_rate(*, match: Match) -> list[RatingChange]:
    """Rate a finished match once (again: nothing). Runs in the caller's transaction if
    there is one; locks the players' ratings in user order, so two matches ending at the
    same moment with a player in common wait for each other instead of deadlocking."""
    with transaction.atomic():
        people, seats = _rated_players(match)
        if not people or RatingChange.objects.filter(match=match).exists():
            return []
        user_ids = sorted(p.user_id for p in people)
        for user_id in user_ids:
            Rating.objects.get_or_create(user_id=user_id)
        ratings = {
            r.user_id: r
            for r in Rating.objects.select_for_update()
            .filter(user_id__in=user_ids)
            .order_by("user_id")
        }
        before = [ratings[p.user_id] for p in people]
        after = MODEL.rate(
            [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before],
            ranks=[_rank(p, seats) for p in people],
        )
        changes = []
        for player, rating, (new,) in zip(people, before, after, strict=True):
            changes.append(
                RatingChange(
                    match=match,
                    user_id=player.user_id,
                    mu_before=rating.mu,
                    sigma_before=rating.sigma,
                    mu_after=new.mu,
                    sigma_after=new.sigma,
                )
            )
            rating.mu, rating.sigma = new.mu, new.sigma
            rating.matches += 1
            rating.save(update_fields=["mu", "sigma", "matches", "updated_at"])
        RatingChange.objects.bulk_create(changes)
        return changes


def rated_matches() -> list[Match]:
    """Every match that counts, in the order they ended."""
    return list(
        Match.objects.filter(
            status=Match.Status.FINISHED, table__rated=True, table__tournament_table__isnull=True
        )
        .select_related("table__tournament_table")
        .prefetch_related("players")
        .order_by("finished_at", "pk")
    )


def ratings_recompute() -> int:
    """Rebuild every rating from the matches that count, oldest first (after an annulment:
    what followed from the annulled match goes too). Returns the matches rated."""
    with transaction.atomic():
        # Holding every rating row keeps a match that ends meanwhile waiting until the
        # rebuild is done; it is then rated on top of it.
        list(Rating.objects.select_for_update().order_by("user_id"))
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        rated = sum(bool(match_rate(match=match)) for match in rated_matches())
    logger.info("ratings rebuilt from %s rated matches", rated)
    return rated
