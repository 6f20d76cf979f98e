"""Rule sections and their examples, read from ``games/teaching/rules/*.toml``.

One file is one section of RULES.md or one table option::

    anchor = "spades-back"           # the id on /rules/ (lower-case words and dashes)
    order = 90                       # where it stands on the page
    options = ["spades_back"]        # for an option: the Rules fields it explains
    [en]
    title = "Spades send the turn back"
    text = '''Paragraphs, separated by blank lines.'''
    [pl]
    title = "…"
    text = '''…'''

    [[examples]]                     # any number; a small position and what it shows
    rules = { spades_back = true }   # the table options (games.engine.Rules), default all
    pile = ["9H", "QD"]              # bottom first, so the base card first
    hand = ["KS", "KH"]              # the player to move, in seat 0 (drawn sorted, as a table does)
    beton = []                       # his beton (optional)
    others = [["AH"], ["AD"]]        # the other seats' hands, clockwise from seat 1
    action_count = 0                 # actions made so far (optional)
    en = "The caption in English."
    pl = "The caption in Polish."
    plays = [["KS"], ["KH"]]         # exactly the plays the engine allows (optional)
    pickups = [3]                    # exactly the pick-up sizes it allows (optional)
    refused = [["9S"]]               # plays it refuses (optional)
    move = ["KS"]                    # a play, or a pick-up's size as a number (optional)
    [examples.after]                 # what the move leads to (optional, needs ``move``)
    pile = ["9H", "QD", "KS"]
    hand = ["KH"]
    to_move = 2                      # the seat whose turn it is next
    result = "tie"                   # or "loser" (then ``loser``); absent: the hand goes on
    final_play = ["AH"]              # the last player's automatic play that made the tie

An example states only what the engine decides: a test builds each position and checks
every claim against it. Text is plain (escaped when shown); blank lines part paragraphs.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from games.engine import HandState, Move, PickUp, Play, Rules

RULES_DIR = Path(__file__).parent / "rules"
LANGUAGES = ("en", "pl")
RESULTS = ("tie", "loser")
OPTIONS = frozenset(f.name for f in fields(Rules))
_ANCHOR = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")

POSITION_KEYS = frozenset({"rules", "pile", "hand", "beton", "others", "action_count"})
_SECTION_KEYS = {"anchor", "order", "options", "examples", *LANGUAGES}
_EXAMPLE_KEYS = {
    *POSITION_KEYS,
    "plays",
    "pickups",
    "refused",
    "move",
    "after",
    *LANGUAGES,
}
_AFTER_KEYS = {"pile", "hand", "to_move", "result", "loser", "final_play"}


class TeachingDataError(ValueError):
    """A rule file that cannot be used, with the file and the reason in its message."""


@dataclass(frozen=True)
class Words:
    """One text in both languages."""

    en: str
    pl: str

    def in_language(self, language: str | None) -> str:
        """The Polish text for a Polish ``language`` code, else the English one."""
        return self.pl if (language or "").startswith("pl") else self.en

    def paragraphs(self, language: str | None) -> list[str]:
        """The text in ``language``, one string per paragraph (blank lines part them)."""
        return [p.strip() for p in self.in_language(language).split("\n\n") if p.strip()]


@dataclass(frozen=True)
class Position:
    """A position to set up: the player to move sits in seat 0."""

    rules: Rules
    pile: tuple[str, ...]
    hand: tuple[str, ...]
    beton: tuple[str, ...]
    others: tuple[tuple[str, ...], ...]
    action_count: int

    def state(self) -> HandState:
        """The position as an engine state, seat 0 to move."""
        return HandState.from_position(
            rules=self.rules,
            hands=[self.hand, *self.others],
            betons=[self.beton, *([] for _ in self.others)],
            pile=self.pile,
            to_move=0,
            action_count=self.action_count,
        )


def read_position(data: dict[str, Any], where: str) -> Position:
    """A position's keys of ``data`` (``POSITION_KEYS``; the others are the caller's)."""
    try:
        rules = Rules.from_json(data.get("rules", {}))
    except ValueError as exc:
        raise TeachingDataError(f"{where}: {exc}") from exc
    others = data.get("others")
    if not isinstance(others, list) or not others:
        raise TeachingDataError(f"{where}: others must list the other seats' hands")
    return Position(
        rules=rules,
        pile=read_cards(data.get("pile", []), where),
        hand=read_cards(data.get("hand"), where),
        beton=read_cards(data.get("beton", []), where),
        others=tuple(read_cards(hand, where) for hand in others),
        action_count=data.get("action_count", 0),
    )


def check_cards_in_deck(rules: Rules, groups: Iterable[Iterable[str]], where: str) -> None:
    """Refuses a card code unknown or outside the deck of ``rules``."""
    for code in {code for group in groups for code in group}:
        try:
            in_deck = rules.contains(code)
        except ValueError as exc:
            raise TeachingDataError(f"{where}: {exc}") from exc
        if not in_deck:
            raise TeachingDataError(f"{where}: {code} is not a card of this table's deck")


@dataclass(frozen=True)
class After:
    """What an example's move leads to; None where the example claims nothing."""

    pile: tuple[str, ...] | None
    hand: tuple[str, ...] | None
    to_move: int | None
    result: str | None
    loser: int | None
    final_play: tuple[str, ...] | None


