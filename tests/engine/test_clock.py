"""The chess clock (RULES §8): time passed in as instants, whole microseconds; nothing sleeps."""

import dataclasses

import pytest

from games.engine import Clock

S = 1_000_000  # one second, in an instant's microseconds
MS = 1_000
T0 = 1_750_000_000 * S  # an instant of today: float seconds would blur its microseconds


def running(seat: int = 0, *, left=(60_000, 60_000), increment_ms: int = 2_000) -> Clock:
    return Clock(left_ms=left, increment_ms=increment_ms).start(seat, T0)


def test_a_new_clock_gives_every_seat_the_base_time_and_stands():
    clock = Clock.new(3, 180_000, 2_000)
    assert clock.left_ms == (180_000,) * 3 and clock.increment_ms == 2_000
    assert not clock.is_running and clock.running is None and clock.since is None
    assert clock.deadline() is None and clock.flagged(T0 + 10**12) is None
    assert clock.remaining(1, T0 + 10**12) == 180_000


def test_start_runs_one_seat_from_now_and_sets_the_deadline():
    clock = running(1)
    assert clock.is_running and clock.running == 1 and clock.since == T0
    assert clock.deadline() == T0 + 60 * S


def test_the_value_is_immutable_and_every_change_is_a_new_clock():
    stands = Clock.new(2, 60_000)
    runs = stands.start(0, T0)
    assert stands.running is None and runs is not stands
    with pytest.raises(dataclasses.FrozenInstanceError):
        runs.running = 1


def test_remaining_while_running_counts_down_only_for_the_running_seat():
    clock = running(0)
    assert clock.remaining(0, T0) == 60_000
    assert clock.remaining(0, T0 + 5 * S) == 55_000
    assert clock.remaining(0, T0 + 5 * S + 999) == 55_000  # a part of a ms is not charged
    assert clock.remaining(1, T0 + 5 * S) == 60_000
    assert clock.remaining(0, T0 + 90 * S) == 0  # never below zero
    assert clock.remaining(0, T0 - S) == 60_000  # an instant before the start charges nothing


def test_stop_charges_the_running_seat_the_time_he_used():
    clock = running(0).stop(T0 + 5 * S + 250 * MS)
    assert clock.left_ms == (54_750, 60_000)
    assert not clock.is_running and clock.deadline() is None
    assert clock.increment_ms == 2_000  # stopping is no move: no increment


def test_the_time_left_while_running_is_what_stopping_then_would_leave():
    clock = running(1, left=(30_000, 7_321))
    for elapsed in (0, 1, 999, 1_000, 4_350_001, 7_320_999, 7_321_000, 9 * S):
        now = T0 + elapsed
        assert clock.remaining(1, now) == clock.stop(now).left_ms[1]


def test_stop_when_stopped_changes_nothing():
    stopped = running(0).stop(T0 + 3 * S)
    assert stopped.stop(T0 + 100 * S) == stopped
    assert Clock.new(2, 1_000).stop(T0) == Clock.new(2, 1_000)


def test_start_when_running_is_refused_since_the_running_seat_would_go_uncharged():
    with pytest.raises(ValueError, match="runs already"):
        running(0).start(1, T0 + S)


def test_step_charges_the_mover_adds_the_increment_and_starts_the_next_seat():
    clock = running(0).step(T0 + 5 * S, 1)
    assert clock.left_ms == (60_000 - 5_000 + 2_000, 60_000)
    assert clock.running == 1 and clock.since == T0 + 5 * S
    assert clock.deadline() == T0 + 5 * S + 60 * S


def test_step_adds_the_increment_even_to_a_mover_at_zero():
    clock = running(0, left=(1_000, 1_000)).step(T0 + 3 * S, 1)
    assert clock.left_ms == (2_000, 1_000)


def test_step_to_nobody_stops_the_clock_at_the_end_of_the_hand():
    clock = running(1).step(T0 + 4 * S, None)
    assert clock.left_ms == (60_000, 58_000) and not clock.is_running


def test_steps_round_the_table_keep_every_seat_to_its_own_time():
    clock = Clock.new(3, 10_000, 1_000).start(0, T0)
    clock = clock.step(T0 + 2 * S, 1).step(T0 + 5 * S, 2).step(T0 + 6 * S, 0)
    assert clock.left_ms == (9_000, 8_000, 10_000) and clock.running == 0
    assert clock.remaining(0, T0 + 8 * S) == 7_000


