"""core.collector: what lived a while is set aside from the collector's passes, a
complete pass frees the reference cycles that died meanwhile when what is set aside
grew, and every collection's pause is measured."""

from __future__ import annotations

import gc
import logging
import weakref

import pytest

from core.collector import Freezer


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def clock():
    now = [0.0]
    yield now
    gc.unfreeze()


def test_set_aside_on_schedule_and_a_complete_pass_frees_dead_cycles(clock):
    freezer = Freezer(freeze_every=10, full_every=600, clock=lambda: clock[0])
    clock[0] = 9.0
    assert freezer.tick() == ""
    old = Cycle()
    dead = weakref.ref(old)
    clock[0] = 10.0
    assert freezer.tick() == "freeze"
    assert gc.get_freeze_count() > 0
    del old
    gc.collect()
    assert dead() is not None  # set aside: no pass sees it, even dead
    clock[0] = 19.0
    assert freezer.tick() == ""
    clock[0] = 600.0
    assert freezer.tick() == "full"
    assert dead() is None
    assert gc.get_freeze_count() > 0  # the survivors are set aside again


def test_a_complete_pass_at_the_callers_moment_frees_dead_cycles_and_restarts_the_schedule(
    clock, caplog
):
    caplog.set_level(logging.INFO, logger="core.collector")
    freezer = Freezer(freeze_every=10, full_every=float("inf"), clock=lambda: clock[0])
    old = Cycle()
    dead = weakref.ref(old)
    clock[0] = 10.0
    assert freezer.tick() == "freeze"
    del old
    clock[0] = 10**9
    assert freezer.tick() == "freeze"  # never due by itself
    gc.collect()
    assert dead() is not None
    freezer.collect_all()
    assert dead() is None
    _ms, aside, dead_cycles = caplog.records[-1].args  # what the log says the pass did
    assert aside > 0 and dead_cycles >= 1
    assert gc.get_freeze_count() > 0
    assert freezer.tick() == ""  # set aside just now


def test_every_collections_pause_is_measured_and_the_longest_reported(clock, caplog):
    caplog.set_level(logging.INFO, logger="core.collector")
    # No freeze due at the report: its collection of the young generation would count.
    freezer = Freezer(freeze_every=1000, report_every=60, clock=lambda: clock[0])
    freezer.watch_pauses()
    try:
        gc.collect(0)
        gc.collect(2)
        clock[0] = 60.0
        freezer.tick()
    finally:
        gc.callbacks.remove(freezer.pauses)
    _seconds, count, longest_ms, generation, cpu_ms, _aside = caplog.records[-1].args
    assert count >= 2 and longest_ms > 0 and cpu_ms >= 0 and generation in (0, 2)
    assert freezer.pauses.take() == (0, 0.0, 0.0, -1)  # from nothing again after a report


def test_a_cycle_that_died_young_is_freed_before_the_freeze_not_set_aside(clock):
    freezer = Freezer(freeze_every=10, full_every=600, clock=lambda: clock[0])
    gc.disable()  # no automatic pass: as when the freeze comes just after the cycle died
    try:
        young = Cycle()
        dead = weakref.ref(young)
        del young
        clock[0] = 10.0
        assert freezer.tick() == "freeze"
        assert dead() is None
    finally:
        gc.enable()