@dataclass(frozen=True)
class Example(Position):
    """A small position (the player to move sits in seat 0) and what it demonstrates."""

    caption: Words
    plays: frozenset[frozenset[str]] | None
    pickups: frozenset[int] | None
    refused: tuple[tuple[str, ...], ...]
    move: Move | None
    after: After | None

    def position(self) -> HandState:
        """The example's position as an engine state, seat 0 to move."""
        return self.state()


@dataclass(frozen=True)
class RuleSection:
    """One section of the rules or one table option, with its examples."""

    anchor: str
    order: int
    options: tuple[str, ...]
    title: Words
    text: Words
    examples: tuple[Example, ...]

    def paragraphs(self, language: str | None) -> list[str]:
        """The text in ``language``, one string per paragraph."""
        return self.text.paragraphs(language)


def load_sections(directory: Path = RULES_DIR) -> tuple[RuleSection, ...]:
    """Every ``*.toml`` of ``directory`` as checked sections in page order.

    Raises :class:`TeachingDataError` naming the file for a missing language or text,
    an unknown key, card code or option, a card outside the example's deck, a claim
    with nothing to check, or an anchor or order used twice.
    """
    sections = []
    for path in sorted(directory.glob("*.toml")):
        try:
            with path.open("rb") as file:
                sections.append(_section(tomllib.load(file)))
        except (tomllib.TOMLDecodeError, ValueError, TypeError) as exc:
            raise TeachingDataError(f"{path.name}: {exc}") from exc
    _check_unique(sections, "anchor")
    _check_unique(sections, "order")
    explained: dict[str, str] = {}
    for section in sections:
        for option in section.options:
            if option in explained:
                raise TeachingDataError(
                    f"option {option!r} is explained by both {explained[option]!r}"
                    f" and {section.anchor!r}"
                )
            explained[option] = section.anchor
    return tuple(sorted(sections, key=lambda s: s.order))


@functools.cache
def rule_sections() -> tuple[RuleSection, ...]:
    """The site's rule sections, read once."""
    return load_sections()


def option_section(option: str) -> RuleSection:
    """The section explaining the Rules field ``option``."""
    return _option_sections()[option]


def option_anchor(option: str) -> str:
    """The anchor on /rules/ of the section explaining the Rules field ``option``."""
    return _option_sections()[option].anchor


@functools.cache
def _option_sections() -> dict[str, RuleSection]:
    return {option: s for s in rule_sections() for option in s.options}


# --- reading one file ------------------------------------------------------------------


def read_name_and_order(data: dict[str, Any], key: str) -> tuple[str, int]:
    """A file's name under ``key`` (lower-case words joined by dashes) and its order."""
    name = data.get(key)
    if not isinstance(name, str) or not _ANCHOR.fullmatch(name):
        raise TeachingDataError(f"{key} must be lower-case words joined by dashes, not {name!r}")
    order = data.get("order")
    if type(order) is not int:
        raise TeachingDataError(f"order must be an integer, not {order!r}")
    return name, order


