"""core.tasks sends tasks by name, so a renamed or removed task fails nowhere at import:
every name the project sends (``task_on_commit``, ``task_send``), beat schedules, or the
benchmarks count in the broker must be a task the Celery app registers.

The names are read from the source with ``ast`` (no module is imported to find them):
the first argument of each call, a string literal or a module-level constant (also one
imported from another module of the project)."""

from __future__ import annotations

import ast
import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from bench.processes import ROOT

SENDERS = {"task_on_commit", "task_send"}
# core.tasks itself passes its parameter on; every other call names a task.
PASS_THROUGH = ROOT / "core" / "tasks.py"
BENCH = ROOT / "bench"
NOT_PROJECT = {"tests", "var", "docs", "static", "templates", "locale", "requirements"}


def project_packages() -> list[Path]:
    """The site's apps and packages at the top of the repository, and the benchmarks."""
    return sorted(
        path
        for path in ROOT.iterdir()
        if path.is_dir()
        and not path.name.startswith(".")
        and path.name not in NOT_PROJECT
        and (path / "__init__.py").exists()
    )


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def python_files(packages: list[Path]) -> Iterator[Path]:
    for package in packages:
        yield from sorted(p for p in package.rglob("*.py") if "migrations" not in p.parts)


class Constants:
    """The module-level string constants of the project's modules, and the names each
    module imports from another, so that a constant is followed to where it is set."""

    def __init__(self, files: list[Path]) -> None:
        self.strings: dict[str, dict[str, str]] = {}
        self.imported: dict[str, dict[str, tuple[str, str]]] = {}
        for path in files:
            module = module_name(path)
            strings, imported = self.strings.setdefault(module, {}), {}
            self.imported[module] = imported
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    for alias in node.names:
                        imported[alias.asname or alias.name] = (node.module, alias.name)
                for target, value in _assigned(node):
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        strings[target] = value.value

    def resolve(self, module: str, name: str) -> str | None:
        for _ in range(10):  # a chain of re-exports, never a loop
            if name in self.strings.get(module, {}):
                return self.strings[module][name]
            if name not in self.imported.get(module, {}):
                return None
            module, name = self.imported[module][name]
        return None


def _assigned(node: ast.stmt) -> Iterator[tuple[str, ast.expr | None]]:
    """The names and values a module-level statement sets: ``NAME = value``, ``NAME: type
    = value`` and ``A, B = a, b``."""
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        yield node.target.id, node.value
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return
    target, value = node.targets[0], node.value
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        for name, item in zip(target.elts, value.elts, strict=False):
            if isinstance(name, ast.Name):
                yield name.id, item


def sent_task_names() -> dict[str, list[str]]:
    """Each task name passed to a sender, with where it is sent from. A first argument
    that is neither a literal nor a known constant is reported as unreadable."""
    files = list(python_files(project_packages()))
    constants = Constants(files)
    sent: dict[str, list[str]] = {}
    for path in files:
        if path == PASS_THROUGH:
            continue
        module = module_name(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or _called(node.func) not in SENDERS:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            first = node.args[0] if node.args else None
            name = None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                name = first.value
            elif isinstance(first, ast.Name):
                name = constants.resolve(module, first.id)
            sent.setdefault(name if name is not None else "<unreadable>", []).append(where)
    return sent


def _called(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def task_shaped_names(files: list[Path]) -> dict[str, list[str]]:
    """The strings of ``files`` shaped like a task's name ("<app>.<name>", the way every
    task of the site is named) that are not a module (a logger's or settings' name)."""
    apps = "|".join(re.escape(p.name) for p in project_packages() if p != BENCH)
    shaped = re.compile(rf"(?:{apps})\.[a-z_][a-z0-9_]*")
    found: dict[str, list[str]] = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if shaped.fullmatch(node.value) and importlib.util.find_spec(node.value) is None:
                found.setdefault(node.value, []).append(f"{path.name}:{node.lineno}")
    return found


@pytest.fixture(scope="module")
def registered() -> set[str]:
    from pan_site.celery import app

    app.loader.import_default_modules()  # the apps' tasks.py, as a worker finds them
    return set(app.tasks)


def test_every_task_the_project_sends_is_registered(registered):
    sent = sent_task_names()
    assert {"games.bot_act", "games.match_next_hand", "tournaments.advance"} <= set(sent)
    unknown = {name: where for name, where in sent.items() if name not in registered}
    assert unknown == {}


def test_every_task_beat_schedules_is_registered(registered):
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "games.sweep_hands" in scheduled
    assert scheduled - registered == set()


def test_the_benchmarks_name_only_registered_tasks(registered):
    named = task_shaped_names(list(python_files([BENCH])))
    unknown = {name: where for name, where in named.items() if name not in registered}
    assert unknown == {}


def test_the_scan_finds_a_task_name_and_passes_over_module_paths(tmp_path):
    source = tmp_path / "bench_example.py"
    source.write_text(
        'import logging\nTIMER_TASK = "games.hand_timeout"\n'
        'logging.getLogger("games.ratings")\nSETTINGS = "pan_site.settings"\n'
    )
    assert task_shaped_names([source]) == {"games.hand_timeout": ["bench_example.py:2"]}
