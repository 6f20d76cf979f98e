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


def _chances(view: dict, losses: dict[str, float], *, others: float = 0.9) -> dict:
    """Chances by move key: a play by its top card's loss in ``losses``, else ``others``."""
    chances = {}
    for move in view["legal_moves"]:
        top = move["cards"][-1] if move["type"] == "play" else None
        chances[move_key(move_from_json(move), False)] = MoveChance(move, losses.get(top, others))
    return chances


def _move(view: dict, top: str) -> dict:
    return next(m for m in view["legal_moves"] if m["type"] == "play" and m["cards"][-1] == top)


def test_the_solutions_are_the_answer_and_every_legal_move_the_same_in_effect() -> None:
    view = _view([["10S", "10C", "JD", "AC", "9S"], ["KH", "KS"]], ["9H", "10D"])
    chances = _chances(view, {"10S": 0.30, "10C": 0.30})
    candidate = candidate_of([(3, view, _move(view, "AC"), chances)], 10)
    assert candidate is not None
    assert sorted(m["cards"][0] for m in candidate.solutions) == ["10C", "10S"]
    assert candidate.wrong.move == _move(view, "AC") and candidate.made


def test_no_puzzle_without_one_clear_answer() -> None:
    view = _view([["10S", "JD", "AC", "9S"], ["KH", "KS"]], ["9H", "10D"])
    made = _move(view, "AC")
    # Two answers as good as each other to the estimate: no single answer to find.
    two = _chances(view, {"10S": 0.30, "JD": 0.30 + TOLERANCE})
    assert candidate_of([(3, view, made, two)], 10) is None
    # A move not quite as good, yet less than the threshold behind: no clear answer.
    close = _chances(view, {"10S": 0.30, "JD": 0.30 + THRESHOLD - 0.01})
    assert candidate_of([(3, view, made, close)], 10) is None
    clear = _chances(view, {"10S": 0.30, "JD": 0.30 + THRESHOLD})
    assert candidate_of([(3, view, made, clear)], 10) is not None


def test_the_threshold_leaves_no_move_a_quarter_of_a_letter_behind_the_answer() -> None:
    view = _view([["10S", "JD"], ["KH", "KS"]], ["9H", "10D"])
    chances = _chances(view, {"10S": 0.30, "JD": 0.55}, others=1.0)
    assert THRESHOLD > 0.25
    assert candidate_of([(1, view, _move(view, "JD"), chances)], 10) is None


def test_the_puzzle_is_cut_where_the_move_made_was_the_mistake() -> None:
    """A decision where the player found the answer, though another move would have cost
    him the letter, yields to a later one where his own move cost him less but did."""
    played_well = _view([["10S", "JD"], ["KH", "KS"]], ["9H", "10D"])
    well = _chances(played_well, {"10S": 0.0}, others=1.0)
    mistake = _view([["JS", "AD"], ["KH", "KS"]], ["9H", "10D", "10C"])
    costly = _chances(mistake, {"JS": 0.2}, others=0.7)
    decisions = [
        (1, played_well, _move(played_well, "10S"), well),
        (5, mistake, _move(mistake, "AD"), costly),
    ]
    candidate = candidate_of(decisions, 10)
    assert candidate is not None and candidate.step == 5
    assert candidate.made and candidate.wrong.move == _move(mistake, "AD")
    assert candidate.spread == 0.5
    # Where the player made no mistake the costliest wrong move is taken, as before.
    fallback = candidate_of([decisions[0]], 10)
    assert fallback is not None and not fallback.made and fallback.spread == 1.0


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
    start = deal(Rules(), 4, 0, "try:1")
    state, moves = start, []
    while state.outcome is None:
        move = choose_move("greedy", state.view_for(state.to_move), seed=f"1:{state.action_count}")
        moves.append(move)
        state = state.apply(move_from_json(move))
    finding = find_puzzle(start, moves, state.outcome.loser, seed="try:1")
    assert finding.candidate is not None and finding.kept is not None
    kept = finding.kept
    assert kept.solutions and all(m in kept.view["legal_moves"] for m in kept.solutions)
    assert kept.wrong.move not in kept.solutions
    assert kept.wrong.loss - kept.best.loss >= THRESHOLD
    # One clear answer: every move but the solutions' at least the threshold behind.
    answer = move_key(move_from_json(kept.best.move), False)
    assert {move_key(move_from_json(m), False) for m in kept.solutions} == {answer}
    assert all(
        c.loss - kept.best.loss >= THRESHOLD
        for c in kept.chances
        if move_key(move_from_json(c.move), False) != answer
    )
