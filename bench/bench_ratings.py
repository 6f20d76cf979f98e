"""What an annulment costs the ratings (`make bench-ratings`): replay after it vs rebuild.

Rates ``--matches`` finished matches of 2 to 4 people drawn from ``--players``, at tables
of four speeds (each match rated in its table's), on PostgreSQL, then annuls matches at
different depths of the history through the moderation service
(``ratings_replay_after``: what came after the annulled match is rated again) and times
a rebuild of every rating from the start (``ratings_recompute``, what an annulment cost
before). Prints milliseconds and the matches rated again.
Uses its own database (``pan_bench_ratings``) unless DATABASE_URL says otherwise.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import time
from datetime import timedelta

from bench import start_django, use_services

use_services(database="pan_bench_ratings", queue="pan-bench-ratings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--players", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()

    start_django()
    logging.getLogger("games.ratings").setLevel(logging.WARNING)
    from django.core.management import call_command
    from django.utils import timezone

    from accounts.models import User
    from games import ratings, services
    from games.engine import MatchState, Rules
    from games.models import Match, MatchPlayer, Rating, RatingChange

    call_command("flush", interactive=False, verbosity=0)
    draw = random.Random(options.seed)
    users = User.objects.bulk_create(
        User(username=f"rated{i}", email=f"rated{i}@example.com") for i in range(options.players)
    )
    # A table of each speed but correspondence: each match is rated in one of them.
    tables = [
        services.table_create(
            owner=users[0],
            name="bench",
            rules=Rules(),
            seats=4,
            base_seconds=base,
            increment_seconds=increment,
        )
        for base, increment in ((60, 0), (180, 2), (600, 5), (1800, 0))
    ]
    start = timezone.now() - timedelta(days=365)
    rate_ms = []
    for number in range(options.matches):
        people = draw.sample(users, draw.randint(2, 4))
        match = Match.objects.create(
            table=draw.choice(tables),
            status=Match.Status.FINISHED,
            state=MatchState.new(len(people), 0).to_json(),
            finished_at=start + timedelta(minutes=number),
        )
        places = draw.sample(range(1, len(people) + 1), len(people))
        MatchPlayer.objects.bulk_create(
            MatchPlayer(
                match=match,
                seat=seat,
                table_position=seat,
                user=user,
                display_name=user.username,
                place=place,
            )
            for seat, (user, place) in enumerate(zip(people, places, strict=True))
        )
        started = time.perf_counter()
        ratings.match_rate(
            match=Match.objects.select_related("table").prefetch_related("players").get(pk=match.pk)
        )
        rate_ms.append((time.perf_counter() - started) * 1000)
    print(
        f"rated {RatingChange.objects.values('match').distinct().count()} matches of 2-4 among"
        f" {Rating.objects.values('user').distinct().count()} players at 4 speeds"
        f" ({Rating.objects.count()} ratings): median {statistics.median(rate_ms):.2f} ms a match"
    )

    def annul(match: Match) -> tuple[float, int]:
        later = RatingChange.objects.filter(match__finished_at__gt=match.finished_at)
        again = later.values("match").distinct().count()
        started = time.perf_counter()
        services.match_set_annulled(match_id=match.pk)
        return (time.perf_counter() - started) * 1000, again

    finished = Match.objects.filter(status=Match.Status.FINISHED).order_by("finished_at")
    for label, depth in (("the newest", 1), ("the 10th newest", 10), ("the 100th newest", 100)):
        if depth + 5 > finished.count() // 2:
            continue  # too few matches for this depth
        timings = [annul(finished.reverse()[depth - 1]) for _ in range(5)]
        print(
            f"annul {label} match: median {statistics.median(t for t, _ in timings):.1f} ms"
            f" ({timings[0][1]} matches rated again)"
        )
    middle, again = annul(finished[finished.count() // 2])
    print(f"annul the middle match: {middle:.0f} ms ({again} matches rated again)")

    rebuild = []
    for _ in range(3):
        started = time.perf_counter()
        rated = ratings.ratings_recompute()
        rebuild.append((time.perf_counter() - started) * 1000)
    print(
        f"rebuild from the start (an annulment before): median"
        f" {statistics.median(rebuild):.0f} ms ({rated} matches rated)"
    )


if __name__ == "__main__":
    main()
