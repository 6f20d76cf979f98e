"""The lessons of /learn/, read from ``learn/lessons/*.toml``.

A lesson is a position and one or more steps; at each step the learner (seat 0) makes
the move the step asks for, and the other seats answer until he is to move again::

    slug = "opening"                   # its address under /learn/ (lower-case words, dashes)
    order = 10                         # where it stands in the course
    rule = "opening"                   # the rule section it teaches (optional): the page
                                       # shows that section's text from /rules/ above the
                                       # lesson's own, which then says only what this
                                       # table does
    [en]
    title = "Opening with the nine of hearts"
    text = '''The introduction: paragraphs, separated by blank lines.'''
    done = "What the learner is told when the last step is solved."
    [pl]
    title = "…"
    text = '''…'''
    done = "…"

    [position]                         # as a rule section's example (sections.py)
    rules = { spades_back = true }
    pile = []
    hand = ["9H", "KS"]
    others = [["10S", "QD"]]

    [[steps]]
    en = "The task, in English."
    pl = "The task, in Polish."
    accept = [["9H"]]                  # the moves accepted: a play's cards, a pick-up's size
    accept_any = "play"                # or: any legal "play", "pickup" or "move" (optional)
    replies = [["10S"], 3]             # the other seats' answers in turn (optional); when
                                       # they run out each plays the engine's first legal move
    [steps.otherwise]                  # why a legal move not accepted is not the one asked for
    en = "…"
    pl = "…"
    [[steps.wrong]]                    # a wrong move explained on its own (optional, any number)
    move = ["KS"]
    en = "…"
    pl = "…"

An illegal move not listed under ``wrong`` is explained by the engine's reason. A play is
judged by its cards, whichever of them lies on top. A test plays every lesson through the
engine: each accepted move is legal and leads to the next step, each listed wrong move
is wrong.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.engine import HandState, IllegalMove, Move, PickUp, Play
from games.teaching.sections import (
    LANGUAGES,
    POSITION_KEYS,
    Position,
    RuleSection,
    TeachingDataError,
    Words,
    check_cards_in_deck,
    check_keys,
    read_move,
    read_name_and_order,
    read_position,
    read_words,
    rule_sections,
)

LESSONS_DIR = Path(__file__).parent / "lessons"
ANY = ("play", "pickup", "move")
_LESSON_KEYS = {"slug", "order", "rule", "position", "steps", *LANGUAGES}
_STEP_KEYS = {"accept", "accept_any", "replies", "otherwise", "wrong", *LANGUAGES}
LEARNER = 0  # the learner's seat


def move_key(move: Move) -> tuple[str, frozenset[str] | int]:
    """What a move is judged by: a play's cards in any order, a pick-up's size."""
    if isinstance(move, PickUp):
        return ("pickup", move.count)
    return ("play", frozenset(move.cards))


@dataclass(frozen=True)
class WrongMove:
    """A wrong move and why it is wrong."""

    move: Move
    why: Words


@dataclass(frozen=True)
class Step:
    """One move the learner is asked for, and how the other seats answer it."""

    task: Words
    accept: tuple[Move, ...]
    accept_any: str | None
    replies: tuple[Move, ...]
    otherwise: Words
    wrong: tuple[WrongMove, ...]

    def accepts(self, state: HandState, move: Move) -> bool:
        """Whether ``move`` is what this step asks for (legal in ``state`` or not)."""
        if move_key(move) not in {move_key(m) for m in state.legal_moves()}:
            return False
        if self.accept_any == "move":
            return True
        if self.accept_any is not None and move_key(move)[0] == self.accept_any:
            return True
        return move_key(move) in {move_key(m) for m in self.accept}

    def explained(self, move: Move) -> Words | None:
        """The explanation written for ``move``, if it is listed among the wrong ones."""
        key = move_key(move)
        return next((w.why for w in self.wrong if move_key(w.move) == key), None)


@dataclass(frozen=True)
class Judgement:
    """A move judged at a step: accepted (``state`` is the position after it and the
    other seats' answers), or not (``state`` unchanged, ``why`` the explanation, or
    ``illegal`` the engine's refusal when no explanation is written for it)."""

    accepted: bool
    state: HandState
    why: Words | None = None
    illegal: IllegalMove | None = None


@dataclass(frozen=True)
class Lesson:
    """A position and the steps that make the learner play it."""

    slug: str
    order: int
    title: Words
    text: Words
    done: Words
    position: Position
    steps: tuple[Step, ...]
    rule: str = ""

    def paragraphs(self, language: str | None) -> list[str]:
        """The introduction in ``language``, one string per paragraph."""
        return self.text.paragraphs(language)

    def rule_section(self) -> RuleSection | None:
        """The rule section the lesson teaches, whose text its page shows; None if none."""
        return _sections_by_anchor().get(self.rule) if self.rule else None

    def start(self) -> HandState:
        """The position of the first step."""
        return self.position.state()

    def judge(self, state: HandState, step: int, move: Move) -> Judgement:
        """``move`` made at step ``step`` (counted from 0) in ``state``."""
        rules = self.steps[step]
        if rules.accepts(state, move):
            return Judgement(True, self._answered(state.apply(move), rules))
        why = rules.explained(move)
        try:
            state.apply(move)
        except IllegalMove as refusal:
            return Judgement(False, state, why, None if why else refusal)
        return Judgement(False, state, why or rules.otherwise)

    def replay(self, moves: list[Move]) -> HandState:
        """The position after the learner's ``moves``, one per step from the first.

        Raises :class:`TeachingDataError` when a move is not the one its step asks for
        or there are more moves than steps."""
        if len(moves) > len(self.steps):
            raise TeachingDataError(f"{self.slug}: more moves than steps")
        state = self.start()
        for step, move in enumerate(moves):
            judgement = self.judge(state, step, move)
            if not judgement.accepted:
                raise TeachingDataError(f"{self.slug}: step {step + 1} does not accept {move}")
            state = judgement.state
        return state

    def _answered(self, state: HandState, step: Step) -> HandState:
        replies = list(step.replies)
        while state.outcome is None and state.to_move != LEARNER:
            state = state.apply(replies.pop(0) if replies else state.legal_moves()[0])
        return state


def load_lessons(directory: Path = LESSONS_DIR) -> tuple[Lesson, ...]:
    """Every ``*.toml`` of ``directory`` as lessons in course order.

    Raises :class:`TeachingDataError` naming the file for a missing language or text, an
    unknown key or card, a step that accepts nothing, or a slug or order used twice."""
    lessons = []
    for path in sorted(directory.glob("*.toml")):
        try:
            with path.open("rb") as file:
                lessons.append(_lesson(tomllib.load(file)))
        except (tomllib.TOMLDecodeError, ValueError, TypeError, KeyError) as exc:
            raise TeachingDataError(f"{path.name}: {exc}") from exc
    for attribute in ("slug", "order"):
        values = [getattr(lesson, attribute) for lesson in lessons]
        if len(set(values)) != len(values):
            raise TeachingDataError(f"two lessons have the same {attribute}")
    return tuple(sorted(lessons, key=lambda lesson: lesson.order))


@functools.cache
def lessons() -> tuple[Lesson, ...]:
    """The site's course, read once."""
    return load_lessons()


def lesson(slug: str) -> Lesson | None:
    """The lesson at ``slug``, or None."""
    return next((each for each in lessons() if each.slug == slug), None)


# --- reading one file ------------------------------------------------------------------


def _lesson(data: dict[str, Any]) -> Lesson:
    check_keys(data, _LESSON_KEYS, "the file")
    slug, order = read_name_and_order(data, "slug")
    for language in LANGUAGES:
        check_keys(data.get(language), {"title", "text", "done"}, f"[{language}]")
    texts = {
        key: read_words({lang: data[lang].get(key) for lang in LANGUAGES}, key)
        for key in ("title", "text", "done")
    }
    check_keys(data.get("position"), set(POSITION_KEYS), "[position]")
    position = read_position(data["position"], "[position]")
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise TeachingDataError("a lesson has at least one [[steps]]")
    rule = data.get("rule", "")
    if rule and rule not in _sections_by_anchor():
        raise TeachingDataError(f"rule = {rule!r} names no rule section")
    lesson = Lesson(
        slug,
        order,
        texts["title"],
        texts["text"],
        texts["done"],
        position,
        tuple(_step(item, f"step {n}") for n, item in enumerate(steps, 1)),
        rule,
    )
    moves = [
        m.cards
        for step in lesson.steps
        for m in (*step.accept, *step.replies, *(w.move for w in step.wrong))
        if isinstance(m, Play)
    ]
    check_cards_in_deck(
        position.rules,
        [position.pile, position.hand, position.beton, *position.others, *moves],
        "[position]",
    )
    return lesson


def _step(data: dict[str, Any], where: str) -> Step:
    check_keys(data, _STEP_KEYS, where)
    accept_any = data.get("accept_any")
    if accept_any is not None and accept_any not in ANY:
        raise TeachingDataError(f"{where}: accept_any must be one of {ANY}, not {accept_any!r}")
    accept = tuple(read_move(m, where) for m in data.get("accept", []))
    if not accept and accept_any is None:
        raise TeachingDataError(f"{where}: it accepts nothing (accept, accept_any)")
    wrong = data.get("wrong", [])
    for item in wrong:
        check_keys(item, {"move", *LANGUAGES}, f"{where}'s [[wrong]]")
    otherwise = data.get("otherwise")
    check_keys(otherwise, set(LANGUAGES), f"{where}'s [otherwise]")
    return Step(
        task=read_words({lang: data.get(lang) for lang in LANGUAGES}, f"{where}'s task"),
        accept=accept,
        accept_any=accept_any,
        replies=tuple(read_move(m, where) for m in data.get("replies", [])),
        otherwise=read_words(otherwise, f"{where}'s otherwise"),
        wrong=tuple(
            WrongMove(
                read_move(item.get("move"), where),
                read_words({lang: item.get(lang) for lang in LANGUAGES}, f"{where}'s wrong"),
            )
            for item in wrong
        ),
    )


@functools.cache
def _sections_by_anchor() -> dict[str, RuleSection]:
    return {section.anchor: section for section in rule_sections()}
