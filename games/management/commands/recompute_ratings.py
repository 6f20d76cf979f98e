"""Rebuild every rating from the matches that count (after a change of the rating rules,
or to check that the stored ratings agree with the matches)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games.ratings import ratings_recompute


class Command(BaseCommand):
    help = "Rebuild every player's rating from the rated matches, oldest first."

    def handle(self, *args: Any, **options: Any) -> None:
        rated = ratings_recompute()
        self.stdout.write(f"Ratings rebuilt from {rated} rated matches.")
