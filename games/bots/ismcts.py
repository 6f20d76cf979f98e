"""The ismcts bot: single-observer information-set Monte Carlo tree search.

After Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search"
(IEEE TCIAIG 2012), SO-ISMCTS. Each iteration:

1. *Determinise*: deal the cards the seat cannot see at random, consistently
   with everything its view shows (:class:`~games.bots.knowledge.Knowledge`).
2. *Select* down the one tree of the seat's information set: at every node,
   among the moves legal in this determinisation, UCB1 with availability
   counts (a move is only compared over the iterations in which it was legal)
   from the point of view of the seat to move there; moves that are the same
   in effect (:func:`~games.bots.features.move_key`) share one child.
3. *Expand* one untried move, then *roll out* with the greedy policy (every
   seat playing its determinised hand) for at most ``rollout_plies`` actions.
4. *Evaluate*: a finished hand scores 1 for every seat but the loser (0); a
   tie scores ``tie_reward`` for all. A hand still running (the rollout was
   cut short, or ``max_actions`` ended it without a loser) is scored by its
   cards: the chance that each seat still holding cards loses is a softmax of
   fitted log-odds (:class:`SearchSettings`) -- nines above all, then tens,
   more so when two seats are left -- and its reward is the chance it does not
   lose, a little less while it still holds cards.
5. *Back-propagate* each node's reward for the seat that moved into it.

The move played is the root's most visited child.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.bots.features import RANK_OF, RANK_OF_LABEL, distinct_moves
from games.bots.greedy import DEFAULT_STYLE as GREEDY_STYLE
from games.bots.greedy import Style, greedy_for_state
from games.bots.knowledge import Knowledge
from games.engine import HandState, Move, Rules, move_from_json

__all__ = [
    "DEFAULT_PLAYOUTS",
    "DEFAULT_SETTINGS",
    "SearchSettings",
    "check_budget",
    "evaluate",
    "ismcts_move",
    "make_evaluator",
]

# Iterations when the caller gives no budget: 0.07-0.2 s a decision on one core
# of the project's machines (the bench prints it), far below the bots' second.
# Against the greedy bot, playing strength hardly grows beyond ~60 playouts.
DEFAULT_PLAYOUTS = 500


@dataclass(frozen=True)
class SearchSettings:
    """The search's constants.

    ``exploration``: the UCB1 constant. ``rollout_plies``: the longest
    rollout before the evaluation takes over (longer ones did not play better
    against the greedy bot for their cost). ``tie_reward``: every seat's reward
    for a tie. ``holding_penalty``: a seat still holding cards at the end of a
    rollout gets at most ``1 - holding_penalty``, so that, safe or not, it
    still wants to go out (and a table of these bots ends its hands).

    The evaluation's weights are log-odds of losing the hand, fitted by
    maximum likelihood (conditional logit) on 40 000 positions of greedy hands
    with default rules against their losers: per card of each rank class (the
    six ranks of the 24-card deck, 9 to A; a 52-card deck is squeezed into six
    classes), for the seat to move, per nine or ten below the top, and, with
    two seats left, per nine, ten and card. Nines lose hands; high cards
    hardly matter.
    """

    exploration: float = 0.7
    rollout_plies: int = 8
    tie_reward: float = 0.75
    holding_penalty: float = 0.05
    rank_class_weights: tuple[float, float, float, float, float, float] = (
        1.073, 0.288, -0.036, -0.091, -0.097, -0.213,
    )  # fmt: skip
    to_move_weight: float = -0.071
    stuck_low_weight: float = 0.093
    two_left_weights: tuple[float, float, float] = (1.595, 0.492, 0.156)
    rollout_style: Style = GREEDY_STYLE


DEFAULT_SETTINGS = SearchSettings()


class _Node:
    """One move in the tree: its statistics for the seat that made it.

    ``visits``: iterations through it; ``reward``: their total reward for
    ``mover``; ``avail``: iterations in which it was legal when its parent was
    reached (ISMCTS's availability count, which replaces the parent's visits
    in UCB1, since not every move exists in every determinisation).
    """

    __slots__ = ("avail", "children", "mover", "reward", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


def make_evaluator(
    rules: Rules, settings: SearchSettings = DEFAULT_SETTINGS
) -> Callable[[HandState], list[float]]:
    """The evaluation of module docstring step 4 for hands of ``rules``: state -> rewards.

    Tables depending on the rules are built once here, not at every leaf.
    """
    lowest = rules.lowest_rank
    # Ranks of a 52-card deck are squeezed into the six classes of the 24-card
    # one the weights were fitted on; a joker counts as an ace.
    scale = 6 / (13 - lowest)
    class_of = {
        code: min(5, int((rank - lowest) * scale))
        for code, rank in RANK_OF.items()
        if rank >= lowest and rules.contains(code)
    }
    low_rank_of = {code: RANK_OF[code] for code, klass in class_of.items() if klass <= 1}
    class_weights = settings.rank_class_weights
    to_move_w = settings.to_move_weight
    stuck_w = settings.stuck_low_weight
    two_nines_w, two_tens_w, two_cards_w = settings.two_left_weights
    tie_reward = settings.tie_reward
    holding = 1.0 - settings.holding_penalty
    exp = math.exp

    def evaluate(state: HandState) -> list[float]:
        n = state.players
        outcome = state.outcome
        if outcome is not None:
            if outcome.loser is not None:
                rewards = [1.0] * n
                rewards[outcome.loser] = 0.0
                return rewards
            if outcome.reason == "final_play_tie":
                return [tie_reward] * n
            # A cut-off with no loser is scored by the cards, as a running hand.
        counts = state.hand_counts
        holders = [seat for seat in range(n) if counts[seat]]
        rewards = [1.0] * n
        if len(holders) < 2:
            return rewards
        top = state.top_rank
        top_rank = -1 if top is None else RANK_OF_LABEL[top]
        two_left = len(holders) == 2
        scores = []
        for seat in holders:
            classes = [0, 0, 0, 0, 0, 0]
            stuck_low = 0
            for code in state.hand(seat):
                classes[class_of[code]] += 1
                low = low_rank_of.get(code)
                if low is not None and low < top_rank:
                    stuck_low += 1
            for code in state.beton(seat):
                classes[class_of[code]] += 1
            score = stuck_w * stuck_low
            for weight, count in zip(class_weights, classes, strict=True):
                score += weight * count
            if seat == state.to_move:
                score += to_move_w
            if two_left:
                score += two_nines_w * classes[0] + two_tens_w * classes[1]
                score += two_cards_w * sum(classes)
            scores.append(score)
        high = max(scores)
        exps = [exp(x - high) for x in scores]
        total = sum(exps)
        for seat, e in zip(holders, exps, strict=True):
            rewards[seat] = (1.0 - e / total) * holding
        return rewards

    return evaluate


def evaluate(state: HandState, settings: SearchSettings = DEFAULT_SETTINGS) -> list[float]:
    """Each seat's reward in [0, 1] for ``state``, finished or not (module docstring, step 4)."""
    return make_evaluator(state.rules, settings)(state)


