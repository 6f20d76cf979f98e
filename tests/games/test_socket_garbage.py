"""A closed table socket leaves no reference cycle behind: a daphne sets what lived a
while aside from the collector (core.collector), and a cycle set aside would wait for a
complete pass, which stops the loop for a third of a second at 250 tables."""

from __future__ import annotations

import asyncio
import gc

import pytest
from channels.db import database_sync_to_async

from games import services
from games.consumers import TableConsumer
from tests.factories import make_table, seated_users
from tests.games.ws import connect, frames_until

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


@database_sync_to_async
def started_table() -> tuple[int, list]:
    table = make_table(players=2, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    return table.pk, seated_users(table)


async def test_a_closed_table_socket_is_freed_without_the_collector():
    table_id, users = await started_table()
    path = f"/ws/tables/{table_id}/"
    warm = await connect(path, users[1])  # what a first socket builds once, it keeps
    await frames_until(warm, 'id="seats"')
    await warm.disconnect()
    await asyncio.sleep(0.3)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a pass finds dead is kept, to be looked at
    try:
        for user in (users[0], None, users[0]):  # a player, a visitor, the player again
            ws = await connect(path, user)
            await frames_until(ws, 'id="seats"')
            await asyncio.sleep(0.1)  # its pinger sleeps
            await ws.disconnect()
            await asyncio.sleep(0.3)
        gc.collect()
        sockets = [o for o in gc.garbage if isinstance(o, TableConsumer)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert sockets == []
