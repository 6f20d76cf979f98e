"""The project uses its libraries through their public APIs (DESIGN.md, "Public ground").

The code outside ``tests/`` is read as it is (its syntax tree, and its classes once
imported) for four kinds of reach into a library's private parts:

- an import of a ``_``-name, or from a ``_``-module or an ``internal`` package (allauth
  keeps its private flows there), of a library;
- a ``_``-attribute read, written or asked for (``getattr(x, "_y")``) on an object the
  file does not show to be the project's own: ``self`` or ``cls`` in the project's
  class, a module, class or function of the project (a name the file imports from the
  project or defines at its top, and what hangs from it), an instance of the
  project's class made in the same function, a name or an attribute of ``self``
  annotated with the project's class. A ``_``-name the project defines somewhere is
  no evidence: a library's object may spell one alike;
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
import functools
import importlib
import inspect
import types
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

# (file, what) of the project's own ``_``-names taken from its own objects where the
# reader cannot show whose the object is, and why it is the project's. Checked as KNOWN.
OWN_UNPROVEN: dict[tuple[str, str], str] = {
    ("games/engine/hand.py", what): (
        "the end of a hand by a tie: the plays of the engine's own move tables "
        "(``self._t.plays``), in a generator"
    )
    for what in ("._ids", "._mask", "._rank")
}


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


def library_bindings(tree: ast.Module) -> dict[str, str]:
    """The names a file binds to a library's things by importing them, with the dotted
    path of what each is (``import redis.asyncio as aioredis``: aioredis ->
    redis.asyncio; ``from channels.layers import channel_layers``: channel_layers ->
    channels.layers.channel_layers)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if library_module(alias.name):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        bound[top] = top
        elif isinstance(node, ast.ImportFrom) and not node.level and library_module(node.module):
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


@functools.cache
def _library_object(path: str) -> object | None:
    """The library's object at a dotted path (a module, a class, ...), or None."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                found = getattr(found, name)
        except AttributeError:
            return None
        return found
    return None


def is_library_class(path: str | None) -> bool:
    return path is not None and inspect.isclass(_library_object(path))


class _LibraryObjects:
    """Which expressions of one file stand for a library's objects: a name it imported
    from a library (and what hangs from it), an instance of a library's class made in
    the same function (``x = Redis()``, ``Redis()``), and a name or an attribute of
    ``self`` annotated with a library's class (``layer: BaseChannelLayer``)."""

    def __init__(self, tree: ast.Module) -> None:
        self.bound = library_bindings(tree)

    def dotted(self, node: ast.expr) -> str | None:
        """The library path an imported name, or an attribute chain from one, names."""
        if isinstance(node, ast.Name):
            return self.bound.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def annotated(self, annotation: ast.expr | None) -> bool:
        """Whether an annotation names a library's class (alone, or in ``X | None``,
        ``Optional[X]``, ``Union[...]``, or a string of one of them)."""
        if annotation is None:
            return False
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            try:
                annotation = ast.parse(annotation.value, mode="eval").body
            except SyntaxError:
                return False
        if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            return self.annotated(annotation.left) or self.annotated(annotation.right)
        if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in (
            "Optional",
            "Union",
            "typing.Optional",
            "typing.Union",
        ):
            inner = annotation.slice
            elements = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            return any(self.annotated(element) for element in elements)
        return self.is_class(annotation)

    def is_class(self, node: ast.expr) -> bool:
        """Whether ``node`` (no union, no string) names a library's class."""
        return is_library_class(self.dotted(node))

    def made(self, value: ast.expr | None) -> bool:
        """Whether ``value`` makes an instance of a library's class."""
        return isinstance(value, ast.Call) and is_library_class(self.dotted(value.func))

    def scope_names(self, function: ast.AST) -> set[str]:
        """The names of a function (or the module) that hold a library's objects."""
        names: set[str] = set()
        arguments = getattr(function, "args", None)
        if isinstance(arguments, ast.arguments):
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
            names.update(a.arg for a in every if self.annotated(a.annotation))
        for node in _own_nodes(function):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if self.annotated(node.annotation) or self.made(node.value):
                    names.add(node.target.id)
            elif isinstance(node, ast.Assign) and self.made(node.value):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        return names

    def self_attributes(self, cls: ast.ClassDef) -> set[str]:
        """The attributes of a class's objects annotated with, or made as, a library's
        class (in the class body, or on ``self`` in its methods)."""
        names: set[str] = set()
        for node in ast.walk(cls):
            if isinstance(node, ast.AnnAssign):
                target = node.target
                library = self.annotated(node.annotation) or self.made(node.value)
                if library and isinstance(target, ast.Name) and node in cls.body:
                    names.add(target.id)
                elif library and _on_self(target):
                    names.add(target.attr)
            elif isinstance(node, ast.Assign) and self.made(node.value):
                names.update(t.attr for t in node.targets if _on_self(t))
        return names

    def holds(self, node: ast.expr, names: set[str], attributes: set[str]) -> bool:
        """Whether ``node`` stands for a library's object in a scope where ``names`` and
        ``self``'s ``attributes`` hold library objects."""
        if isinstance(node, ast.Name):
            return node.id in names or node.id in self.bound
        if isinstance(node, ast.Attribute):
            if _on_self(node):
                return node.attr in attributes
            return self.dotted(node) is not None
        return self.made(node)


