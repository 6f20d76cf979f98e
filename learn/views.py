"""Learn's pages: the course, a lesson (its moves judged through the engine, nothing
stored but an account's completed lessons) and the first match against a bot."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.errors import Refused
from games.engine import HandState, Move, move_to_json
from games.refusals import judged_move
from learn import selectors, services
from learn.forms import LessonMoveForm, path_text
from learn.lessons import Lesson, lesson, lessons


def course(request: HttpRequest) -> HttpResponse:
    """Every lesson in order, with the signed-in learner's completed ones ticked and
    counted on a bar (a visitor's ticks and count come from his browser)."""
    entries = selectors.course(request.user, translation.get_language())
    done = sum(entry.done for entry in entries)
    return render(request, "learn/course.html", {"entries": entries, "done": done})


def lesson_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A lesson at its first step (GET), or the move posted at a step judged: the next
    step, the lesson done, or the move explained with nothing changed."""
    found = lesson(slug)
    if found is None:
        raise Http404(_("No such lesson."))
    if request.method != "POST":
        return _lesson_response(request, found, found.start(), [])
    form = LessonMoveForm(request.POST, lesson=found)
    if not form.is_valid():
        error = next(iter(form.non_field_errors()), _("This is not a move of the lesson."))
        return _lesson_response(request, found, found.start(), [], error=error, status=400)
    state, earlier, move = (form.cleaned_data[k] for k in ("state", "earlier", "move"))
    step = len(earlier)
    judgement = found.judge(state, step, move)
    if not judgement.accepted:
        why = (
            judgement.why.in_language(translation.get_language())
            if judgement.why is not None
            else _engine_refusal(state, move)
        )
        return _lesson_response(request, found, state, earlier, error=why)
    moves = [*earlier, move]
    if len(moves) == len(found.steps) and request.user.is_authenticated:
        services.lesson_complete(user=request.user, lesson=found.slug, now=timezone.now())
    return _lesson_response(request, found, judgement.state, moves)


def _engine_refusal(state: HandState, move: Move) -> str:
    """Why the engine refuses ``move`` (illegal, with no explanation of the lesson's)."""
    try:
        judged_move(state, move_to_json(move))
    except Refused as refusal:
        return refusal.message
    return ""


def _lesson_response(
    request: HttpRequest,
    found: Lesson,
    state: HandState,
    moves: list[Move],
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    language = translation.get_language()
    step = len(moves)
    done = step == len(found.steps)
    learner = request.user.username if request.user.is_authenticated else _("Learner")
    context = {
        "lesson": found,
        "number": selectors.lesson_number(found),
        "total": len(lessons()),
        "title": found.title.in_language(language),
        "paragraphs": found.paragraphs(language),
        "rule": found.rule_section(),
        "rule_title": found.rule_section().title.in_language(language) if found.rule else "",
        "rule_paragraphs": found.rule_section().paragraphs(language) if found.rule else [],
        "step": step,
        "answer": request.method == "POST",
        "steps": len(found.steps),
        "task": "" if done else found.steps[step].task.in_language(language),
        "done": found.done.in_language(language) if done else "",
        "error": error,
        "v": selectors.lesson_table(state, step, learner, playing=not done),
        "path": path_text(moves),
        "next": selectors.next_lesson(found),
    }
    return render(request, "learn/lesson.html", context, status=status)


@login_required
@require_POST
def first_match(request: HttpRequest) -> HttpResponse:
    """The last lesson's one click: a table against a bot, its match started (a visitor
    is offered a link to sign up instead)."""
    try:
        table = services.first_match_start(user=request.user, now=timezone.now())
    except Refused as refusal:
        messages.error(request, refusal.message)
        return redirect("learn:course")
    return redirect(table)
