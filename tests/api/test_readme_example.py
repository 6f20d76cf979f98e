"""The README's "Write your own Pan bot" example stays a program of this API: it compiles,
and every path it asks for is one the API serves."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.urls import resolve

README = Path(__file__).resolve().parents[2] / "README.md"


def example() -> str:
    section = README.read_text().split("## Write your own Pan bot", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_compiles_and_asks_for_the_apis_own_paths():
    code = example()
    assert len(code.splitlines()) <= 25
    ast.parse(code)
    paths = re.findall(r'f?"(/api/[^"]*)"', code)
    assert len(paths) == 3
    for path in paths:
        match = resolve(re.sub(r"\{[^}]*\}", "7", path))
        assert match.url_name != "api-not-found", path
