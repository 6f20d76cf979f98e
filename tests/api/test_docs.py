"""docs/bot-api.md and the API agree: its endpoint table lists every operation of the
schema and no other, and its error table every challenge refusal under its status."""

from __future__ import annotations

import re
from pathlib import Path

from api.api import api
from social.api import STATUS_OF

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bot-api.md"
ROW = re.compile(r"^\| `(GET|POST|PUT|PATCH|DELETE) (/api/[^`]*)` \|", re.MULTILINE)
PARAMETER = re.compile(r"\{[A-Za-z_]+\}")


def documented_operations() -> set[str]:
    """``METHOD /path`` of each row of the endpoint table, ``{bot,board}`` written out
    and every path parameter as ``{}``."""
    operations = set()
    for method, path in ROW.findall(DOCS.read_text()):
        for kind in ("bot", "board") if "{bot,board}" in path else ("",):
            written = path.replace("{bot,board}", kind)
            operations.add(f"{method} {PARAMETER.sub('{}', written)}")
    return operations


def schema_operations() -> set[str]:
    paths = api.get_openapi_schema()["paths"]
    return {
        f"{method.upper()} {PARAMETER.sub('{}', path)}"
        for path, operations in paths.items()
        for method in operations
    }


def test_the_docs_endpoint_table_lists_exactly_the_schemas_operations():
    assert documented_operations() == schema_operations()


def test_the_docs_error_table_has_every_challenge_refusal_under_its_status():
    rows = dict(re.findall(r"^\| (\d{3}) \| (.*) \|$", DOCS.read_text(), re.MULTILINE))
    for code, status in STATUS_OF.items():
        assert f"`{code}`" in rows[str(status)], (code, status)
    for code in ("challenge_duplicate", "challenge_canceled", "challenge_expired"):
        assert f"`{code}`" in rows["409"]
