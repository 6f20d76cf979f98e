"""What importing a package loads, seen from a fresh interpreter (for the purity tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules_loaded_by(module: str) -> set[str]:
    """The top-level names of every module a fresh interpreter holds after ``import module``."""
    code = f"import {module}, sys; print(' '.join({{m.split('.')[0] for m in sys.modules}}))"
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=ROOT
    )
    return set(done.stdout.split())
