"""Reads for Learn: the course with an account's progress, and a lesson's position drawn
as the table page draws a hand (the same fields its partials read)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User
from games import selectors
from games.engine import HandState, move_to_json
from learn.lessons import LEARNER, Lesson, lessons
from learn.models import LessonProgress


@dataclass(frozen=True)
class CourseEntry:
    """One lesson of the course as /learn/ lists it."""

    number: int
    slug: str
    title: str
    done: bool


def completed_lessons(user: User | None) -> set[str]:
    """The slugs of the lessons ``user`` has completed (none for a visitor: his progress
    is in his browser)."""
    if user is None or not user.is_authenticated:
        return set()
    return set(LessonProgress.objects.filter(user=user).values_list("lesson", flat=True))


def course(user: User | None, language: str | None) -> list[CourseEntry]:
    """Every lesson in order, ticked where ``user`` has completed it."""
    done = completed_lessons(user)
    return [
        CourseEntry(number, lesson.slug, lesson.title.in_language(language), lesson.slug in done)
        for number, lesson in enumerate(lessons(), 1)
    ]


@dataclass
class LessonTable:
    """A lesson's position with the fields of ``games.selectors.TableView`` that the
    table's partial tags read (players, pile, own hand and moves, log), seen by the
    learner in seat 0. There is no clock, no table and no database row."""

    players: list[selectors.PlayerView]
    pile: list[selectors.CardView]
    my_cards: list[selectors.CardView]
    playable: dict[str, dict[str, Any]]
    multi_moves: list[selectors.MoveOption]
    pickups: list[selectors.MoveOption]
    last_actions: list[str]
    hand: HandState
    version: int  # the step, as a table's hand version: a move answers the step it saw
    said: str = ""
    outcome_text: str = ""
    my_seat: int = LEARNER
    history_length: int = 0  # the position's actions so far, as a table's log carries it
    new_actions: int = 0  # a lesson has no earlier visit: nothing in its log is marked new
    hand_in_play: bool = True  # the learner's moves are judged (not once the lesson is done)


def seat_names(state: HandState, learner: str) -> dict[int, str]:
    """The learner's name in seat 0, the others numbered as players."""
    names = {LEARNER: learner}
    for seat in range(1, state.players):
        names[seat] = _("Player %(n)d") % {"n": seat + 1}
    return names


def lesson_table(state: HandState, step: int, learner: str, *, playing: bool) -> LessonTable:
    """``state`` as the learner sees it at step ``step`` (``learner``: his name), his
    moves offered while ``playing`` (not once the lesson is done)."""
    language = translation.get_language()
    names = seat_names(state, learner)
    to_move = None if state.outcome is not None else state.to_move
    players = [
        selectors.PlayerView(
            seat=seat,
            name=names[seat],
            user_id=None,
            is_bot=False,
            is_me=seat == LEARNER,
            to_move=seat == to_move,
            hand_count=state.hand_counts[seat],
            beton_count=state.beton_counts[seat],
            letters="",
            clock_ms=0,
            clock_running=False,
            connected=True,
            lag_ms=None,
        )
        for seat in range(state.players)
    ]
    legal = [move_to_json(m) for m in state.legal_moves()] if playing and to_move == LEARNER else []
    playable, multi_moves, pickups = selectors.group_moves(legal)
    history = state.recent_history(selectors.ACTIONS_SHOWN)
    outcome = (
        "" if state.outcome is None else selectors.describe_outcome(state.outcome.to_json(), names)
    )
    spoken = [
        selectors.describe_action(history[-1].to_json(), names, spoken=True) if history else "",
        outcome,
    ]
    return LessonTable(
        players=players,
        pile=[selectors.CardView.of(code) for code in state.pile],
        my_cards=[
            selectors.CardView.of(code)
            for code in sorted(state.hand(LEARNER), key=selectors.card_sort_key)
        ],
        playable=playable,
        multi_moves=multi_moves,
        pickups=pickups,
        last_actions=[
            selectors.describe_action(entry.to_json(), names, language=language)
            for entry in reversed(history)
        ],
        hand=state,
        version=step,
        history_length=state.history_length,
        said=". ".join(part for part in spoken if part),
        outcome_text=outcome,
        hand_in_play=playing and state.outcome is None,
    )


def lesson_number(lesson: Lesson) -> int:
    """Where ``lesson`` stands in the course, from 1."""
    return [each.slug for each in lessons()].index(lesson.slug) + 1


def next_lesson(lesson: Lesson) -> Lesson | None:
    """The lesson after ``lesson``, or None for the last."""
    course = lessons()
    number = lesson_number(lesson)
    return course[number] if number < len(course) else None
