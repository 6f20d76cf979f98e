"""The live room's table memory on a table of its own kind: it keeps what the connected
source gives it, applies a move's change without a read, and reads again only when the
frame cannot take the change (no database, no games app: the memory knows no table's
insides)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from live.tables import PRESENCE_BATCH, LiveTables, NoSuchTable


@dataclass(frozen=True)
class Board:
    table_id: int
    hand: int
    version: int
    players: tuple[int, ...] = (1, 2)
    presence: dict[int, bool] = field(default_factory=dict)


class Boards:
    """A source of boards that counts its reads."""

    def __init__(self) -> None:
        self.reads: list[int] = []
        self.batches: list[list[int]] = []
        self.version = 1
        self.players = (1, 2)  # whom a read finds seated
        self.missing: set[int] = set()
        self.hold: threading.Event | None = None  # a batch read waits for it
        self.failing = False

    def read(self, table_id: int, *, frame: Board | None, hand_id: int | None) -> Board:
        self.reads.append(table_id)
        return Board(table_id, hand=7, version=self.version)

    def read_many(self, table_ids: list[int]) -> dict[int, Board]:
        self.batches.append(sorted(table_ids))
        self.reads.extend(table_ids)
        if self.hold is not None:
            self.hold.wait(5)
        if self.failing:
            raise ConnectionError("the database went away")
        found = [t for t in table_ids if t not in self.missing]
        return {t: Board(t, hand=7, version=self.version, players=self.players) for t in found}

    def apply(
        self, frame: Board, *, hand_id: int, version: int, change: dict[str, Any]
    ) -> Board | None:
        if hand_id != frame.hand or version != frame.version + 1:
            return None
        return replace(frame, version=version)

    def read_presence(self, frames: list[Board]) -> dict[int, Any]:
        return {frame.table_id: dict.fromkeys(frame.players, True) for frame in frames}

    def with_presence(self, frame: Board, presence: Any) -> Board:
        return replace(frame, presence=presence)

    def presence_seen(self, frame: Board, user_id: int, *, connected: bool) -> Board | None:
        if user_id not in frame.players:
            return None
        return replace(frame, presence={**frame.presence, user_id: connected})

    def shows_presence(self, frame: Board, user_id: int) -> bool:
        return user_id in frame.players

    def known(self, frame: Board, table_id: int) -> Any:
        return (frame.hand, frame.version)

    def position(self, frame: Board) -> tuple[int, int]:
        return (frame.hand, frame.version)


def memory(**options: float) -> tuple[LiveTables[Board], Boards]:
    tables: LiveTables[Board] = LiveTables(**options)
    source = Boards()
    tables.connect(source)
    return tables, source


@pytest.mark.asyncio
async def test_a_moves_change_is_applied_to_the_kept_table_without_a_read():
    tables, source = memory()
    first = await tables.snapshot(3, event=None)
    assert (first.version, source.reads) == (1, [3])
    moved = await tables.snapshot(3, event="e2", hand_id=7, version=2, change={})
    assert moved.version == 2 and source.reads == [3]
    assert await tables.snapshot(3, event="e2", hand_id=7, version=2, change={}) is moved
    assert tables.known(3) == (7, 2)


@pytest.mark.asyncio
async def test_a_change_the_kept_table_cannot_take_is_read_again():
    tables, source = memory()
    await tables.snapshot(3, event=None)
    source.version = 5  # events were missed
    read = await tables.snapshot(3, event="e5", hand_id=7, version=5, change={})
    assert read.version == 5 and source.reads == [3, 3]


@pytest.mark.asyncio
async def test_a_table_read_long_ago_shows_a_move_at_once_and_is_read_again_for_the_next():
    """What only a read shows (here a player seated since) is read again in the
    background: the move is not held up by the pool, the moves after show the read."""
    tables, source = memory(refresh_after=0.0)
    await tables.snapshot(3, event=None)
    source.players = (1, 5)
    moved = await tables.snapshot(3, event="e2", hand_id=7, version=2, change={})
    assert (moved.version, moved.players, source.reads) == (2, (1, 2), [3])
    source.version = 2
    await asyncio.sleep(PRESENCE_BATCH + 0.3)
    assert source.batches == [[3], [3]] and tables.refreshes == 1
    after = await tables.snapshot(3, event="e3", hand_id=7, version=3, change={})
    assert (after.version, after.players) == (3, (1, 5))


@pytest.mark.asyncio
async def test_a_read_again_that_a_move_overtook_is_dropped():
    tables, source = memory(refresh_after=0.0)
    await tables.snapshot(3, event=None)
    source.hold = threading.Event()
    await tables.snapshot(3, event="e2", hand_id=7, version=2, change={})  # read again soon
    await asyncio.sleep(PRESENCE_BATCH + 0.1)  # the read has started, at version 1
    tables.refresh_after = 1e9
    moved = await tables.snapshot(3, event="e3", hand_id=7, version=3, change={})
    source.hold.set()
    await asyncio.sleep(0.2)
    assert moved.version == 3 and tables.refreshes == 0
    assert tables.known(3) == (7, 3)  # the frame the moves made, not the older read


@pytest.mark.asyncio
async def test_presence_is_the_sources_to_show():
    tables, _source = memory()
    assert tables.shows_presence(3, 9)  # nothing read yet: shown, to be sure
    await tables.snapshot(3, event=None)
    assert tables.shows_presence(3, 1) and not tables.shows_presence(3, 9)
    tables.presence_seen(3, 1, connected=True)
    tables.presence_seen(3, 9, connected=True)  # no place for him: nothing changes
    moved = await tables.snapshot(3, event="e2", hand_id=7, version=2, change={})
    assert moved.presence == {1: True}


@pytest.mark.asyncio
async def test_a_table_memory_without_a_source_says_so():
    with pytest.raises(RuntimeError, match="TableSource"):
        await LiveTables().snapshot(3, event=None)


def test_a_shared_render_is_drawn_once_per_event_and_what_a_page_shows_is_kept():
    tables: LiveTables[Board] = LiveTables()
    drawn = []

    def render() -> str:
        drawn.append(1)
        return "<p>hand</p>"

    for _viewer in range(3):
        assert tables.shared_at(3, "pl", ("hand", "e2"), render) == "<p>hand</p>"
    tables.shared_at(3, "pl", ("hand", None), render)  # a fresh read's: this viewer's alone
    assert len(drawn) == 2
    # What a page shows once it took a shared render, kept by language and render.
    assert tables.shown(3, "pl", ("hand", "e2")) is None
    tables.keep_shown(3, "pl", ("hand", "e2"), ["a", "b"])
    assert tables.shown(3, "pl", ("hand", "e2")) == ["a", "b"]
    assert tables.shown(3, "en", ("hand", "e2")) is None  # not in English


@pytest.mark.asyncio
async def test_tables_asked_while_a_read_is_under_way_are_read_together_next():
    """After a restart every table's sockets open at once: the tables asked for while a
    read is under way wait for the next read and share it, and each socket of a table
    shares its table's."""
    tables, source = memory()
    source.hold = threading.Event()
    first = asyncio.ensure_future(tables.fresh(1, since=0.0))
    while not source.batches:
        await asyncio.sleep(0.01)
    later = [asyncio.ensure_future(tables.fresh(t, since=0.0)) for t in (2, 3, 3, 4)]
    source.hold.set()
    boards = await asyncio.gather(first, *later)
    assert source.batches == [[1], [2, 3, 4]]
    assert [b.table_id for b in boards] == [1, 2, 3, 3, 4] and boards[2] is boards[3]


@pytest.mark.asyncio
async def test_a_missing_table_and_a_failed_read_are_said_to_their_sockets_alone():
    tables, source = memory()
    source.missing = {2}
    one, two = await asyncio.gather(
        tables.fresh(1, since=0.0), tables.fresh(2, since=0.0), return_exceptions=True
    )
    assert one.table_id == 1 and isinstance(two, NoSuchTable)
    source.failing = True
    with pytest.raises(ConnectionError):
        await tables.fresh(5, since=0.0)
    source.failing = False
    assert (await tables.fresh(5, since=0.0)).table_id == 5  # asked again: read again
