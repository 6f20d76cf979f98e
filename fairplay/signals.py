"""The fair-play signals of one finished hand, and the statistics they add up to.

Pure Python on the engine and the bots: no Django, no I/O, no clock; all randomness from
``random.Random(seed)``. For every decision of a person with more than one move distinct
in effect, :func:`hand_decisions` estimates from **his own view** (what he may see) each
seat's chance of taking the letter after each of his moves
(:func:`games.bots.analysis.seat_loss_chances`: the analysis' flat Monte Carlo, few
playouts). What the public bot would have played is the move that lowers his own
chance most (``best``). Beside it:

- *help* to another seat ``p``: ``best_loss[p] - made_loss[p]``, how much his move lowered
  ``p``'s chance against the bot's own choice (a colluder feeds his partner or makes a
  third player pick up; in Pan one seat loses, so lowering one chance raises another's);
- *cost*: ``made_loss[me] - best_loss[me]``, what it cost him;
- *knowledge* of ``p``'s hand: the same estimate on deals in which ``p``'s real hand is
  known, judged for the pair (his chance plus ``p``'s): how much less his move costs the
  pair with that knowledge than it costs him without (``regret_public -
  regret_informed``); an honest player's moves are explained no better by it;
- *worst*: whether his move is among the worst for himself (within ``WORST_MARGIN`` of the
  highest chance of losing he could give himself), against the share of such moves
  (what play at random gives): someone who takes the letter on purpose picks them far
  more often than even a random player, a person playing for himself far less;
- *matched*: whether his move is the strong bot's (:func:`games.bots.ismcts.ismcts_move`)
  on a decision with a real difference between the moves (``SPREAD``);
- his thinking time (the action's ``time_used_ms``).

The sums of many hands make the statistics (:class:`PlayerTotals`, :class:`PairTotals`);
each is standardised (a z-like value, about 0 with a spread of about 1 over honest play
whatever the number of decisions), so that one reference distribution of honest players
or pairs (``fairplay.reference``) says how unusual a value is.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from games.bots.analysis import decisions_of, seat_loss_chances
from games.bots.features import move_key
from games.bots.ismcts import ismcts_move
from games.bots.knowledge import Knowledge
from games.engine import HandState, move_from_json

__all__ = [
    "COSTLY",
    "SPREAD",
    "WORST_MARGIN",
    "Budget",
    "Decision",
    "PairTotals",
    "PlayerTotals",
    "hand_decisions",
    "informed_knowledge",
    "poisson_tail",
]

# A decision whose moves differ by less than this in the mover's own chance of losing is
# trivial: any move will do, and matching the bot there says nothing.
SPREAD = 0.05
# A move that raised the mover's own chance of losing by this much beside the bot's best
# is a costly one (a case shows those that helped the other player as dumping's moments).
COSTLY = 0.1
# A move whose own chance of losing is within this of the highest among the moves is
# among the worst for the mover (the estimates' own noise is about this).
WORST_MARGIN = 0.02


@dataclass(frozen=True)
class Budget:
    """The CPU of a hand's check: deals per estimate (each estimate is made once for the
    public view and once per partner), the greedy actions played after each move, and the
    strong bot's playouts for the move it would choose."""

    playouts: int = 24
    rollout_plies: int = 8
    bot_playouts: int = 100


