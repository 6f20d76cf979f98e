"""Fair play's signals on hands made to show them (no database): a seat playing the
strong bot's moves, a feeder, a card sharer, a dumper, and honest play beside them."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable

from bench.fairplay_players import Player, player_move
from fairplay import signals
from fairplay.reference import Reference, combined
from games.bots import choose_move
from games.bots.features import move_key
from games.engine import HandState, Rules, deal, move_from_json

BUDGET = signals.Budget(playouts=8, rollout_plies=6, bot_playouts=20)
Chooser = Callable[[HandState, int, random.Random], dict]


def play(choosers: dict[int, Chooser], *, seed: str, players: int = 3) -> tuple[HandState, list]:
    """A hand from ``deal(seed)``: each seat's move from its chooser (greedy by default)."""
    start = state = deal(Rules(), players, 0, seed)
    rng = random.Random(seed)
    moves = []
    while state.outcome is None:
        seat = state.to_move
        chooser = choosers.get(seat)
        if chooser is None:
            move = choose_move("greedy", state.view_for(seat), seed="g")
        else:
            move = chooser(state, len(moves), rng)
        moves.append(move)
        state = state.apply(move_from_json(move))
    return start, moves


def judged(start: HandState, moves: list, people: list[int], seed: str) -> list[signals.Decision]:
    return signals.hand_decisions(
        start, moves, [1000] * len(moves), people, seed=seed, budget=BUDGET
    )


def test_a_seat_playing_the_strong_bots_move_matches_it_and_a_random_one_does_not():
    bot = signals.Budget(playouts=8, rollout_plies=6, bot_playouts=20)

    def like_the_detector(state: HandState, step: int, rng: random.Random) -> dict:
        # The very search the check runs at this step (its seed and its playouts).
        view = state.view_for(state.to_move)
        from games.bots.ismcts import ismcts_move

        move = ismcts_move(view, random.Random(f"t:{step}:bot"), playouts=bot.bot_playouts)
        return next(
            m
            for m in view["legal_moves"]
            if move_key(move_from_json(m), False) == move_key(move, False)
        )

    def at_random(state: HandState, step: int, rng: random.Random) -> dict:
        return rng.choice(state.view_for(state.to_move)["legal_moves"])

    assisted, randomly = signals.PlayerTotals(), signals.PlayerTotals()
    for n in range(3):
        start, moves = play({0: like_the_detector, 1: at_random}, seed=f"m{n}")
        for d in judged(start, moves, [0, 1], "t"):
            (assisted if d.seat == 0 else randomly).add(d, 0.5)
    assert assisted.nontrivial >= 5 and assisted.match_rate == 1.0
    assert randomly.match_rate < 0.8
    assert assisted.match_excess[0] == 0.5 > 0.3 > randomly.match_excess[0]
    # Its sampling variance: the binomial's at one half, over his decisions.
    assert math.isclose(assisted.match_excess[1], 0.25 / assisted.nontrivial)
    assert signals.PlayerTotals().match_excess is None


def pair_totals(chooser: Chooser, *, toward: int, hands: int = 3) -> signals.PairTotals:
    """Seat 0's sums toward seat ``toward`` over ``hands`` hands of three, seat 0 playing by
    ``chooser``, the others greedily."""
    totals = signals.PairTotals()
    for n in range(hands):
        start, moves = play({0: chooser}, seed=f"f{n}")
        mine = [d for d in judged(start, moves, [0, 1, 2], "t") if d.seat == 0]
        totals.add_hand(mine, toward)
    return totals


def feeder(state: HandState, step: int, rng: random.Random) -> dict:
    return player_move(Player("feeder", partner=1), state, rng)


def sharer(state: HandState, step: int, rng: random.Random) -> dict:
    return player_move(Player("sharer", partner=1), state, rng)


def greedy(state: HandState, step: int, rng: random.Random) -> dict:
    return choose_move("greedy", state.view_for(state.to_move), seed="g")


def test_a_seat_that_feeds_his_partner_shows_the_feeding_signal_and_greedy_play_does_not():
    fed = pair_totals(feeder, toward=1, hands=4)
    assert fed.help_sum > 0 and fed.help_z > 1.5
    assert pair_totals(feeder, toward=2, hands=4).help_z < 0  # the third player pays for it
    for toward in (1, 2):
        assert abs(pair_totals(greedy, toward=toward, hands=4).help_z) < fed.help_z


def test_a_card_sharer_is_explained_better_by_the_bot_that_sees_his_partners_hand():
    # Three hands: a sum of three hand terms over its own spread is at most sqrt(3).
    shared = pair_totals(sharer, toward=1)
    assert shared.knowledge_sum > 0 and shared.knowledge_z > 1.0
    assert pair_totals(greedy, toward=1).knowledge_z < shared.knowledge_z