def _on_self(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("self", "cls")
    )


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function (or the module), not those of the functions and classes
    inside it."""
    for child in ast.iter_child_nodes(scope):
        if not isinstance(child, SCOPES):
            yield child
            yield from _own_nodes(child)


def _inner_scopes(scope: ast.AST) -> Iterator[ast.AST]:
    """The functions and classes right inside a function, a class or the module."""
    for child in ast.iter_child_nodes(scope):
        if isinstance(child, SCOPES):
            yield child
        else:
            yield from _inner_scopes(child)


def is_project_module(module: str) -> bool:
    top = module.split(".")[0]
    if not top or top in SKIPPED or library_module(module):
        return False
    return (ROOT / top / "__init__.py").exists() or (ROOT / f"{top}.py").exists()


def project_bindings(tree: ast.Module) -> dict[str, str | None]:
    """The names a file binds to the project's things: what it imports from the project
    (with the dotted path of what each is; None for a relative import) and what it
    defines at its top (None)."""
    bound: dict[str, str | None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_project_module(alias.name):
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom) and (
            node.level or is_project_module(node.module or "")
        ):
            for alias in node.names:
                path = None if node.level else f"{node.module}.{alias.name}"
                bound[alias.asname or alias.name] = path
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[node.name] = None
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound.update((t.id, None) for t in targets if isinstance(t, ast.Name))
    return bound


class _OwnObjects(_LibraryObjects):
    """Which expressions of one file the file shows to be the project's own objects
    (``reaches_in``); everything else may be a library's."""

    def __init__(self, tree: ast.Module) -> None:
        super().__init__(tree)
        self.project = project_bindings(tree)
        self.classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        self.new_aliases = {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign) and ast.unparse(node.value) == "object.__new__"
            for target in node.targets
            if isinstance(target, ast.Name)
        }

    def is_class(self, node: ast.expr) -> bool:
        """Whether ``node`` (no union, no string) names a class of the project: of this
        file, or imported (an alias of a union of them too: ``Move = Play | PickUp``)."""
        if isinstance(node, ast.Name) and node.id in self.classes:
            return True
        path = self.project_path(node)
        found = _library_object(path) if path is not None else None
        if isinstance(found, types.UnionType):
            return all(
                inspect.isclass(arg) and not library_module(arg.__module__)
                for arg in found.__args__
            )
        return inspect.isclass(found)

    def project_path(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.project.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.project_path(node.value)
            return None if base is None else f"{base}.{node.attr}"
        return None

    def rooted(self, node: ast.expr) -> bool:
        """A name the file imports from the project or defines at its top, or an
        attribute chain from one."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.project

    def made(self, value: ast.expr | None) -> bool:
        """An instance of the project's class: ``X(...)``, or ``object.__new__(X)`` (and
        a top-level alias of it) with ``X`` the project's class or ``cls``."""
        if not isinstance(value, ast.Call):
            return False
        if self.annotated(value.func):
            return True
        func = value.func
        new = ast.unparse(func) == "object.__new__" or (
            isinstance(func, ast.Name) and func.id in self.new_aliases
        )
        first = value.args[0] if value.args else None
        return (
            new
            and first is not None
            and ((isinstance(first, ast.Name) and first.id == "cls") or self.annotated(first))
        )

    def checked(self, function: ast.AST) -> set[str]:
        """The names a function checks to be of the project's class before use:
        ``isinstance(x, X)``, ``x.__class__ is X`` (or ``is not``, returning otherwise)."""
        names: set[str] = set()
        for node in _own_nodes(function):
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func) == "isinstance"
                and len(node.args) == 2
                and isinstance(node.args[0], ast.Name)
                and self.annotated(node.args[1])
            ):
                names.add(node.args[0].id)
            elif (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr == "__class__"
                and isinstance(node.left.value, ast.Name)
                and all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops)
                and all(self.annotated(c) for c in node.comparators)
            ):
                names.add(node.left.value.id)
        return names

    def scope_names(self, function: ast.AST) -> set[str]:
        """The names of a function (or the module) that hold the project's objects."""
        return super().scope_names(function) | self.checked(function)

    def holds(self, node: ast.expr, names: set[str], attributes: set[str]) -> bool:
        """Whether ``node`` is shown to stand for the project's own object."""
        if isinstance(node, ast.Name):
            return node.id in ("self", "cls") or node.id in names or node.id in self.project
        if isinstance(node, ast.Attribute):
            if _on_self(node):
                return node.attr in attributes
            return self.rooted(node)
        return self.made(node)