def test_step_on_a_stopped_clock_is_refused():
    with pytest.raises(ValueError, match="stands"):
        Clock.new(2, 1_000).step(T0, 1)


def test_the_running_seat_is_flagged_at_his_deadline_exactly_not_a_microsecond_before():
    clock = running(1, left=(60_000, 3_000))
    deadline = clock.deadline()
    assert deadline == T0 + 3 * S
    assert clock.flagged(deadline - 1) is None
    assert clock.remaining(1, deadline - 1) == 1  # the last, partly used millisecond
    assert clock.flagged(deadline) == 1 and clock.remaining(1, deadline) == 0
    assert clock.flagged(deadline + 10 * S) == 1


def test_a_seat_already_at_zero_is_flagged_the_moment_his_time_runs():
    clock = Clock(left_ms=(0, 5_000)).start(0, T0)
    assert clock.flagged(T0) == 0


def test_a_stopped_clock_flags_nobody_even_at_zero():
    assert Clock(left_ms=(0, 5_000)).flagged(T0) is None


def test_the_timeout_charges_up_to_the_deadline_not_up_to_a_late_now():
    clock = running(0, left=(3_000, 60_000))
    deadline = clock.deadline()
    assert clock.elapsed_ms(deadline) == 3_000
    assert clock.stop(deadline).left_ms == (0, 60_000)


def test_elapsed_ms_counts_whole_milliseconds_of_the_running_seat_only():
    clock = running(0)
    assert clock.elapsed_ms(T0 + 4_350_000) == 4_350  # float seconds would say 4,349
    assert clock.elapsed_ms(T0 + 999) == 0
    assert clock.elapsed_ms(T0 - S) == 0
    assert Clock.new(2, 1_000).elapsed_ms(T0) == 0


@pytest.mark.parametrize(
    "fields",
    [
        {"left_ms": [1_000, 1_000]},  # a list, not a tuple
        {"left_ms": (1_000,)},  # one seat
        {"left_ms": (1_000,) * 5},
        {"left_ms": (1_000, -1)},
        {"left_ms": (1_000, 1.5)},
        {"left_ms": (1_000, 1_000), "increment_ms": -1},
        {"left_ms": (1_000, 1_000), "running": 0},  # running with no since
        {"left_ms": (1_000, 1_000), "since": T0},  # a since with nobody running
        {"left_ms": (1_000, 1_000), "running": 2, "since": T0},
        {"left_ms": (1_000, 1_000), "running": 0, "since": 1.5},
    ],
)
def test_a_clock_out_of_bounds_cannot_be_built(fields):
    with pytest.raises(ValueError):
        Clock(**fields)


def test_a_seat_out_of_range_is_refused():
    with pytest.raises(ValueError):
        running(0).remaining(2, T0)
    with pytest.raises(ValueError):
        Clock.new(2, 1_000).start(-1, T0)


# --- the stored form: Hand.clock_ms, increment_ms, turn_started_at, deadline ------------


def test_a_running_clock_round_trips_through_the_stored_form():
    clock = running(1, left=(41_500, 12_345), increment_ms=3_000)
    stored = clock.to_stored()
    assert stored == {
        "clock_ms": [41_500, 12_345],
        "increment_ms": 3_000,
        "move_ms": 0,
        "bare_seats": 0,
        "turn_started_at": T0,
        "deadline": T0 + 12_345 * MS,
    }
    assert Clock.from_stored(**stored, to_move=1) == clock


def test_a_stopped_clock_round_trips_and_stores_no_turn_start_nor_deadline():
    clock = running(0).stop(T0 + 7 * S)
    stored = clock.to_stored()
    assert stored["turn_started_at"] is None and stored["deadline"] is None
    assert stored["clock_ms"] == [53_000, 60_000]
    assert Clock.from_stored(**stored, to_move=0) == clock


def test_every_step_of_a_hand_round_trips():
    clock = Clock.new(4, 30_000, 1_000).start(2, T0)
    for i, seat in enumerate([3, 0, 1, 2, 3]):
        clock = clock.step(T0 + (i + 1) * 1_234_567, seat)
        assert Clock.from_stored(**clock.to_stored(), to_move=seat) == clock
    clock = clock.stop(T0 + 99 * S)
    assert Clock.from_stored(**clock.to_stored(), to_move=3) == clock


