"""The engine is pure Python: no Django, no I/O, no clock, no global randomness."""

import pathlib

from tests.imports import modules_loaded_by

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "games" / "engine"


def test_importing_the_engine_imports_nothing_from_django_nor_random_or_clocks():
    loaded = modules_loaded_by("games.engine")
    assert "games" in loaded  # the import did run
    assert not [m for m in loaded if m.startswith("django")]
    # ``time`` is not checked here: the interpreter itself loads it at start-up.
    assert not {"random", "datetime", "secrets", "uuid"} & loaded


def test_engine_source_uses_no_io_clock_or_random():
    forbidden = ("import random", "import time", "import datetime", "open(", "print(", "os.")
    for path in ENGINE.glob("*.py"):
        text = path.read_text()
        for word in forbidden:
            assert word not in text, f"{path.name} uses {word}"
