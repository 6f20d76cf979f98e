"""The puzzle themes' words: each theme of the finder (:data:`puzzles.finder.THEMES`,
named by what a puzzle's solution does) with its name and a one-line description, in
English and Polish, read from ``puzzles/data/themes.toml``::

    [pick_up.en]                 # a key of puzzles.finder.THEMES
    name = "Pick up to win"
    description = "What the theme asks of the solver, in one sentence."
    [pick_up.pl]
    name = "…"
    description = "…"

Every key of the finder has its words and the file names no other; the themes are
listed in the finder's order. Pure Python, like the finder: no Django.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.teaching.sections import LANGUAGES, TeachingDataError, Words, check_keys, read_words
from puzzles.finder import THEMES

__all__ = ["THEMES_FILE", "Theme", "load_themes", "theme", "themes"]

THEMES_FILE = Path(__file__).resolve().parent / "data" / "themes.toml"
FIELDS = ("name", "description")


@dataclass(frozen=True)
class Theme:
    key: str
    name: Words
    description: Words


def load_themes(path: Path = THEMES_FILE) -> tuple[Theme, ...]:
    """The themes of ``path`` in the finder's order; :class:`TeachingDataError` naming the
    theme for a key missing or unknown, a language missing or a text empty."""
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except tomllib.TOMLDecodeError as exc:
        raise TeachingDataError(f"{path.name}: {exc}") from exc
    unknown = sorted(set(data) - set(THEMES))
    if unknown:
        raise TeachingDataError(f"{path.name}: unknown theme(s) {', '.join(unknown)}")
    missing = [key for key in THEMES if key not in data]
    if missing:
        raise TeachingDataError(f"{path.name}: no words for the theme(s) {', '.join(missing)}")
    return tuple(_theme(key, data[key], path.name) for key in THEMES)


def _theme(key: str, data: Any, where: str) -> Theme:
    try:
        check_keys(data, set(LANGUAGES), f"[{key}]")
        for language in LANGUAGES:
            check_keys(data.get(language), set(FIELDS), f"[{key}.{language}]")
        texts = {field: {lang: data[lang].get(field) for lang in LANGUAGES} for field in FIELDS}
        return Theme(
            key,
            read_words(texts["name"], f"{key}'s name"),
            read_words(texts["description"], f"{key}'s description"),
        )
    except TeachingDataError as exc:
        raise TeachingDataError(f"{where}: {exc}") from exc


@functools.cache
def themes() -> tuple[Theme, ...]:
    """The site's themes, read once."""
    return load_themes()


def theme(key: str) -> Theme:
    """The theme of ``key`` (a key of puzzles.finder.THEMES; KeyError for another)."""
    return _by_key()[key]


@functools.cache
def _by_key() -> dict[str, Theme]:
    return {t.key: t for t in themes()}