def test_the_stored_deadline_decides_the_running_seats_time_left():
    # The deadline column is the one truth: a row whose deadline was moved (by hand, in
    # the admin) is read with the time left it gives, never a clock that disagrees.
    stored = running(0).to_stored() | {"deadline": T0 + 10 * S}
    clock = Clock.from_stored(**stored, to_move=0)
    assert clock.left_ms == (10_000, 60_000) and clock.deadline() == T0 + 10 * S
    earlier = Clock.from_stored(**stored | {"deadline": T0 - S}, to_move=0)
    assert earlier.left_ms[0] == 0 and earlier.flagged(T0) == 0
    # A deadline off the millisecond grid is rounded up: never flagged before it.
    odd = Clock.from_stored(**stored | {"deadline": T0 + 1_500}, to_move=0)
    assert odd.left_ms[0] == 2 and odd.flagged(T0 + 1_500) is None


def test_a_stored_clock_without_both_turn_start_and_deadline_stands():
    stored = running(0).to_stored()
    assert not Clock.from_stored(**stored | {"deadline": None}, to_move=0).is_running
    assert not Clock.from_stored(**stored | {"turn_started_at": None}, to_move=0).is_running


# --- correspondence: days per move ---------------------------------------------------------

DAY_MS = 86_400_000


def test_a_correspondence_move_restores_the_full_time_and_banks_nothing():
    clock = Clock.per_move(2, 3 * DAY_MS).start(0, T0)
    assert clock.is_per_move and clock.deadline() == T0 + 3 * DAY_MS * MS
    quick = clock.step(T0 + 60 * S, 1)  # moved after a minute: no time banked
    assert quick.left_ms == (3 * DAY_MS, 3 * DAY_MS)
    slow = quick.step(T0 + 60 * S + 2 * DAY_MS * MS + 5 * S, 0)  # after two days and more
    assert slow.left_ms == (3 * DAY_MS, 3 * DAY_MS)
    assert slow.deadline() == T0 + 60 * S + 5 * DAY_MS * MS + 5 * S


def test_a_correspondence_clock_flags_at_its_day_deadline_as_a_real_time_one_does():
    clock = Clock.per_move(2, DAY_MS).start(1, T0)
    assert clock.flagged(T0 + DAY_MS * MS - 1) is None
    assert clock.flagged(T0 + DAY_MS * MS) == 1
    assert clock.remaining(1, T0 + DAY_MS * MS - 3_600 * S) == 3_600_000


def test_a_correspondence_clock_survives_its_stored_form():
    clock = Clock.per_move(3, 2 * DAY_MS).start(0, T0).step(T0 + 7 * S, 2)
    stored = clock.to_stored()
    assert stored["move_ms"] == 2 * DAY_MS and stored["increment_ms"] == 0
    back = Clock.from_stored(to_move=2, **stored)
    assert back == clock
    assert back.step(T0 + 9 * S, 0).left_ms[2] == 2 * DAY_MS


def test_a_correspondence_clock_has_no_increment_and_a_positive_move_time():
    with pytest.raises(ValueError):
        Clock(left_ms=(DAY_MS, DAY_MS), increment_ms=1_000, move_ms=DAY_MS)
    with pytest.raises(ValueError):
        Clock.per_move(2, 0)
    with pytest.raises(ValueError):
        Clock(left_ms=(DAY_MS, DAY_MS), move_ms=-1)


def test_berserk_halves_the_seats_time_and_takes_away_his_increment():
    clock = Clock.new(3, 60_000, 2_000).start(0, T0)
    # Seat 0 goes Berserk 10 s into his turn: 50 s left, halved to 25 s, still running.
    clock = clock.berserk(0, T0 + 10 * S)
    assert clock.running == 0 and clock.remaining(0, T0 + 10 * S) == 25_000
    assert clock.remaining(1, T0 + 10 * S) == 60_000
    stepped = clock.step(T0 + 15 * S, 1)
    assert stepped.left_ms[0] == 20_000  # no increment for him
    after_other = stepped.step(T0 + 16 * S, 2)
    assert after_other.left_ms[1] == 61_000  # the others keep theirs
    # A standing seat's time is halved too, and the mask survives the stored form.
    waiting = after_other.berserk(1, T0 + 17 * S)
    assert waiting.left_ms[1] == 30_500 and waiting.bare == 0b011
    assert Clock.from_stored(**waiting.to_stored(), to_move=2) == waiting
