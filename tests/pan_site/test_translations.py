"""The Polish catalogue is complete: every text the site shows, found by ``makemessages``
in the code and templates as they are now, has its Polish translation, none fuzzy; and it
names each thing with one word."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = Path("locale/pl/LC_MESSAGES/django.po")
# Words the site does not use, each with the one it uses for the thing (the menu's and
# the rules' word): a reader meeting two words wonders whether they are two things.
FOREIGN_WORDS = {
    r"mecz\w*": "partia",  # a match: mecz, meczu, meczem, mecze, meczów...
    r"lobby": "Poczekalnia",
}


def po_entries(text: str) -> list[dict[str, object]]:
    """A PO file's entries: ``msgid``, ``msgstr`` (a list: one, or one per plural form)
    and ``fuzzy``; the header (empty msgid) left out."""
    entries: list[dict[str, object]] = []
    for block in text.split("\n\n"):
        entry: dict[str, object] = {"msgid": None, "msgstr": [], "fuzzy": False}
        field = None
        for line in block.splitlines():
            if line.startswith("#,") and "fuzzy" in line:
                entry["fuzzy"] = True
            elif line.startswith("#"):
                continue
            elif line.startswith("msgid "):
                field, entry["msgid"] = "msgid", _string(line[6:])
            elif line.startswith("msgid_plural "):
                field = "plural"
            elif line.startswith("msgstr"):
                field = "msgstr"
                entry["msgstr"].append(_string(line.split(" ", 1)[1]))
            elif line.startswith('"') and field == "msgid":
                entry["msgid"] += _string(line)
            elif line.startswith('"') and field == "msgstr":
                entry["msgstr"][-1] += _string(line)
        if entry["msgid"]:
            entries.append(entry)
    return entries


def _string(quoted: str) -> str:
    return quoted.strip()[1:-1]


def test_the_reader_sees_empty_fuzzy_and_plural_translations() -> None:
    entries = po_entries(
        'msgid ""\nmsgstr "header"\n\n'
        'msgid "a"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "b"\nmsgstr "bb"\n\n'
        'msgid ""\n"c"\nmsgid_plural "cs"\nmsgstr[0] "x"\nmsgstr[1] ""\n"y"\n'
    )
    assert [(e["msgid"], e["msgstr"], e["fuzzy"]) for e in entries] == [
        ("a", [""], False),
        ("b", ["bb"], True),
        ("c", ["x", "y"], False),
    ]


def test_every_text_of_the_site_has_its_polish_translation(tmp_path: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    for name in filter(None, tracked):
        source = ROOT / name.decode()
        if source.is_file():
            (tmp_path / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tmp_path / name.decode())
    shutil.copy2(ROOT / CATALOGUE, tmp_path / CATALOGUE)  # as it is now, committed or not
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "pl", "--no-obsolete", "-v0"]
        + [f"--ignore={folder}" for folder in (".venv", "var", "tests", "bench")],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    missing = [
        entry["msgid"]
        for entry in po_entries((tmp_path / CATALOGUE).read_text())
        if entry["fuzzy"] or not all(entry["msgstr"])
    ]
    assert missing == []


def test_the_polish_texts_say_partia_for_a_match_and_poczekalnia_for_the_lobby() -> None:
    texts = [
        text for entry in po_entries((ROOT / CATALOGUE).read_text()) for text in entry["msgstr"]
    ]
    found = [
        (match.group(), instead, text)
        for pattern, instead in FOREIGN_WORDS.items()
        for text in texts
        if (match := re.search(rf"\b{pattern}\b", text, re.IGNORECASE))
    ]
    assert found == []


def test_the_foreign_words_are_found_in_every_form() -> None:
    for text in ("Trwa mecz.", "bez meczu", "MECZEM", "mecze", "z lobby"):
        assert any(re.search(rf"\b{p}\b", text, re.IGNORECASE) for p in FOREIGN_WORDS)
    for text in ("Partia trwa.", "Poczekalnia", "lobbysta"):
        assert not any(re.search(rf"\b{p}\b", text, re.IGNORECASE) for p in FOREIGN_WORDS)