def reaches_in(tree: ast.Module, own: set[str]) -> Iterator[str]:
    """What one file does with a library's private parts, as ``KNOWN`` words it.

    A ``_``-attribute is taken from the project's own object only where the file shows
    the object is one (``_OwnObjects``) and not a library's (``_LibraryObjects``): a
    library's private name does not become public because the project happens to
    spell one alike."""
    library = _LibraryObjects(tree)
    mine = _OwnObjects(tree)
    yield from _imports_in(tree)
    yield from _reaches_in_scope(tree, own, library, mine, _Held(), _Held())


def _imports_in(tree: ast.Module) -> Iterator[str]:
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


class _Held:
    """The names of a scope (or ``self``'s attributes) that hold a library's objects and
    those that hold the project's own."""

    def __init__(self, library: frozenset[str] = frozenset(), own: frozenset[str] = frozenset()):
        self.library, self.own = library, own


def _reaches_in_scope(
    scope: ast.AST,
    own: set[str],
    library: _LibraryObjects,
    mine: _OwnObjects,
    names: _Held,
    attributes: _Held,
) -> Iterator[str]:
    """The reaches of one function (or class, or the module), then of those inside it,
    with the library's and the project's objects the enclosing scopes hold."""
    if isinstance(scope, ast.ClassDef):
        attributes = _Held(
            frozenset(library.self_attributes(scope)), frozenset(mine.self_attributes(scope))
        )
    else:
        names = _Held(
            names.library | library.scope_names(scope), names.own | mine.scope_names(scope)
        )
    for node in _own_nodes(scope):
        yield from _reach(node, own, library, mine, names, attributes)
    for inner in _inner_scopes(scope):
        yield from _reaches_in_scope(inner, own, library, mine, names, attributes)


