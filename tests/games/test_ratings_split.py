"""The migration that splits the one rating of before into ratings by speed."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps

from games import ratings
from games.models import Rating, RatingChange
from games.speeds import Speed
from tests.games.test_ratings import played_at_speeds, rating_book

pytestmark = pytest.mark.django_db

split = import_module("games.migrations.0014_ratings_by_speed")


def test_the_split_replays_the_single_ratings_into_their_speeds_as_a_rebuild_would():
    played_at_speeds()
    ratings.ratings_recompute()
    rebuilt = rating_book()
    by_speed = {(r.user_id, r.speed) for r in Rating.objects.all()}
    assert {speed for _, speed in by_speed} == {Speed.BULLET, Speed.BLITZ, Speed.RAPID}

    # As before the migration: one rating per player over every speed, changes without
    # their speed (the migration's added column is blank until the split).
    users = {user_id for user_id, _ in by_speed}
    Rating.objects.all().delete()
    for user_id in users:
        Rating.objects.create(user_id=user_id, speed="", mu=27.5, sigma=5.0, matches=4)
    RatingChange.objects.update(speed="", mu_before=20.0, mu_after=21.0)

    split.split_by_speed(apps, None)

    assert rating_book() == rebuilt
    assert {(r.user_id, r.speed) for r in Rating.objects.all()} == by_speed
    assert not RatingChange.objects.filter(speed="").exists()