def _section(data: dict[str, Any]) -> RuleSection:
    check_keys(data, _SECTION_KEYS, "the file")
    anchor, order = read_name_and_order(data, "anchor")
    options = data.get("options", [])
    if not isinstance(options, list):
        raise TeachingDataError(f"options must be a list of option names, not {options!r}")
    for option in options:
        if option not in OPTIONS:
            raise TeachingDataError(
                f"unknown option {option!r}; the options are {', '.join(sorted(OPTIONS))}"
            )
    for language in LANGUAGES:
        table = data.get(language)
        if not isinstance(table, dict):
            raise TeachingDataError(f"the [{language}] title and text are missing")
        check_keys(table, {"title", "text"}, f"[{language}]")
    title = read_words({lang: data[lang].get("title") for lang in LANGUAGES}, "title")
    text = read_words({lang: data[lang].get("text") for lang in LANGUAGES}, "text")
    examples = tuple(
        _example(item, number) for number, item in enumerate(data.get("examples", []), 1)
    )
    return RuleSection(anchor, order, tuple(options), title, text, examples)


def _example(data: dict[str, Any], number: int) -> Example:
    where = f"example {number}"
    check_keys(data, _EXAMPLE_KEYS, where)
    position = read_position(data, where)
    move = data.get("move")
    after = data.get("after")
    example = Example(
        **vars(position),
        caption=read_words({lang: data.get(lang) for lang in LANGUAGES}, f"{where}'s caption"),
        plays=None
        if "plays" not in data
        else frozenset(frozenset(read_cards(p, where)) for p in data["plays"]),
        pickups=None if "pickups" not in data else frozenset(_counts(data["pickups"], where)),
        refused=tuple(read_cards(p, where) for p in data.get("refused", [])),
        move=None if move is None else read_move(move, where),
        after=None if after is None else _after(after, where),
    )
    if example.after is not None and example.move is None:
        raise TeachingDataError(f"{where}: [after] needs the move it follows")
    claims = (example.plays, example.pickups, example.refused or None, example.move)
    if all(claim is None for claim in claims):
        raise TeachingDataError(f"{where}: it claims nothing (plays, pickups, refused, move)")
    _check_deck(example, where)
    return example


def _after(data: dict[str, Any], where: str) -> After:
    check_keys(data, _AFTER_KEYS, f"{where}'s [after]")
    result = data.get("result")
    if result is not None and result not in RESULTS:
        raise TeachingDataError(f"{where}: result must be one of {RESULTS}, not {result!r}")
    if (result == "loser") != ("loser" in data):
        raise TeachingDataError(f'{where}: a loser is named with result = "loser" only')
    return After(
        pile=read_cards(data["pile"], where) if "pile" in data else None,
        hand=read_cards(data["hand"], where) if "hand" in data else None,
        to_move=data.get("to_move"),
        result=result,
        loser=data.get("loser"),
        final_play=read_cards(data["final_play"], where) if "final_play" in data else None,
    )


def read_move(value: Any, where: str) -> Move:
    if type(value) is int:
        return PickUp(value)
    return Play(read_cards(value, where))


def read_cards(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
        raise TeachingDataError(f"{where}: cards must be a list of card codes, not {value!r}")
    return tuple(value)


def _counts(value: Any, where: str) -> Iterable[int]:
    if not isinstance(value, list) or not all(type(n) is int and n > 0 for n in value):
        raise TeachingDataError(f"{where}: pickups must list pick-up sizes, not {value!r}")
    return value


def read_words(texts: dict[str, Any], what: str) -> Words:
    for language, text in texts.items():
        if not isinstance(text, str) or not text.strip():
            raise TeachingDataError(f"the {what} in {language!r} is missing or empty")
    return Words(**{language: text.strip() for language, text in texts.items()})


def _check_deck(example: Example, where: str) -> None:
    after = example.after or After(None, None, None, None, None, None)
    move_cards = example.move.cards if isinstance(example.move, Play) else ()
    groups = [
        example.pile,
        example.hand,
        example.beton,
        *example.others,
        *(example.plays or ()),
        *example.refused,
        move_cards,
        after.pile or (),
        after.hand or (),
        after.final_play or (),
    ]
    check_cards_in_deck(example.rules, groups, where)


def check_keys(data: Any, known: set[str], where: str) -> None:
    if not isinstance(data, dict):
        raise TeachingDataError(f"{where} must be a table of keys, not {data!r}")
    unknown = sorted(set(data) - known)
    if unknown:
        raise TeachingDataError(
            f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )


def _check_unique(sections: list[RuleSection], attribute: str) -> None:
    seen: dict[Any, str] = {}
    for section in sections:
        value = getattr(section, attribute)
        if value in seen:
            raise TeachingDataError(
                f"{attribute} {value!r} is used by both {seen[value]!r} and {section.anchor!r}"
            )
        seen[value] = section.anchor
