"""Every write to a hand's row (``games_hand``) goes through the move pipeline's executor
(``games/services/moves.py``, with the statements of ``games/rows.py``): a move, a
timeout, a moderator's stop and a tournament's pause cannot interleave badly because
each is a compare-and-set on the hand's version with the same on-commit publish.

The code outside ``tests/``, ``bench/`` and the migrations is read as it is (its syntax
tree) for anything that writes the row another way:

- ``<hand>.save(...)``, ``<hand>.delete()``, ``<hand>.refresh_from_db`` aside, on any
  name or attribute whose last part says ``hand``;
- a write through a manager or queryset of hands: ``Hand.objects…`` or ``….hands…``
  ending in ``update``, ``create``, ``bulk_create``, ``bulk_update``, ``delete``,
  ``get_or_create`` or ``update_or_create``;
- SQL text that updates, inserts into or deletes from ``games_hand``;
- a call of the executor's statements and their drivers (``move_if_unchanged``,
  ``move_if_unchanged_async``, ``run``, ``run_async``) from ``games.rows``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".venv", "tests", "bench", "var", "node_modules", "migrations", "static", "locale"}
EXECUTOR = {Path("games/services/moves.py"), Path("games/rows.py")}
QUERYSET_WRITES = {
    "update",
    "create",
    "bulk_create",
    "bulk_update",
    "delete",
    "get_or_create",
    "update_or_create",
}
INSTANCE_WRITES = {"save", "delete", "save_base"}
STATEMENTS = {"move_if_unchanged", "move_if_unchanged_async", "run", "run_async"}
SQL_WRITE = re.compile(r"\b(update|insert\s+into|delete\s+from)\s+\"?games_hand\b", re.I)


def project_files() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if not SKIPPED.intersection(relative.parts) and relative not in EXECUTOR:
            yield path


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _chain(node: ast.expr) -> list[str]:
    """The names along ``a.b(...).c.d``: ["a", "b", "c", "d"]."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            names.append(node.id)
            return names[::-1]
        else:
            return names[::-1]


def hand_writes(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) of each write to a hand's row in ``source`` that the executor does
    not make."""
    for node in ast.walk(ast.parse(source)):
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and SQL_WRITE.search(node.value):
            yield node.lineno, "SQL writing games_hand"
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method, receiver = node.func.attr, node.func.value
        if method in INSTANCE_WRITES and "hand" in _last_name(receiver).lower():
            yield node.lineno, f"{_last_name(receiver)}.{method}()"
        chain = _chain(receiver)
        if method in QUERYSET_WRITES and (chain[:2] == ["Hand", "objects"] or "hands" in chain):
            yield node.lineno, f"{'.'.join(chain)}.{method}()"
        if method in STATEMENTS and chain[-1:] == ["rows"]:
            yield node.lineno, f"rows.{method}()"


def test_the_finder_sees_each_kind_of_write():
    """The test below is only as good as this finder: each way to write a hand is seen,
    and a read or another model's write is not."""
    source = """
hand.save(update_fields=["deadline"])
self.locked_hand.delete()
Hand.objects.filter(pk=1).update(deadline=None)
match.hands.filter(number=2).update(version=F("version") + 1)
Hand.objects.bulk_update(hands, ["deadline"])
cursor.execute('UPDATE "games_hand" SET deadline = NULL')
rows.run(write)
Hand.objects.filter(pk=1).first()
match.save(update_fields=["state"])
seat.save()
"""
    assert sorted(line for line, _what in hand_writes(source)) == [2, 3, 4, 5, 6, 7, 8]


def test_every_write_to_a_hand_goes_through_the_executor():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in project_files()
        for line, what in hand_writes(path.read_text())
    ]
    assert not found, "write these through games.services.moves:\n" + "\n".join(found)


def test_the_statements_watched_are_those_the_executor_has():
    """A renamed statement would leave the finder watching a name nobody calls."""
    from games import rows

    assert {name for name in STATEMENTS if callable(getattr(rows, name, None))} == STATEMENTS
