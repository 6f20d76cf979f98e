"""The speeds a match is rated in: by the estimated duration of a hand, at lichess's
boundaries, and correspondence with days per move."""

from __future__ import annotations

import pytest

from games.services import TIME_PRESETS
from games.speeds import ACTIONS_PER_HAND, Speed, estimated_seconds, speed_of


def test_a_hand_is_estimated_at_the_base_plus_n_increments():
    assert estimated_seconds(base_seconds=180, increment_seconds=2) == 180 + 2 * ACTIONS_PER_HAND


@pytest.mark.parametrize(
    ("estimate", "speed"),
    [
        (0, Speed.BULLET),
        (179, Speed.BULLET),
        (180, Speed.BLITZ),
        (479, Speed.BLITZ),
        (480, Speed.RAPID),
        (1499, Speed.RAPID),
        (1500, Speed.CLASSICAL),
        (3600, Speed.CLASSICAL),
    ],
)
def test_the_boundaries_are_lichesss_on_the_estimated_duration(estimate, speed):
    assert speed_of(base_seconds=estimate, increment_seconds=0) == speed


def test_the_increment_counts_n_times():
    # One second of increment less or more moves a control across the blitz boundary.
    below = 180 - ACTIONS_PER_HAND
    assert speed_of(base_seconds=below - 1, increment_seconds=1) == Speed.BULLET
    assert speed_of(base_seconds=below, increment_seconds=1) == Speed.BLITZ


def test_days_per_move_are_correspondence_whatever_the_minutes():
    for days in (1, 2, 3, 5, 7, 14):
        assert speed_of(base_seconds=60, increment_seconds=0, move_days=days) == (
            Speed.CORRESPONDENCE
        )
    assert speed_of(base_seconds=60, increment_seconds=0, move_days=0) == Speed.BULLET


def test_the_play_now_presets_spread_over_the_real_time_speeds():
    speeds = {
        name: speed_of(base_seconds=b, increment_seconds=i) for name, (b, i) in TIME_PRESETS.items()
    }
    assert speeds == {
        "1+0": Speed.BULLET,
        "2+1": Speed.BULLET,
        "3+2": Speed.BLITZ,
        "5+3": Speed.BLITZ,
        "10+5": Speed.RAPID,
    }
