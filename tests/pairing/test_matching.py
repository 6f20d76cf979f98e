"""Who sits with whom: the pure arithmetic, no database."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pairing.matching import groups, waiting_counts, waiting_for

START = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class FakeSeek:
    pk: int
    size: int | None
    rating: float = 25.0
    time_control: str = "3+2"
    created_at: datetime = START

    def __post_init__(self) -> None:
        self.created_at = START + timedelta(seconds=self.pk)  # a later pk waited less


def seated(found) -> list[tuple[int, list[int]]]:
    return [(size, [s.pk for s in group]) for size, group in found]


def test_nobody_is_seated_until_enough_wait_for_the_same_size():
    assert groups([FakeSeek(1, 2)]) == []
    assert groups([FakeSeek(1, 2), FakeSeek(2, 3), FakeSeek(3, 4)]) == []
    assert seated(groups([FakeSeek(1, 3), FakeSeek(2, 3), FakeSeek(3, 3)])) == [(3, [1, 2, 3])]


def test_any_size_joins_any_table_and_the_largest_table_is_filled_first():
    assert seated(groups([FakeSeek(1, 2), FakeSeek(2, None)])) == [(2, [1, 2])]
    assert seated(groups([FakeSeek(1, None), FakeSeek(2, None)])) == [(2, [1, 2])]
    four = [FakeSeek(1, None), FakeSeek(2, 4), FakeSeek(3, None), FakeSeek(4, 4)]
    assert seated(groups(four)) == [(4, [1, 2, 3, 4])]
    mixed = [FakeSeek(1, 2), FakeSeek(2, 3), FakeSeek(3, None), FakeSeek(4, 3)]
    assert seated(groups(mixed)) == [(3, [2, 3, 4])]  # the pair's seeker waits on


def test_time_controls_never_mix():
    assert groups([FakeSeek(1, 2), FakeSeek(2, 2, time_control="1+0")]) == []


def test_with_more_seekers_than_seats_the_longest_waiting_sits_with_the_nearest_ratings():
    seeks = [
        FakeSeek(1, 2, rating=30.0),
        FakeSeek(2, 2, rating=10.0),
        FakeSeek(3, 2, rating=29.0),
        FakeSeek(4, 2, rating=12.0),
        FakeSeek(5, 2, rating=50.0),
    ]
    assert seated(groups(seeks)) == [(2, [1, 3]), (2, [2, 4])]


def test_two_linked_seeks_never_sit_at_one_table_the_next_nearest_sits_instead():
    seeks = [FakeSeek(1, 2, rating=30.0), FakeSeek(2, 2, rating=29.0), FakeSeek(3, 2, rating=10.0)]
    assert seated(groups(seeks)) == [(2, [1, 2])]
    assert seated(groups(seeks, apart={frozenset((1, 2))})) == [(2, [1, 3])]
    # Linked to everyone who waits with him: the longest waiting waits on, the others play.
    apart = {frozenset((1, 2)), frozenset((1, 3))}
    assert seated(groups(seeks, apart=apart)) == [(2, [2, 3])]
    assert groups(seeks[:2], apart={frozenset((1, 2))}) == []
    four = [FakeSeek(i, None) for i in range(1, 6)]
    assert seated(groups(four, apart={frozenset((1, 2))})) == [(4, [1, 3, 4, 5])]


def test_every_seek_is_in_at_most_one_group():
    seeks = [FakeSeek(i, [2, 3, 4, None][i % 4], rating=float(i * 7 % 13)) for i in range(1, 40)]
    found = groups(seeks)
    pks = [s.pk for _size, group in found for s in group]
    assert len(pks) == len(set(pks))
    assert all(len(group) == size for size, group in found)
    assert all(s.size in (None, size) for size, group in found for s in group)


def test_the_count_a_seeker_sees_includes_the_seekers_of_any_size():
    counts = waiting_counts([FakeSeek(1, 2), FakeSeek(2, None), FakeSeek(3, 4)])
    assert counts == {"2": 1, "3": 0, "4": 1, "any": 1}
    assert waiting_for(counts, 2) == 2
    assert waiting_for(counts, 3) == 1
    assert waiting_for(counts, None) == 3
