"""The bots are pure Python: no Django, no I/O, no global randomness, one clock read."""

import pathlib
import re

from tests.imports import modules_loaded_by

BOTS = pathlib.Path(__file__).resolve().parents[2] / "games" / "bots"


def test_importing_the_bots_imports_nothing_from_django():
    loaded = modules_loaded_by("games.bots")
    assert "games" in loaded  # the import did run
    assert not [m for m in loaded if m.startswith("django")]


def test_bots_source_uses_no_io_and_no_global_random_state():
    # Module-level random functions share one global generator: the bots use
    # only their own random.Random(seed).
    forbidden = re.compile(
        r"\bopen\(|\bprint\(|\bos\.|\bsys\.|datetime|\btime\.time\("
        r"|\brandom\.(seed|random|choice|choices|shuffle|randint|randrange|sample|uniform)\("
    )
    for path in BOTS.glob("*.py"):
        found = forbidden.search(path.read_text())
        assert found is None, f"{path.name} uses {found.group()}"


def test_only_the_search_budget_reads_a_clock():
    readers = [p.name for p in BOTS.glob("*.py") if "perf_counter" in p.read_text()]
    assert readers == ["ismcts.py"]
    for path in BOTS.glob("*.py"):
        if path.name != "ismcts.py":
            assert "import time" not in path.read_text(), path.name
