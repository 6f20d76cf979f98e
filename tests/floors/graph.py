"""The site's import graph, read from the source (every import, a function's too; not
those under ``if TYPE_CHECKING:``, which never run)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "core",
    "accounts",
    "live",
    "games",
    "tournaments",
    "pairing",
    "learn",
    "puzzles",
    "api",
    "moderation",
    "fairplay",
    "social",
    "notifications",
    "pan_site",
    "deploy",
    "bench",
    "pan_bot",
)


def modules() -> dict[str, Path]:
    """Every module of the site's packages by dotted name (migrations left out: they
    follow Django's own graph)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from (n for child in node.orelse for n in _runtime_imports_of(child))
            continue
        yield from _runtime_imports_of(node)


def _runtime_imports_of(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    else:
        yield from _runtime_imports(node)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(node: ast.Import | ast.ImportFrom, module: str, known: Iterable[str]) -> set[str]:
    known = set(known)
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:  # relative: resolve against the importing package
            package = module.split(".")[: -node.level] if node.level else []
            base = ".".join([*package, base] if base else package)
        names = [f"{base}.{alias.name}" for alias in node.names] + [base]
    targets = set()
    for name in names:
        while name and name not in known:  # "games.events.table_group" -> "games.events"
            name = name.rpartition(".")[0]
        if name:
            targets.add(name)
    return targets


def import_graph(*, also: Iterable[str] = ()) -> dict[str, set[str]]:
    """module -> the site's modules it imports when it runs (and those of the top-level
    packages ``also``, e.g. ``tests``, as targets)."""
    found = modules()
    known = set(found) | set(also)
    graph: dict[str, set[str]] = {}
    for module, path in found.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        edges = set()
        for node in _runtime_imports(tree):
            edges |= _targets(node, module, known)
        edges.discard(module)
        graph[module] = edges
    return graph


def floor(module: str) -> str:
    """The floor a module stands on: the engine is a floor of its own under games."""
    if module == "games.engine" or module.startswith("games.engine."):
        return "engine"
    return module.split(".")[0]


def floor_graph(graph: dict[str, set[str]]) -> dict[str, dict[str, list[str]]]:
    """floor -> floor it imports -> the imports that make the edge (``a -> b``)."""
    floors: dict[str, dict[str, list[str]]] = {}
    for module, targets in graph.items():
        for target in targets:
            here, there = floor(module), floor(target)
            if here != there:
                floors.setdefault(here, {}).setdefault(there, []).append(f"{module} -> {target}")
    return floors


def find_cycle(edges: dict[str, Iterable[str]]) -> list[str] | None:
    """One cycle of the directed graph ``edges`` (its nodes, the first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None