@dataclass(frozen=True)
class Decision:
    """One decision of ``seat`` with at least two moves distinct in effect.

    ``step``: its index in the hand's moves (the replay's step is ``step + 1``).
    ``moves``: ``(move, losses)`` per distinct move, ``losses`` every seat's chance of
    losing after it from the mover's view; ``made`` and ``best`` index into it.
    ``informed``: per other seat holding cards, ``(regret_public, regret_informed,
    partner_hand)`` (module docstring).
    """

    step: int
    seat: int
    moves: tuple[tuple[dict[str, Any], tuple[float, ...]], ...]
    made: int
    best: int
    bot: int | None
    time_ms: int
    holding: tuple[bool, ...]  # which seats held cards when he decided
    informed: dict[int, tuple[float, float, tuple[str, ...]]]

    @property
    def made_loss(self) -> tuple[float, ...]:
        return self.moves[self.made][1]

    @property
    def best_loss(self) -> tuple[float, ...]:
        return self.moves[self.best][1]

    @property
    def cost(self) -> float:
        return round(self.made_loss[self.seat] - self.best_loss[self.seat], 4)

    @property
    def spread(self) -> float:
        own = [losses[self.seat] for _, losses in self.moves]
        return max(own) - min(own)

    @property
    def nontrivial(self) -> bool:
        return self.spread >= SPREAD

    @property
    def matched(self) -> bool:
        return self.bot == self.made

    def _worst(self) -> list[bool]:
        own = [losses[self.seat] for _, losses in self.moves]
        top = max(own)
        return [value >= top - WORST_MARGIN for value in own]

    @property
    def worst(self) -> bool:
        """Whether the move made is among the worst for himself (``WORST_MARGIN``)."""
        return self._worst()[self.made]

    @property
    def worst_share(self) -> float:
        """The share of the moves that are among the worst for him: the chance of making
        one by playing at random."""
        worst = self._worst()
        return sum(worst) / len(worst)

    def help_to(self, seat: int) -> float:
        """How much the move made lowered ``seat``'s chance of losing beside the best."""
        return round(self.best_loss[seat] - self.made_loss[seat], 4)

    def knowledge_of(self, seat: int) -> float | None:
        entry = self.informed.get(seat)
        return None if entry is None else round(entry[0] - entry[1], 4)

    def beneficiary(self) -> int | None:
        """The other seat whose chance the move made lowered most, if it lowered any."""
        gains = [(self.help_to(s), s) for s in range(len(self.made_loss)) if s != self.seat]
        gain, seat = max(gains)
        return seat if gain > 0 else None


def informed_knowledge(
    view: dict[str, Any], partner: int, partner_hand: Sequence[str]
) -> Knowledge:
    """What the seat of ``view`` knows if ``partner`` shows him his hand: his own view's
    knowledge with the partner's cards placed (betons stay unknown to both)."""
    public = Knowledge.from_view(view)
    shown = tuple(partner_hand)
    shown_set = set(shown)
    known = list(public.known)
    known[partner] = shown
    slots = list(public.hand_slots)
    slots[partner] = 0
    return dataclasses.replace(
        public,
        known=tuple(known),
        unknown=tuple(c for c in public.unknown if c not in shown_set),
        hand_slots=tuple(slots),
    )


