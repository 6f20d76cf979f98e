"""The bots are pure Python: no Django, no I/O, no global randomness, one clock read."""

import pathlib
import re
import subprocess
import sys

BOTS = pathlib.Path(__file__).resolve().parents[2] / "games" / "bots"


def test_importing_the_bots_imports_nothing_from_django():
    code = (
        "import games.bots, sys; "
        "assert not any(m.split('.')[0] == 'django' for m in sys.modules), 'django imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=BOTS.parents[1])


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
