"""A daphne's handover of the tables nginx no longer sends to it (``pan_site.spread``),
with the other daphnes' states and the clock given."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pan_site.spread import CLOSE_SERVICE_RESTART, NginxRing, Spreader, split_server

A, B = "127.0.0.1:8001", "127.0.0.1:8002"


@dataclass(eq=False)
class Socket:
    path: bytes


def table_sockets(tables: range, per_table: int = 4) -> list[Socket]:
    return [Socket(f"/ws/tables/{t}/".encode()) for t in tables for _ in range(per_table)]


def test_the_ring_splits_the_tables_about_evenly_and_each_always_to_the_same_daphne():
    ring = NginxRing([A, B])
    chosen = [ring.server_for(f"/ws/tables/{t}/") for t in range(1, 1001)]
    assert {A, B} == set(chosen)
    assert 0.35 < chosen.count(A) / len(chosen) < 0.65
    assert chosen == [NginxRing([A, B]).server_for(f"/ws/tables/{t}/") for t in range(1, 1001)]
    # A third daphne takes tables only from the others: none moves between A and B.
    three = NginxRing([A, B, "127.0.0.1:8003"])
    moved = [
        (was, now)
        for t, was in enumerate(chosen, start=1)
        if (now := three.server_for(f"/ws/tables/{t}/")) != was
    ]
    assert moved and all(now == "127.0.0.1:8003" for _, now in moved)


def test_a_server_name_splits_as_nginx_splits_it():
    assert split_server("127.0.0.1:8001") == ("127.0.0.1", "8001")
    assert split_server("[::1]:8001") == ("[::1]", "8001")
    assert split_server("daphne.internal") == ("daphne.internal", "")


class World:
    """The other daphnes' states and the time, as the spreader sees them."""

    def __init__(self, sockets: list[Socket]) -> None:
        self.up = {B: True}
        self.now = 0.0
        self.sockets = sockets
        self.closed: list[tuple[Socket, int, float]] = []

    async def probe(self, server: str) -> bool:
        return self.up[server]

    def close(self, socket: Socket, code: int) -> None:
        self.closed.append((socket, code, self.now))
        self.sockets.remove(socket)


def spreader_in(world: World, **timing: float) -> Spreader:
    return Spreader(
        [A, B],
        A,
        sockets=lambda: list(world.sockets),
        close=world.close,
        probe=world.probe,
        clock=lambda: world.now,
        settle=timing.get("settle", 3.0),
        spread=timing.get("spread", 0.2),
        steps=4,
    )


def test_after_the_other_daphne_listens_again_its_tables_are_handed_back_a_table_at_once():
    async def scenario() -> None:
        sockets = table_sockets(range(1, 41))
        world = World(sockets)
        ring = NginxRing([A, B])
        theirs = {s.path for s in sockets if ring.server_for(s.path) == B}
        assert theirs
        spreader = spreader_in(world)
        await spreader.look()  # both up from the start: nothing to do
        world.now = 10
        await spreader.look()
        assert spreader.handover is None
        world.up[B] = False  # B restarts
        world.now = 11
        await spreader.look()
        world.up[B] = True
        world.now = 12
        await spreader.look()
        world.now = 14.9  # listening for less than the settling time
        await spreader.look()
        assert spreader.handover is None and not world.closed
        world.now = 15
        await spreader.look()
        await spreader.handover
        assert {s.path for s, _, _ in world.closed} == theirs
        assert {code for _, code, _ in world.closed} == {CLOSE_SERVICE_RESTART}
        assert all(ring.server_for(s.path) == A for s in world.sockets)  # A's own stay
        assert spreader.handed_over == len(theirs)
        # A table's four sockets go together, in one step.
        for path in theirs:
            assert sum(1 for s, _, _ in world.closed if s.path == path) == 4
        # Once only: the next looks, all up, hand nothing over.
        world.now = 30
        await spreader.look()
        assert spreader.handover.done() and spreader.handed_over == len(theirs)

    asyncio.run(scenario())


def test_a_daphne_down_again_stops_the_handover():
    async def scenario() -> None:
        world = World(table_sockets(range(1, 201), per_table=1))
        spreader = spreader_in(world, settle=0, spread=60)
        world.up[B] = False
        await spreader.look()
        world.up[B] = True
        await spreader.look()
        await asyncio.sleep(0.05)  # its first step
        first_step = len(world.closed)
        assert first_step
        world.up[B] = False  # down again: the ring's choices change
        await spreader.look()
        await asyncio.sleep(0.05)
        assert spreader.handover.cancelled()
        assert len(world.closed) == first_step

    asyncio.run(scenario())
