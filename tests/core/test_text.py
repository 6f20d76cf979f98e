"""What the database cannot store: a NUL and a lone surrogate, wherever they hide in JSON."""

from __future__ import annotations

import json

import pytest

from core import text
from core.errors import Refused


@pytest.mark.parametrize("value", ["a\x00b", json.loads('"x\\ud800y"'), "\udfff"])
def test_a_nul_or_a_lone_surrogate_is_not_storable(value):
    assert not text.is_storable(value)
    with pytest.raises(Refused) as refused:
        text.storable_text(value)
    assert refused.value.code == "bad_text"


def test_other_text_passes_as_it_is():
    for value in ("", "zażółć gęślą jaźń", "🂡 as", "tab\tand\nnewline"):
        assert text.storable_text(value) == value


def test_every_string_of_decoded_json_is_read_keys_too():
    assert text.all_storable({"a": [1, "b", {"c": None}], "d": True})
    assert not text.all_storable({"a": [1, {"c": "x\x00"}]})
    assert not text.all_storable({"k\x00": 1})
    assert not text.all_storable(json.loads('["\\ud800"]'))