def _rollout(state: HandState, plies: int, style: Style) -> HandState:
    while state.outcome is None and plies > 0:
        state = state.apply(greedy_for_state(state, style))
        plies -= 1
    return state


def check_budget(*, playouts: int | None, budget_ms: int | None) -> None:
    """Raise ``ValueError`` unless each budget given is a positive int."""
    for name, value in (("playouts", playouts), ("budget_ms", budget_ms)):
        if value is not None and (type(value) is not int or value < 1):
            raise ValueError(f"{name} must be a positive whole number or None, not {value!r}")


def ismcts_move(
    view: dict[str, Any],
    rng: random.Random,
    *,
    playouts: int | None = None,
    budget_ms: int | None = None,
    settings: SearchSettings = DEFAULT_SETTINGS,
) -> Move:
    """The move the search chooses from ``view`` (one of its ``legal_moves``).

    Runs ``playouts`` iterations, or until ``budget_ms`` milliseconds have
    passed (at least one iteration), whichever comes first; with neither,
    :data:`DEFAULT_PLAYOUTS`. All randomness comes from ``rng``, so with a
    playout budget the move depends only on ``view`` and ``rng``'s state.
    """
    check_budget(playouts=playouts, budget_ms=budget_ms)
    legal = [move_from_json(m) for m in view["legal_moves"]]
    if not legal:
        raise ValueError("the view has no legal moves: it is not this seat's turn")
    spades_back = view["rules"]["spades_back"]
    choices = distinct_moves(legal, spades_back)
    if len(choices) == 1:
        return legal[0]
    if playouts is None and budget_ms is None:
        playouts = DEFAULT_PLAYOUTS
    # budget_ms is the only reason to read a clock here.
    deadline = None if budget_ms is None else time.perf_counter() + budget_ms / 1000
    knowledge = Knowledge.from_view(view)
    score_leaf = make_evaluator(knowledge.rules, settings)
    plies, style = settings.rollout_plies, settings.rollout_style
    root = _Node(view["seat"])
    c = settings.exploration
    log, sqrt = math.log, math.sqrt
    done = 0
    while playouts is None or done < playouts:
        if deadline is not None and done and time.perf_counter() >= deadline:
            break
        done += 1
        state = knowledge.determinise(rng)
        node = root
        path = []
        while state.outcome is None:
            options = distinct_moves(state.legal_moves(), spades_back)
            children = node.children
            untried = [k for k in options if k not in children]
            for k in options:
                child = children.get(k)
                if child is not None:
                    child.avail += 1
            if untried:
                k = untried[0] if len(untried) == 1 else rng.choice(untried)
                node = children[k] = _Node(state.to_move)
                state = state.apply(options[k])
                path.append(node)
                break
            best_k, best_score = 0, -1.0
            for k in options:
                child = children[k]
                score = child.reward / child.visits + c * sqrt(log(child.avail) / child.visits)
                if score > best_score:
                    best_k, best_score = k, score
            node = children[best_k]
            state = state.apply(options[best_k])
            path.append(node)
        rewards = score_leaf(_rollout(state, plies, style))
        for node in path:
            node.visits += 1
            node.reward += rewards[node.mover]
    children = root.children
    best = max(
        choices,
        key=lambda k: (children[k].visits, children[k].reward) if k in children else (-1, 0.0),
    )
    return choices[best]
