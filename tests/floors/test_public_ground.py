"""The project uses its libraries through their public APIs (DESIGN.md, "Public ground").

The code outside ``tests/`` is read as it is (its syntax tree, and its classes once
imported) for four kinds of reach into a library's private parts:

- an import of a ``_``-name, or from a ``_``-module or an ``internal`` package (allauth
  keeps its private flows there), of a library;
- a ``_``-attribute read, written or asked for (``getattr(x, "_y")``) that the project
  does not define itself: it can only be a library's;
- a call of a base class's ``_``-method (``super()._y()``) that the project does not
  define;
- a class of the project that overrides a ``_``-method or ``_``-attribute of a
  library's class it derives from.

Django's documented ``_meta`` and ``_state`` are public. What the project still does
is listed in ``KNOWN``, each with the work that removes it; the list only shrinks: a
new reach fails the test, and so does an entry that no longer happens.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = (
    "allauth",
    "asgiref",
    "celery",
    "channels",
    "channels_redis",
    "daphne",
    "django",
    "kombu",
    "psycopg",
    "redis",
)
DOCUMENTED = {"_meta", "_state"}
BY_PYTHON = {"_abc_impl"}  # what Python's ABCMeta sets on every class it makes
SKIPPED = {".venv", "tests", "var", "node_modules", "migrations", "static", "locale"}

# (file, what) of each reach the project still makes, and the work that removes it.
KNOWN: dict[tuple[str, str], str] = {}


def project_files() -> Iterator[Path]:
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if not SKIPPED.intersection(relative.parts):
            yield path


def is_private(name: str) -> bool:
    """A ``_``-name; neither a dunder nor an enum's ``_sunder_`` (the enum protocol's)."""
    return (
        name.startswith("_")
        and not name.startswith("__")
        and not (name.endswith("_") and len(name) > 2)
        and name not in DOCUMENTED
    )


def defined_names(trees: dict[Path, ast.Module]) -> set[str]:
    """Every ``_``-name the project defines: functions, classes, names and attributes it
    assigns, arguments, slots it declares and attributes it sets by name."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)  # its own objects' attributes, not another's
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
            ):
                names.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "_setattr", "object.__setattr__")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
            ):
                names.add(str(node.args[1].value))
    return {name for name in names if isinstance(name, str) and is_private(name)}


def library_module(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] in LIBRARIES


def private_module(module: str) -> bool:
    return any(is_private(part) or part == "internal" for part in module.split("."))


def reaches_in(tree: ast.Module, own: set[str]) -> Iterator[str]:
    """What one file does with a library's private parts, as ``KNOWN`` words it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and library_module(node.module):
            module = node.module or ""
            if private_module(module):
                yield f"import from {module}"
            for alias in node.names:
                if is_private(alias.name):
                    yield f"import {module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if library_module(alias.name) and private_module(alias.name):
                    yield f"import {alias.name}"
        elif isinstance(node, ast.Attribute) and is_private(node.attr) and node.attr not in own:
            value = node.value
            if isinstance(value, ast.Call) and ast.unparse(value.func) == "super":
                yield f"super().{node.attr}"
            else:
                yield f".{node.attr}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
            and node.args[1].value not in own
        ):
            yield f'{node.func.id}(.., "{node.args[1].value}")'


def overrides(path: Path, tree: ast.Module) -> Iterator[str]:
    """What the classes of a module that derive from a library's class do with its
    ``_``-names: override them, call them through ``super()`` or use them on ``self``."""
    module_name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    module = importlib.import_module(module_name)
    sources = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for _name, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ != module_name:
            continue
        library_bases = [
            base for base in cls.__mro__[1:] if library_module(getattr(base, "__module__", ""))
        ]
        if not library_bases:
            continue
        for attribute in vars(cls):
            if not is_private(attribute) or attribute in BY_PYTHON:
                continue
            for base in library_bases:
                if attribute in vars(base):
                    yield f"class {cls.__name__} overrides {base.__name__}.{attribute}"
                    break
        node = sources.get(cls.__name__)
        if node is None:
            continue
        for used in sorted(_used_on_self(node)):
            base = next((b for b in library_bases if _library_uses(b, used)), None)
            if base is not None:
                yield f"class {cls.__name__} uses {base.__name__}.{used}"


def _used_on_self(node: ast.ClassDef) -> set[str]:
    """The ``_``-names a class reads or writes on ``self`` or through ``super()``."""
    used = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and is_private(child.attr):
            value = child.value
            on_self = isinstance(value, ast.Name) and value.id in ("self", "cls")
            on_super = isinstance(value, ast.Call) and ast.unparse(value.func) == "super"
            if on_self or on_super:
                used.add(child.attr)
    return used


_LIBRARY_SOURCES: dict[type, str] = {}


def _library_uses(base: type, name: str) -> bool:
    """Whether the library's class itself has or sets ``name``."""
    if name in vars(base):
        return True
    if base not in _LIBRARY_SOURCES:
        try:
            _LIBRARY_SOURCES[base] = inspect.getsource(base)
        except (OSError, TypeError):
            _LIBRARY_SOURCES[base] = ""
    return f"self.{name} " in _LIBRARY_SOURCES[base] or f"self.{name}=" in _LIBRARY_SOURCES[
        base
    ].replace(" =", "=")


def all_reaches() -> set[tuple[str, str]]:
    trees = {path: ast.parse(path.read_text(), str(path)) for path in project_files()}
    own = defined_names(trees)
    found: set[tuple[str, str]] = set()
    for path, tree in trees.items():
        relative = str(path.relative_to(ROOT))
        found.update((relative, what) for what in reaches_in(tree, own))
        if relative.startswith(("bench/", "manage.py")):
            continue  # scripts: importing them runs them
        found.update((relative, what) for what in overrides(path, tree))
    return found


def test_the_reader_finds_each_kind_of_reach() -> None:
    tree = ast.parse(
        "from channels_redis.utils import _wrap_close\n"
        "from django.utils._os import safe_join\n"
        "class A(Base):\n"
        "    def f(self, other):\n"
        "        super()._receive_message(1)\n"
        "        other._perm_cache\n"
        "        getattr(other, '_wrapped', None)\n"
        "        other._mine\n"
        "        other._meta\n"
    )
    assert set(reaches_in(tree, own={"_mine"})) == {
        "import channels_redis.utils._wrap_close",
        "import from django.utils._os",
        "super()._receive_message",
        "._perm_cache",
        'getattr(.., "_wrapped")',
    }


def test_no_new_reach_into_a_librarys_private_parts_and_none_listed_that_is_gone() -> None:
    found = all_reaches()
    new = sorted(found - KNOWN.keys())
    gone = sorted(KNOWN.keys() - found)
    assert not new, "private parts of a library used (use its public API):\n" + "\n".join(
        f"  {path}: {what}" for path, what in new
    )
    assert not gone, "no longer done: remove from KNOWN:\n" + "\n".join(
        f"  {path}: {what}" for path, what in gone
    )
