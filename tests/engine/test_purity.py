"""The engine is pure Python: no Django, no I/O, no clock, no global randomness."""

import pathlib
import subprocess
import sys

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "games" / "engine"


def test_importing_the_engine_imports_nothing_from_django():
    code = (
        "import games.engine, sys; "
        "assert not any(m.startswith('django') for m in sys.modules), 'django imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ENGINE.parents[1])


def test_importing_the_engine_does_not_import_random_or_clocks():
    # ``time`` is not checked here: the interpreter itself loads it at start-up.
    code = (
        "import games.engine, sys; "
        "bad = {'random', 'datetime', 'secrets', 'uuid'} & set(sys.modules); "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ENGINE.parents[1])


def test_engine_source_uses_no_io_clock_or_random():
    forbidden = ("import random", "import time", "import datetime", "open(", "print(", "os.")
    for path in ENGINE.glob("*.py"):
        text = path.read_text()
        for word in forbidden:
            assert word not in text, f"{path.name} uses {word}"
