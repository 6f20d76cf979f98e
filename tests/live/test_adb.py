"""The live room's connections from the event loop (live.adb): a few per loop, lent for
a block, and what a database restart costs them."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from django.db import connection

from live import adb

pytestmark = pytest.mark.django_db(transaction=True)


async def backend_pid() -> int:
    async with adb.CONNECTIONS.connection() as conn:
        row = await (await conn.execute("SELECT pg_backend_pid()")).fetchone()
    return row[0]


async def kept_pids(count: int) -> set[int]:
    """The backends of ``count`` connections the running loop's pool holds afterwards."""
    started = asyncio.Event()
    pids: set[int] = set()

    async def hold() -> None:
        async with adb.CONNECTIONS.connection() as conn:
            pids.add((await (await conn.execute("SELECT pg_backend_pid()")).fetchone())[0])
            if len(pids) == count:
                started.set()
            await started.wait()

    await asyncio.wait_for(asyncio.gather(*(hold() for _ in range(count))), 30)
    return pids


def terminate(pids: set[int]) -> None:
    """What a restart of PostgreSQL does to the live room's connections."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [list(pids)]
        )


def test_after_the_database_drops_the_kept_connections_each_fails_once_then_new_ones_serve():
    async def scenario() -> tuple[int, set[int], list[int]]:
        old = await kept_pids(4)
        await asyncio.to_thread(terminate, old)
        failures, new = 0, []
        for _ in range(12):
            try:
                new.append(await backend_pid())
            except psycopg.OperationalError:
                failures += 1  # a dead connection is closed, never lent again
        return failures, old, new

    failures, old, new = asyncio.run(scenario())
    assert failures <= len(old)
    assert new and not old.intersection(new)  # every connection afterwards is a new one


def test_each_loop_has_its_own_connections_closed_after_the_loop():
    first = asyncio.run(backend_pid())
    second = asyncio.run(backend_pid())
    assert first != second  # the first loop's connections closed once it was gone
    for _ in range(100):  # the server's backend ends a moment after its client left
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [first])
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.05)
    raise AssertionError("the first loop's connection is still open")