def test_a_move_worst_for_himself_counts_toward_dumping_and_the_best_one_against():
    # Three moves: the bot's keeps seat 0 safe, the other two hand him the letter.
    moves = (({"type": "play", "cards": ["9H"]}, (0.2, 0.5, 0.3)),
             ({"type": "pickup", "count": 1}, (0.6, 0.1, 0.3)),
             ({"type": "pickup", "count": 3}, (0.61, 0.2, 0.19)))  # fmt: skip
    thrown = signals.Decision(
        step=4, seat=0, moves=moves, made=1, best=0, bot=0, time_ms=900,
        holding=(True, True, True), informed={},
    )  # fmt: skip
    played = dataclasses.replace(thrown, made=0)
    assert thrown.cost == 0.4 and thrown.help_to(1) == 0.4 and thrown.help_to(2) == 0
    assert thrown.beneficiary() == 1
    # Two of the three moves are within the margin of his worst: a random player's chance.
    assert thrown.worst and not played.worst and math.isclose(thrown.worst_share, 2 / 3)
    dumper, player = signals.PairTotals(), signals.PairTotals()
    for _ in range(6):
        dumper.add_hand([thrown], 1)
        player.add_hand([played], 1)
    assert (dumper.dumps, player.dumps) == (6, 0) and math.isclose(dumper.dump_expected, 4)
    assert dumper.dump_z > 1.5 > -1.5 > player.dump_z
    assert dumper.help_z > 2


def dumper(state: HandState, step: int, rng: random.Random) -> dict:
    return player_move(Player("dumper", partner=1), state, rng)


def test_a_seat_taking_the_letter_on_purpose_shows_dumping_and_greedy_play_does_not():
    thrown = pair_totals(dumper, toward=1, hands=3)
    assert thrown.dumps > thrown.dump_expected and thrown.dump_z > 3
    assert pair_totals(greedy, toward=1, hands=3).dump_z < 1


def test_regular_thinking_times_spread_less_than_a_persons():
    relay, person = signals.PlayerTotals(), signals.PlayerTotals()
    rng = random.Random(1)
    base = signals.Decision(
        step=0, seat=0, moves=(({"type": "pickup", "count": 1}, (0.9, 0.1)),
                               ({"type": "play", "cards": ["AH"]}, (0.1, 0.9))),
        made=1, best=1, bot=1, time_ms=0, holding=(True, True), informed={},
    )  # fmt: skip
    for _ in range(30):
        relay.add(_with_time(base, int(rng.uniform(3500, 5500))), 0.5)
        person.add(_with_time(base, int(rng.lognormvariate(math.log(3000), 0.8))), 0.5)
    assert relay.time_spread < 0.2 < 0.5 < person.time_spread
    # The statistic (higher: more regular) and its own sampling variance, 1 / (2 (n - 1)).
    assert relay.timing[0] > 1.5 > 0.7 > person.timing[0]
    assert math.isclose(person.timing[1], 1 / 58)
    assert signals.PlayerTotals().timing is None


def _with_time(decision: signals.Decision, ms: int) -> signals.Decision:
    return dataclasses.replace(decision, time_ms=ms)


def test_sharing_tables_by_chance_and_far_more_often():
    assert signals.poisson_tail(0, 2.0) == 1.0
    assert math.isclose(signals.poisson_tail(1, 2.0), 1 - math.exp(-2))
    assert signals.poisson_tail(2, 2.0) > 0.5
    assert signals.poisson_tail(20, 2.0) < 1e-10


def test_a_value_is_said_against_the_honest_reference_and_cases_combine_their_signals():
    reference = Reference(
        source="test", values={"feeding": tuple(float(v) for v in range(-50, 50))}, match_rates={}
    )
    tail = reference.tail("feeding", 45.5)
    assert tail.above == 0.96 and tail.count == 100
    assert reference.tail("feeding", 200).above == 1.0
    assert reference.tail("feeding", 200).chance < 1e-6 < tail.chance
    # A value of less data than the reference's is judged against a wider spread.
    assert reference.tail("feeding", 200, sampling=2500.0).chance > 1e-4
    unknown = reference.tail("knowledge", 3.0)  # no honest values: a standard normal
    assert unknown.above is None and math.isclose(unknown.chance, 0.00135, rel_tol=0.01)
    assert reference.match_rate(1500) == 0.5
    strong = combined([reference.tail("feeding", 200), unknown])
    assert strong < combined([unknown]) < combined([reference.tail("feeding", 0.0)])
    assert combined([]) == 1.0