def _foreign(
    value: ast.expr, library: _LibraryObjects, mine: _OwnObjects, names: _Held, attributes: _Held
) -> bool:
    """Whether ``value`` may be a library's object: known to be one, or not shown to be
    the project's own."""
    return library.holds(value, set(names.library), set(attributes.library)) or not mine.holds(
        value, set(names.own), set(attributes.own)
    )


def _reach(
    node: ast.AST,
    own: set[str],
    library: _LibraryObjects,
    mine: _OwnObjects,
    names: _Held,
    attributes: _Held,
) -> Iterator[str]:
    if isinstance(node, ast.Attribute) and is_private(node.attr):
        value = node.value
        if isinstance(value, ast.Call) and ast.unparse(value.func) == "super":
            if node.attr not in own:
                yield f"super().{node.attr}"
        elif _foreign(value, library, mine, names, attributes):
            yield f".{node.attr}"
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
        and is_private(node.args[1].value)
        and _foreign(node.args[0], library, mine, names, attributes)
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
        "        self._mine\n"
        "        other._meta\n"
    )
    assert set(reaches_in(tree, own={"_mine"})) == {
        "import channels_redis.utils._wrap_close",
        "import from django.utils._os",
        "super()._receive_message",
        "._perm_cache",
        'getattr(.., "_wrapped")',
    }


def test_a_librarys_private_name_is_reported_though_the_project_spells_one_alike() -> None:
    tree = ast.parse(
        "from channels.layers import BaseChannelLayer, channel_layers\n"
        "from redis.asyncio import Redis\n"
        "import django.db\n"
        "class Holder:\n"
        "    client: Redis | None = None\n"
        "    def f(self, layer: BaseChannelLayer, mine, later: 'Redis'):\n"
        "        channel_layers._backends\n"
        "        made = Redis()\n"
        "        made._pool\n"
        "        layer._closed\n"
        "        self.client._queue\n"
        "        later._lock\n"
        "        getattr(layer, '_lock', None)\n"
        "        django.db.connection._cursor\n"
        "        def inner():\n"
        "            return made._pool\n"
        "        mine._closed\n"
        "        self._pool\n"
    )
    own = {"_backends", "_pool", "_closed", "_queue", "_lock", "_cursor"}
    # ``self`` of the project's class may use the names it defines; ``mine`` is not
    # shown to be the project's (it may be a library's object): its ``_closed`` is not
    assert sorted(reaches_in(tree, own)) == sorted(
        [
            "._backends",
            "._pool",
            "._closed",
            "._queue",
            "._lock",
            'getattr(.., "_lock")',
            "._cursor",
            "._pool",
            "._closed",
        ]
    )


def test_a_private_name_passes_only_on_an_object_shown_to_be_the_projects() -> None:
    tree = ast.parse(
        "from games import rows\n"
        "from games.engine.moves import Play\n"
        "_new = object.__new__\n"
        "class Mine:\n"
        "    helper: Play\n"
        "    def f(self, given: Play, other, unknown):\n"
        "        self._pool, rows._players_sql, given._ids, self.helper._ids\n"
        "        made = Play('9H')\n"
        "        made._ids, _new(Mine)._pool, object.__new__(cls)._pool\n"
        "        if other.__class__ is not Play:\n"
        "            return\n"
        "        other._ids\n"
        "        unknown._ids\n"
        "        getattr(unknown, '_pool')\n"
    )
    own = {"_pool", "_players_sql", "_ids"}
    assert sorted(reaches_in(tree, own)) == ["._ids", 'getattr(.., "_pool")']


def test_no_new_reach_into_a_librarys_private_parts_and_none_listed_that_is_gone() -> None:
    found = all_reaches()
    listed = KNOWN.keys() | OWN_UNPROVEN.keys()
    new = sorted(found - listed)
    gone = sorted(listed - found)
    assert not new, "private parts of a library used (use its public API):\n" + "\n".join(
        f"  {path}: {what}" for path, what in new
    )
    assert not gone, "no longer done: remove from KNOWN:\n" + "\n".join(
        f"  {path}: {what}" for path, what in gone
    )
