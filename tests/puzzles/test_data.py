"""The puzzles kept in the repository, their loading, and make_puzzles."""

from __future__ import annotations

import json
import random
import re
from io import StringIO

import pytest
from django.core.management import call_command

from games.bots.features import move_key
from games.bots.knowledge import Knowledge
from games.engine import move_from_json
from puzzles.finder import THEMES, THRESHOLD, position_hash
from puzzles.models import Puzzle
from puzzles.services import DATA_FILE, puzzles_load

RECORDS = json.loads(DATA_FILE.read_text())


def test_the_kept_set_holds_enough_distinct_puzzles() -> None:
    assert len(RECORDS) >= 20
    hashes = [r["content_hash"] for r in RECORDS]
    assert len(set(hashes)) == len(hashes)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["content_hash"][:8])
def test_every_kept_position_is_legal_and_so_is_every_solution(record: dict) -> None:
    view = record["position"]
    assert position_hash(view) == record["content_hash"]
    # A full position consistent with the solver's view: the engine checks it can occur.
    state = Knowledge.from_view(view).determinise(random.Random(1))
    legal = list(view["legal_moves"])
    assert [move_from_json(m) for m in legal] == list(state.legal_moves())
    assert record["solutions"]
    for move in record["solutions"]:
        state.apply(move_from_json(move))  # raises IllegalMove if it is not legal
        assert move in legal
    spades_back = view["rules"]["spades_back"]
    solution_keys = {move_key(move_from_json(m), spades_back) for m in record["solutions"]}
    assert move_key(move_from_json(record["wrong"]["move"]), spades_back) not in solution_keys
    assert record["wrong"]["loss"] - record["best_loss"] >= THRESHOLD
    # One clear answer: the solutions are one move in effect, every other move is at
    # least the threshold behind it.
    assert len(solution_keys) == 1
    for chance in record["chances"]:
        if move_key(move_from_json(chance["move"]), spades_back) not in solution_keys:
            assert chance["loss"] - record["best_loss"] >= THRESHOLD
    assert record["themes"] and set(record["themes"]) <= set(THEMES)


@pytest.mark.django_db
def test_the_loader_loads_the_file_once() -> None:
    assert puzzles_load() == len(RECORDS)
    assert puzzles_load() == 0
    assert Puzzle.objects.count() == len(RECORDS)


@pytest.mark.django_db
def test_the_demo_seed_loads_the_puzzles_even_with_debug_off(settings, tmp_path) -> None:
    settings.DEBUG, settings.VAR_DIR = False, tmp_path
    out = StringIO()
    call_command("seed_demo", stdout=out)
    assert f"{len(RECORDS)} puzzles loaded" in out.getvalue()
    assert Puzzle.objects.count() == len(RECORDS)


@pytest.mark.django_db
def test_make_puzzles_keeps_what_the_finder_keeps(tmp_path) -> None:
    out = StringIO()
    call_command("make_puzzles", 1, "--seed", "make-puzzles", stdout=out)
    assert re.search(r"^hand 0, seat \d: a puzzle,", out.getvalue(), re.MULTILINE)
    assert "1 puzzles made from 1 hands" in out.getvalue()
    assert Puzzle.objects.count() == 1
    path = tmp_path / "kept.json"
    call_command("make_puzzles", 1, "--seed", "make-puzzles", "--write", str(path), stdout=out)
    assert {r["content_hash"] for r in json.loads(path.read_text())} == set(
        Puzzle.objects.values_list("content_hash", flat=True)
    )


@pytest.mark.django_db
def test_make_puzzles_can_analyse_every_seat_of_a_hand() -> None:
    out = StringIO()
    call_command("make_puzzles", 1, "--seed", "make-puzzles", "--every-seat", stdout=out)
    seats = re.findall(r"^hand 0, seat (\d):", out.getvalue(), re.MULTILINE)
    assert sorted(seats) == ["0", "1", "2", "3"]
