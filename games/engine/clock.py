"""The chess clock of a hand: each seat's time left, the increment, who runs since when.

Two modes. Real time (``move_ms`` 0): minutes per hand, and each own action adds the
Fischer increment. Correspondence (``move_ms`` > 0, days per move): each own action
restores the mover's full ``move_ms``, as lichess's correspondence clock does, so a
player never banks time by moving fast.

Pure like the rest of the engine, as scalachess's clock is: it never reads the time.
Every method that needs it takes ``now``, an *instant*: whole microseconds since the
Unix epoch (the site converts its datetimes at the edge, ``games.models``). Whole
numbers, not float seconds: a float timestamp of today is off by a fraction of a
microsecond, enough to turn 5,000 ms used into 4,999.

Times left are whole milliseconds, as ``Hand.clock_ms`` stores them. The running seat
pays for whole milliseconds (the time used, rounded down), so his time left while he
thinks is exactly what stopping the clock at that instant would leave him, and it
reaches zero at :meth:`Clock.deadline`, the instant :meth:`Clock.flagged` names him.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from games.engine.rules import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["Clock"]

MICROS_PER_MS = 1000


@dataclass(frozen=True)
class Clock:
    """Every seat's time left (``left_ms``, at ``since`` for the running seat), the
    increment a seat gains for each move (or, with ``move_ms``, the time each move
    restores), and the running seat with the instant his time started to run;
    ``running`` and ``since`` are both None while the clock stands.

    Immutable: :meth:`start`, :meth:`stop` and :meth:`step` return the next clock.
    """

    left_ms: tuple[int, ...]
    increment_ms: int = 0
    running: int | None = None
    since: int | None = None
    move_ms: int = 0
    # Seats that gain no increment, one bit each (an arena's Berserk: seat 2 is 1 << 2).
    bare: int = 0

    def __post_init__(self) -> None:
        left = self.left_ms
        if (
            not isinstance(left, tuple)
            or not MIN_PLAYERS <= len(left) <= MAX_PLAYERS
            or any(type(x) is not int or x < 0 for x in left)
        ):
            raise ValueError(f"left_ms must be a tuple of {MIN_PLAYERS} to {MAX_PLAYERS} ints >= 0")
        if type(self.increment_ms) is not int or self.increment_ms < 0:
            raise ValueError("increment_ms must be an int >= 0")
        if type(self.move_ms) is not int or self.move_ms < 0:
            raise ValueError("move_ms must be an int >= 0")
        if self.move_ms and self.increment_ms:
            raise ValueError("a correspondence clock (move_ms) has no increment")
        if type(self.bare) is not int or not 0 <= self.bare < 1 << len(left):
            raise ValueError("bare must be a mask of the seats: an int from 0")
        if (self.running is None) != (self.since is None):
            raise ValueError("running and since go together: both set, or both None (stopped)")
        if self.running is not None:
            self._check_seat(self.running)
            if type(self.since) is not int:
                raise ValueError("since must be an instant: an int of microseconds")

    @classmethod
    def new(cls, players: int, base_ms: int, increment_ms: int = 0) -> Clock:
        """A stopped clock that gives every one of ``players`` seats ``base_ms``."""
        return cls(left_ms=(base_ms,) * players, increment_ms=increment_ms)

    @classmethod
    def per_move(cls, players: int, move_ms: int) -> Clock:
        """A stopped correspondence clock: every seat has ``move_ms`` for each move."""
        if move_ms <= 0:
            raise ValueError("a correspondence clock needs move_ms > 0")
        return cls(left_ms=(move_ms,) * players, move_ms=move_ms)

    @property
    def is_per_move(self) -> bool:
        """A correspondence clock: each move restores the full time."""
        return self.move_ms > 0

    # --- reading ------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self.running is not None

    def elapsed_ms(self, now: int) -> int:
        """The whole milliseconds the running seat has used by ``now`` (0 while the
        clock stands, and before ``since``)."""
        if self.since is None:
            return 0
        return max(0, (now - self.since) // MICROS_PER_MS)

    def remaining(self, seat: int, now: int) -> int:
        """``seat``'s time left at ``now`` in milliseconds: never below zero, and
        for the running seat what :meth:`stop` at ``now`` would leave him."""
        self._check_seat(seat)
        if seat != self.running:
            return self.left_ms[seat]
        return max(0, self.left_ms[seat] - self.elapsed_ms(now))

    def deadline(self) -> int | None:
        """The instant the running seat runs out of time; None while the clock stands."""
        if self.running is None or self.since is None:
            return None
        return self.since + self.left_ms[self.running] * MICROS_PER_MS

    def flagged(self, now: int) -> int | None:
        """The running seat if his time has run out at ``now`` (at the deadline
        exactly, too), else None. A stopped clock flags nobody, even at zero."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return None
        return self.running

    # --- changing -----------------------------------------------------------------------

    def start(self, seat: int, now: int) -> Clock:
        """``seat``'s time runs from ``now``. Raises ``ValueError`` if a seat's time
        runs already: stop it first, or it would never be charged."""
        self._check_seat(seat)
        if self.running is not None:
            raise ValueError(f"seat {self.running}'s time runs already")
        return replace(self, running=seat, since=now)

    def stop(self, now: int) -> Clock:
        """The clock stands at ``now``: the running seat is charged the time he used.
        A clock that stands already is returned as it is."""
        if self.running is None:
            return self
        left = list(self.left_ms)
        left[self.running] = self.remaining(self.running, now)
        return replace(self, left_ms=tuple(left), running=None, since=None)

    def step(self, now: int, next_seat: int | None) -> Clock:
        """The running seat moved at ``now``: he is charged the time he used and gains
        the increment (a correspondence clock gives him his full ``move_ms`` again), and
        ``next_seat``'s time runs from ``now`` (None: nobody's, the hand is over).
        Raises ``ValueError`` if the clock stands: nobody can move."""
        mover = self.running
        if mover is None:
            raise ValueError("the clock stands: nobody is to move")
        stopped = self.stop(now)
        left = list(stopped.left_ms)
        if self.is_per_move:
            left[mover] = self.move_ms
        elif not self.bare >> mover & 1:
            left[mover] += self.increment_ms
        stepped = replace(stopped, left_ms=tuple(left))
        return stepped if next_seat is None else stepped.start(next_seat, now)

    def berserk(self, seat: int, now: int) -> Clock:
        """``seat``'s time left is halved and he gains no increment from now on (an
        arena's Berserk); the running seat's time, charged up to ``now``, runs on."""
        self._check_seat(seat)
        was_running = self.running
        stopped = self.stop(now) if was_running is not None else self
        left = list(stopped.left_ms)
        left[seat] //= 2
        halved = replace(stopped, left_ms=tuple(left), bare=stopped.bare | 1 << seat)
        return halved if was_running is None else halved.start(was_running, now)

    # --- the stored form ----------------------------------------------------------------

    @classmethod
    def from_stored(
        cls,
        *,
        clock_ms: Sequence[int],
        increment_ms: int,
        to_move: int,
        turn_started_at: int | None,
        deadline: int | None,
        move_ms: int = 0,
        bare_seats: int = 0,
    ) -> Clock:
        """The clock of a stored hand (its fields, with instants for its datetimes):
        running for ``to_move`` while it has both a turn start and a deadline.

        The deadline is the one truth (the tickers and every action read it): the
        running seat's time left is what it leaves him, rounded up to a millisecond,
        the very ``clock_ms`` of his seat whenever :meth:`to_stored` wrote them.
        """
        left = list(clock_ms)
        if turn_started_at is None or deadline is None:
            return cls(
                left_ms=tuple(left), increment_ms=increment_ms, move_ms=move_ms, bare=bare_seats
            )
        left[to_move] = max(0, -((turn_started_at - deadline) // MICROS_PER_MS))
        return cls(
            left_ms=tuple(left),
            increment_ms=increment_ms,
            running=to_move,
            since=turn_started_at,
            move_ms=move_ms,
            bare=bare_seats,
        )

    def to_stored(self) -> dict[str, Any]:
        """The stored hand's clock fields (its datetimes as instants, None while the
        clock stands), as :meth:`from_stored` reads them back."""
        return {
            "clock_ms": list(self.left_ms),
            "increment_ms": self.increment_ms,
            "move_ms": self.move_ms,
            "bare_seats": self.bare,
            "turn_started_at": self.since,
            "deadline": self.deadline(),
        }

    def _check_seat(self, seat: int) -> None:
        if type(seat) is not int or not 0 <= seat < len(self.left_ms):
            raise ValueError(f"a seat is 0..{len(self.left_ms) - 1}")
