"""The hand's clock between its fields and the engine's ``Clock``: no database needed."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from games.engine import Clock
from games.models import Hand, to_instant, to_moment

WARSAW = ZoneInfo("Europe/Warsaw")


def test_instants_are_exact_microseconds_either_way():
    moment = datetime(2025, 6, 15, 12, 30, 45, 123_457, tzinfo=UTC)
    assert to_instant(moment) == 1_749_990_645_123_457
    assert to_moment(to_instant(moment)) == moment
    assert to_instant(moment.astimezone(WARSAW)) == to_instant(moment)  # any zone, one instant
    assert to_instant(moment + timedelta(milliseconds=4_350)) - to_instant(moment) == 4_350_000


def test_a_running_hand_reads_and_writes_its_clock():
    started = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)
    hand = Hand(state={"to_move": 1}, clock_ms=[50_000, 40_000], increment_ms=2_000)
    hand.turn_started_at = started
    hand.deadline = started + timedelta(seconds=40)
    clock = hand.clock
    assert clock == Clock(
        left_ms=(50_000, 40_000), increment_ms=2_000, running=1, since=to_instant(started)
    )
    hand.clock = clock.stop(to_instant(started + timedelta(seconds=15)))
    assert hand.clock_ms == [50_000, 25_000]
    assert hand.turn_started_at is None and hand.deadline is None
    hand.clock = hand.clock.start(1, to_instant(started + timedelta(minutes=1)))
    assert hand.turn_started_at == started + timedelta(minutes=1)
    assert hand.deadline == started + timedelta(minutes=1, seconds=25)


def test_only_the_player_to_move_can_have_his_time_running():
    hand = Hand(state={"to_move": 0}, clock_ms=[1_000, 1_000])
    with pytest.raises(ValueError, match="player to move"):
        hand.clock = Clock(left_ms=(1_000, 1_000)).start(1, 0)
