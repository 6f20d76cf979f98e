"""What the API shows of a table: the game stream's first line."""

from __future__ import annotations

import pytest
from django.utils import timezone

from api import selectors
from games.selectors import table_snapshot
from tests.factories import first_hand, make_table, seated_users

pytestmark = pytest.mark.django_db


def test_the_game_s_clock_gives_the_days_per_move_of_a_correspondence_table():
    letters = make_table(players=2, move_days=3)
    first_hand(letters, timezone.now())
    full = selectors.game_full(table_snapshot(table_id=letters.pk), seated_users(letters)[0])
    assert full["clock"]["daysPerTurn"] == 3
    assert max(full["state"]["clocksMs"]) == 3 * 86_400_000  # counted down from the days

    live = make_table(players=2, base_seconds=180, increment_seconds=2)
    full = selectors.game_full(table_snapshot(table_id=live.pk), seated_users(live)[0])
    assert full["clock"] == {"baseMs": 180_000, "incrementMs": 2000, "daysPerTurn": 0}