def hand_decisions(
    start: HandState,
    moves: Sequence[dict[str, Any]],
    times_ms: Sequence[int],
    people: Sequence[int],
    *,
    seed: str,
    budget: Budget = Budget(),
) -> list[Decision]:
    """The decisions of the seats in ``people`` (the persons of the hand; bots are not
    judged) that had two moves or more distinct in effect. ``moves`` as
    :func:`~games.bots.analysis.decisions_of` takes them, ``times_ms[i]`` the thinking
    time of ``moves[i]``."""
    people_set = set(people)
    states = _states(start, moves)
    found = []
    for seat in sorted(people_set):
        for step, view, made_json in decisions_of(start, moves, seat):
            spades_back = view["rules"]["spades_back"]
            rng = random.Random(f"{seed}:{step}")
            public = seat_loss_chances(
                view, Knowledge.from_view(view), rng, budget.playouts, budget.rollout_plies
            )
            if len(public) < 2:
                continue
            keys = [key for key, _, _ in public]
            made = keys.index(move_key(move_from_json(made_json), spades_back))
            own = [losses[seat] for _, _, losses in public]
            best = own.index(min(own))
            bot_move = ismcts_move(
                view, random.Random(f"{seed}:{step}:bot"), playouts=budget.bot_playouts
            )
            bot_key = move_key(bot_move, spades_back)
            informed = {}
            # Every other seat holding cards: a pair's knowledge is judged beside the rest's.
            holding = states[step].holding
            for partner in (s for s in range(start.players) if s != seat and holding[s]):
                hand = states[step].hand(partner)
                knowing = informed_knowledge(view, partner, hand)
                chances = seat_loss_chances(
                    view, knowing, random.Random(f"{seed}:{step}:{partner}"),
                    budget.playouts, budget.rollout_plies,
                )  # fmt: skip
                team = {key: losses[seat] + losses[partner] for key, _, losses in chances}
                regret_informed = team[keys[made]] - min(team.values())
                regret_public = own[made] - own[best]
                informed[partner] = (
                    round(regret_public, 4),
                    round(regret_informed, 4),
                    tuple(hand),
                )
            found.append(
                Decision(
                    step=step,
                    seat=seat,
                    moves=tuple((move, losses) for _, move, losses in public),
                    made=made,
                    best=best,
                    bot=keys.index(bot_key) if bot_key in keys else None,
                    time_ms=int(times_ms[step]) if step < len(times_ms) else 0,
                    holding=tuple(states[step].holding),
                    informed=informed,
                )
            )
    found.sort(key=lambda d: d.step)
    return found


def _states(start: HandState, moves: Sequence[dict[str, Any]]) -> list[HandState]:
    """The state before each move of ``moves``."""
    states = []
    state = start
    for data in moves:
        states.append(state)
        move = move_from_json(data)
        state = state.timeout() if data.get("type") == "timeout" else state.apply(move)
    return states


# --- the statistics of many hands -----------------------------------------------------------


def _ratio(total: float, squares: float) -> float:
    """A self-standardised sum: ``total / sqrt(squares)`` (0 with nothing to go on)."""
    return total / math.sqrt(squares) if squares > 0 else 0.0


@dataclass
class PlayerTotals:
    """One player's sums over his judged decisions.

    ``nontrivial``: decisions with a real difference between the moves; ``matched``: of
    those, where he played the strong bot's move; ``expected`` and ``variance``: the sum
    of the honest rate of his rating band (``reference.match_rate``) and of its binomial
    variance over those decisions. ``times``, ``log_time_sum``, ``log_time_squares``:
    his thinking times on them (logs of seconds, a tenth of a second at least).
    """

    decisions: int = 0
    nontrivial: int = 0
    matched: int = 0
    expected: float = 0.0
    variance: float = 0.0
    times: int = 0
    log_time_sum: float = 0.0
    log_time_squares: float = 0.0

    def add(self, decision: Decision, honest_rate: float) -> None:
        self.decisions += 1
        if not decision.nontrivial:
            return
        self.nontrivial += 1
        self.matched += decision.matched
        self.expected += honest_rate
        self.variance += honest_rate * (1 - honest_rate)
        if decision.time_ms > 0:
            log_time = math.log(max(decision.time_ms, 100) / 1000)
            self.times += 1
            self.log_time_sum += log_time
            self.log_time_squares += log_time * log_time

    @property
    def match_rate(self) -> float:
        return self.matched / self.nontrivial if self.nontrivial else 0.0

    @property
    def match_excess(self) -> tuple[float, float] | None:
        """The assistance statistic: how far his rate of the strong bot's moves is above
        the honest rate of his rating band, and the variance of its sampling error (the
        binomial's over his decisions). Unlike a z-score of the count it does not grow with
        the decisions for an honest player stronger than his band (a rating not caught up
        yet): the reference's spread says how far above honest players go. None without
        a decision to go on."""
        if not self.nontrivial:
            return None
        n = self.nontrivial
        return (self.matched - self.expected) / n, self.variance / (n * n)

    @property
    def time_spread(self) -> float | None:
        """The standard deviation of the logs of his thinking times (a person's vary with
        the decision; a relay of a program's answers is regular). None below 3 times."""
        if self.times < 3:
            return None
        mean = self.log_time_sum / self.times
        variance = max(0.0, self.log_time_squares / self.times - mean * mean)
        return math.sqrt(variance * self.times / (self.times - 1))

    @property
    def timing(self) -> tuple[float, float] | None:
        """The timing statistic: minus the logarithm of :attr:`time_spread` (higher: more
        regular), and the variance of its sampling error, ``1 / (2 (n - 1))`` for ``n``
        times. None below 3 times."""
        spread = self.time_spread
        if spread is None:
            return None
        return -math.log(max(spread, 1e-3)), 1 / (2 * (self.times - 1))


