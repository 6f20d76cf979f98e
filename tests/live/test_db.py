"""Reads made together by the sockets that open together (live.db.ReadTogether)."""

from __future__ import annotations

import asyncio
import threading

import psycopg
import pytest

from live.db import ReadTogether

pytestmark = pytest.mark.asyncio


async def test_what_is_asked_for_while_a_read_runs_is_read_together_next():
    started, release = threading.Event(), threading.Event()
    batches: list[list[str]] = []

    def read_many(keys: list[str]) -> list[str]:
        batches.append(keys)
        if len(batches) == 1:
            started.set()
            release.wait(10)
        return [key.upper() for key in keys]

    reads = ReadTogether(read_many, at_most=100)
    first = asyncio.ensure_future(reads.read("a"))
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
    keys = [f"k{i}" for i in range(250)] + ["k3"]  # one asked twice
    rest = asyncio.ensure_future(asyncio.gather(*(reads.read(key) for key in keys)))
    await asyncio.sleep(0.05)
    release.set()
    assert await first == "A"
    assert await rest == [key.upper() for key in keys]
    assert [len(batch) for batch in batches] == [1, 100, 100, 51]
    assert reads.batches == 4


async def test_a_failed_read_fails_each_of_its_askers_and_the_next_read_is_made_anew():
    calls: list[list[int]] = []

    def read_many(keys: list[int]) -> list[int]:
        calls.append(keys)
        if len(calls) == 1:
            raise psycopg.OperationalError("connection refused")
        return [key * 2 for key in keys]

    reads = ReadTogether(read_many)
    failed = await asyncio.gather(*(reads.read(key) for key in (1, 2, 3)), return_exceptions=True)
    assert all(isinstance(error, psycopg.OperationalError) for error in failed)
    assert await reads.read(4) == 8


async def test_an_asker_who_left_is_skipped_and_the_others_are_answered():
    release = threading.Event()

    def read_many(keys: list[int]) -> list[int]:
        release.wait(10)
        return keys

    reads = ReadTogether(read_many)
    leaving = asyncio.ensure_future(reads.read(1))
    staying = asyncio.ensure_future(reads.read(2))
    await asyncio.sleep(0.05)
    leaving.cancel()
    release.set()
    assert await staying == 2
    assert leaving.cancelled()
