"""The puzzle finder on positions built through the engine (no database)."""

from __future__ import annotations

from games.bots import choose_move
from games.bots.analysis import MoveChance, move_chances
from games.bots.features import move_key
from games.engine import HandState, Rules, deal, move_from_json
from puzzles.finder import (
    THRESHOLD,
    TOLERANCE,
    Candidate,
    candidate_of,
    find_puzzle,
    position_hash,
    recheck,
    themes_of,
)

PICKUP = {"type": "pickup", "count": 2}


def _view(hands: list[list[str]], pile: list[str], *, rules: Rules | None = None) -> dict:
    state = HandState.from_position(rules=rules or Rules(), hands=hands, pile=pile, to_move=0)
    return state.view_for(0)


def _go_out_or_lose() -> dict:
    # Seat 0 goes out with the king (then seat 1 empties his hand with the ace: a tie).
    # If he picks up, seat 1 goes out with the ace and seat 0 is left with the letter.
    return _view([["KH"], ["AS"]], ["9H", "10S", "QD"])


def test_a_move_that_empties_the_hand_in_time_is_the_solution_and_the_pick_up_is_wrong() -> None:
    view = _go_out_or_lose()
    chances = move_chances(view, seed="t", playouts=20)
    candidate = candidate_of([(5, view, PICKUP, chances)], 20)
    assert candidate is not None
    assert candidate.solutions == ({"type": "play", "cards": ["KH"]},)
    assert candidate.wrong.move == PICKUP
    assert candidate.spread >= THRESHOLD
    assert set(candidate.themes) >= {"go_out", "play_on"}


def test_the_recheck_keeps_a_true_puzzle_and_drops_one_whose_best_move_is_not() -> None:
    view = _go_out_or_lose()
    chances = move_chances(view, seed="t", playouts=20)
    candidate = candidate_of([(5, view, PICKUP, chances)], 20)
    assert candidate is not None
    kept = recheck(candidate, seed="again")
    assert kept is not None and kept.playouts == 80
    assert kept.solutions == candidate.solutions

    king = {"type": "play", "cards": ["KH"]}
    upside_down = Candidate(
        5, view, (PICKUP,), MoveChance(king, 1.0), MoveChance(PICKUP, 0.0), (), 20
    )
    assert recheck(upside_down, seed="again") is None


def test_every_move_within_the_tolerance_of_the_best_is_a_solution() -> None:
    view = _view([["10S", "JD", "AC", "9S"], ["KH", "KS"]], ["9H", "10D"])
    keys = {move_key(move_from_json(m), False): m for m in view["legal_moves"]}
    chances = {}
    losses = {"10S": 0.30, "JD": 0.30 + TOLERANCE, "AC": 0.30 + TOLERANCE + 0.01}
    for key, move in keys.items():
        top = move["cards"][0] if move["type"] == "play" else None
        chances[key] = MoveChance(move, losses.get(top, 0.9))
    candidate = candidate_of([(3, view, keys[next(iter(keys))], chances)], 10)
    assert candidate is not None
    solved = sorted(m["cards"][0] for m in candidate.solutions)
    assert solved == ["10S", "JD"]


def test_no_decision_makes_a_puzzle_when_every_move_is_about_as_good() -> None:
    view = _view([["10S", "JD"], ["KH", "KS"]], ["9H", "10D"])
    chances = {
        move_key(move_from_json(move), False): MoveChance(move, 0.5 + i * (THRESHOLD - 0.01) / 3)
        for i, move in enumerate(view["legal_moves"])
    }
    assert len(chances) == 3
    assert candidate_of([(1, view, view["legal_moves"][0], chances)], 10) is None


def test_the_themes_name_what_the_solution_does() -> None:
    view = _view([["9S", "JD", "AC", "AS"], ["KH", "KS"]], ["9H", "10D"])
    jack = {"type": "play", "cards": ["JD"]}
    nine_wrong = {"type": "play", "cards": ["9S"]}
    # (9S cannot go on 10D: the wrong move of a theme is any move; themes are rules)
    assert "save_high_cards" in themes_of(view, [jack], {"type": "play", "cards": ["AC"]})
    assert "play_low" in themes_of(view, [jack], {"type": "play", "cards": ["AC"]})
    assert "keep_nines" in themes_of(view, [jack], nine_wrong)
    assert themes_of(view, [PICKUP], jack) == ("pick_up",)
    assert "play_on" in themes_of(view, [jack], PICKUP)

    spades = _view([["KS", "KD"], ["AH", "AD"]], ["9H", "QD"], rules=Rules(spades_back=True))
    assert "spade_back" in themes_of(spades, [{"type": "play", "cards": ["KS"]}], PICKUP)


def test_a_position_is_the_same_puzzle_however_the_hand_came_there() -> None:
    view = _go_out_or_lose()
    other = {**view, "history": [], "hand": list(reversed(view["hand"]))}
    assert position_hash(view) == position_hash(other)
    assert position_hash(view) != position_hash(_view([["AH"], ["AD"]], ["9H", "10S", "QD"]))


def test_a_finished_bot_hand_gives_a_rechecked_puzzle_of_legal_solutions() -> None:
    start = deal(Rules(), 4, 0, "try:0")
    state, moves = start, []
    while state.outcome is None:
        move = choose_move("greedy", state.view_for(state.to_move), seed=f"0:{state.action_count}")
        moves.append(move)
        state = state.apply(move_from_json(move))
    finding = find_puzzle(start, moves, state.outcome.loser, seed="try:0")
    assert finding.candidate is not None and finding.kept is not None
    kept = finding.kept
    assert kept.solutions and all(m in kept.view["legal_moves"] for m in kept.solutions)
    assert kept.wrong.move not in kept.solutions
    assert kept.wrong.loss - kept.best.loss >= THRESHOLD