@dataclass
class PairTotals:
    """One player's sums toward one other player at his tables (an ordered pair), hand by
    hand (:meth:`add_hand`).

    Each decision's help to the other (:meth:`Decision.help_to`) and knowledge of his hand
    (:meth:`Decision.knowledge_of`) is taken beside the mean of the same toward the other
    seats holding cards at that moment: a player's style helps some seats more than
    others by their place at the table (the greedy bot's low cards help the next seat), and
    only what he does for this one player beyond the rest counts. A hand's sum is one term
    (``*_sum``) and its square one term of the spread (``*_squares``), so the statistic
    stays a standardised sum although decisions of one hand hang together.

    ``dumps``: his decisions with a real difference, at tables with the other still
    holding cards, on which he made a move among the worst for himself
    (:attr:`Decision.worst`), against ``dump_expected`` and ``dump_variance``, the sums
    of the chance and binomial variance of doing so at random (:attr:`Decision.worst_share`):
    a person playing for himself is below, a random player about level, someone taking the
    letter on purpose far above."""

    decisions: int = 0
    help_sum: float = 0.0
    help_squares: float = 0.0
    knowledge_sum: float = 0.0
    knowledge_squares: float = 0.0
    dumps: int = 0
    dump_expected: float = 0.0
    dump_variance: float = 0.0

    def add_hand(self, decisions: Sequence[Decision], other: int) -> None:
        """Add one hand: ``decisions`` of one seat in it."""
        helped = known = 0.0
        counted = 0
        for d in decisions:
            rest = [s for s, h in enumerate(d.holding) if h and s not in (d.seat, other)]
            if not d.holding[other] or not rest:
                continue
            counted += 1
            helped += d.help_to(other) - sum(d.help_to(s) for s in rest) / len(rest)
            mine = d.knowledge_of(other)
            theirs = [d.knowledge_of(s) for s in rest]
            if mine is not None and None not in theirs:
                known += mine - sum(theirs) / len(theirs)  # type: ignore[arg-type]
            if d.nontrivial:
                share = d.worst_share
                self.dumps += d.worst
                self.dump_expected += share
                self.dump_variance += share * (1 - share)
        if not counted:
            return
        self.decisions += counted
        self.help_sum += helped
        self.help_squares += helped * helped
        self.knowledge_sum += known
        self.knowledge_squares += known * known

    @property
    def help_z(self) -> float:
        return _ratio(self.help_sum, self.help_squares)

    @property
    def knowledge_z(self) -> float:
        return _ratio(self.knowledge_sum, self.knowledge_squares)

    @property
    def dump_z(self) -> float:
        """How far above random play he chose the moves worst for himself (in binomial
        standard errors)."""
        return _ratio(self.dumps - self.dump_expected, self.dump_variance)


def poisson_tail(observed: int, expected: float) -> float:
    """P(X >= observed) for X Poisson with mean ``expected``: how often a pair would
    share ``observed`` tables or more by the pairing's chance alone."""
    if observed <= 0:
        return 1.0
    if expected <= 0:
        return 0.0
    term = math.exp(-expected)
    below = 0.0
    for k in range(observed):
        if k:
            term *= expected / k
        below += term
    return max(0.0, min(1.0, 1.0 - below))
