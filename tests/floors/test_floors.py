"""The floors point only down: engine, core <- accounts <- live <- games <- tournaments <-
moderation <- fairplay <- notifications <- pan_site <- deploy <- bench. ``pan_bot`` (the
Bot API's reference client, run on a player's machine) stands on ``games.bots`` alone.
``tests`` stand above every floor and may import any, ``bench`` (its process helpers,
``bench.processes``; its SMTP sink and push service) included; no floor imports
``tests``. Read from the source, so an import hidden in a function counts too."""

from __future__ import annotations

import ast

from tests.floors.graph import (
    PACKAGES,
    _runtime_imports,
    find_cycle,
    floor,
    floor_graph,
    import_graph,
)

# Each floor may import only the floors below it (a lower number).
RANK = {
    "engine": 0,
    "core": 0,
    "accounts": 1,
    # The live room's runtime: every app's sockets stand on it; it knows no app's tables.
    "live": 2,
    "games": 3,
    "tournaments": 4,
    "pairing": 4,
    "learn": 4,
    "api": 4,
    "puzzles": 4,
    "moderation": 5,
    "social": 5,
    # Fair play acts as a moderator (moderation's audit log, permission checks, bans and
    # user admin) over games' hands and ratings and tournaments' results; the floors below
    # read its mark from accounts.User.fairplay_marked_at and never import it.
    "fairplay": 6,
    # Above every floor whose events it turns into notices (connected in its ready()); its
    # notices of a mark lead to fair play's appeal page.
    "notifications": 7,
    "pan_site": 8,
    # The production shape (nginx, run_prod) over the site; the benchmarks start the
    # site in that shape (deploy.nginx), and deploy knows nothing of them.
    "deploy": 9,
    "bench": 10,
    # The Bot API's reference client: the site's bots (games.bots) over HTTP, nothing else.
    "pan_bot": 4,
}


def test_no_module_imports_itself_round_a_circle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_floors_form_no_circle() -> None:
    floors = floor_graph(import_graph())
    cycle = find_cycle({here: set(there) for here, there in floors.items()})
    assert cycle is None, "floors in a circle: " + " -> ".join(cycle or [])


def test_every_floor_imports_only_the_floors_below_it() -> None:
    upward = [
        why
        for here, targets in floor_graph(import_graph()).items()
        for there, imports in targets.items()
        if RANK[there] >= RANK[here]
        for why in imports
    ]
    assert upward == []


def test_every_package_of_the_site_has_a_floor() -> None:
    assert set(PACKAGES) | {"engine"} == set(RANK)


def test_no_floor_imports_the_tests() -> None:
    """The tests stand on the site (and on bench's helpers); nothing stands on them."""
    graph = import_graph(also=["tests"])
    found = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if target == "tests" or target.startswith("tests.")
    )
    assert found == []


def test_pan_bot_stands_on_the_bots_alone() -> None:
    """The reference client runs on a player's machine with the repository: of the site
    it imports the bots (pure, on the engine) and nothing that needs Django."""
    graph = import_graph()
    outside = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if floor(module) == "pan_bot"
        for target in targets
        if floor(target) != "pan_bot" and not target.startswith("games.bots")
    )
    assert outside == []
    bots = {m for m in graph if m.startswith("games.bots")}
    below = {t for m in bots for t in graph[m] if not t.startswith("games.bots")}
    assert all(t == "games" or floor(t) == "engine" for t in below), sorted(below)


def test_the_engine_and_core_import_no_other_floor() -> None:
    floors = floor_graph(import_graph())
    assert floors.get("engine", {}) == {}
    assert floors.get("core", {}) == {}


def test_the_reader_sees_imports_in_functions_and_skips_type_checking_ones() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from games.models import Hand\n"
        "def later():\n    from tournaments import services\n"
    )
    names = [node.module for node in _runtime_imports(ast.parse(source)) if hasattr(node, "module")]
    assert names == ["typing", "tournaments"]


def test_a_circle_is_found_and_a_ladder_is_not() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
