"""The lessons' data: every lesson loads in both languages, every accepted move is legal
and leads to the next step or the lesson's end, every listed wrong move is wrong and
explained; a file with a mistake is refused with the file and the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.engine import HandState, Play, Rules
from games.teaching import TeachingDataError
from learn.lessons import LEARNER, Lesson, lessons, load_lessons, move_key


def _walk(lesson: Lesson, state: HandState, step: int) -> int:
    """Plays every accepted move of ``step`` on; returns how many ends were reached."""
    assert state.outcome is None and state.to_move == LEARNER, (lesson.slug, step)
    rules = lesson.steps[step]
    accepted = [m for m in state.legal_moves() if rules.accepts(state, m)]
    assert accepted, (lesson.slug, step)
    assert {move_key(m) for m in rules.accept} <= {move_key(m) for m in accepted}
    ends = 0
    for move in accepted:
        judgement = lesson.judge(state, step, move)
        assert judgement.accepted and judgement.state != state
        if step + 1 < len(lesson.steps):
            ends += _walk(lesson, judgement.state, step + 1)
        else:
            ends += 1
    for wrong in rules.wrong:
        judgement = lesson.judge(state, step, wrong.move)
        assert not judgement.accepted and judgement.state is state
        assert judgement.why == wrong.why
    for move in state.legal_moves():
        if move not in accepted:
            judgement = lesson.judge(state, step, move)
            assert not judgement.accepted and judgement.why is not None
    return ends


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.slug)
def test_every_accepted_move_is_legal_and_reaches_the_goal(lesson: Lesson) -> None:
    assert _walk(lesson, lesson.start(), 0) >= 1


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.slug)
def test_an_illegal_move_is_explained_by_the_engine_and_changes_nothing(lesson: Lesson) -> None:
    state = lesson.start()
    judgement = lesson.judge(state, 0, Play(["AS", "9D"]))  # never two cards at once
    assert not judgement.accepted and judgement.state is state
    assert judgement.illegal is not None


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.slug)
def test_both_languages_are_complete(lesson: Lesson) -> None:
    texts = [lesson.title, lesson.text, lesson.done]
    for step in lesson.steps:
        texts += [step.task, step.otherwise, *(w.why for w in step.wrong)]
    for words in texts:
        assert words.en.strip() and words.pl.strip()
        assert "mecz" not in words.pl.lower()
    assert len(lesson.paragraphs("pl")) == len(lesson.paragraphs("en"))


def test_the_course_follows_the_issue() -> None:
    slugs = [lesson.slug for lesson in lessons()]
    assert slugs[:8] == [
        "opening",
        "equal-or-higher",
        "four-of-a-kind",
        "three-nines",
        "picking-up",
        "must-pick-up",
        "going-out-and-tie",
        "letters",
    ]
    options = {"deck", "jokers", "beton", "three-cards", "pickup", "voluntary-pickup"}
    assert options | {"spades-back", "tie-rule", "max-actions"} == set(slugs[8:])


def test_an_option_lesson_points_to_its_rule_section_and_does_not_copy_it() -> None:
    """Each lesson of a table option names the rule section that explains that option; its
    own text says only what this table does, never a sentence of the section's."""
    from games.teaching.sections import option_section

    for lesson in lessons()[8:]:
        changed = {
            name
            for name in Rules.__dataclass_fields__
            if getattr(lesson.position.rules, name) != getattr(Rules(), name)
        }
        section = lesson.rule_section()
        assert section is not None, lesson.slug
        assert changed and all(option_section(name) == section for name in changed), lesson.slug
        for language in ("en", "pl"):
            rule_sentences = {
                sentence.strip()
                for paragraph in section.paragraphs(language)
                for sentence in paragraph.split(". ")
                if len(sentence) > 30
            }
            own = " ".join(lesson.paragraphs(language))
            assert not [s for s in rule_sentences if s in own], (lesson.slug, language)
    assert all(lesson.rule_section() is None for lesson in lessons()[:8] if not lesson.rule)


def test_the_core_course_plays_three_nines_on_the_lone_nine_of_hearts() -> None:
    """Part of the standard rules, so taught before the options, at a standard table."""
    core = lessons()[:8]
    taught = [
        (lesson, move)
        for lesson in core
        for move in lesson.steps[0].accept
        if isinstance(move, Play) and len(move.cards) == 3
    ]
    assert len(taught) == 1
    lesson, move = taught[0]
    state = lesson.start()
    assert lesson.position.rules == Rules() and state.pile == ("9H",)
    assert {card[:-1] for card in move.cards} == {"9"}
    assert lesson.judge(state, 0, move).accepted


def test_the_first_lesson_says_first_what_the_game_is_for() -> None:
    """Before any rule: get rid of your cards; the last one holding cards takes a letter;
    P-A-N ends the match."""
    aim = lessons()[0].paragraphs("en")[0]
    assert "get rid of your cards" in aim
    assert "last player still holding cards" in aim and "letter" in aim
    assert "P-A-N loses the match" in aim
    cel = lessons()[0].paragraphs("pl")[0]
    assert "się pozbyć swoich kart" in cel
    assert "ostatni gracz, któremu zostały karty" in cel and "literę" in cel
    assert "P-A-N, przegrywa partię" in cel


GOOD = """
slug = "sample"
order = 1
[en]
title = "Sample"
text = "Text."
done = "Done."
[pl]
title = "Przykład"
text = "Tekst."
done = "Gotowe."
[position]
pile = ["9H", "QD"]
hand = ["KS"]
others = [["AH"]]
[[steps]]
en = "Play the king."
pl = "Zagraj króla."
accept = [["KS"]]
[steps.otherwise]
en = "No."
pl = "Nie."
"""


def test_a_good_file_loads(tmp_path: Path) -> None:
    (tmp_path / "sample.toml").write_text(GOOD)
    [lesson] = load_lessons(tmp_path)
    assert lesson.slug == "sample" and lesson.steps[0].accept == (Play(["KS"]),)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('done = "Gotowe."', ""), "done in 'pl' is missing"),
        (('accept = [["KS"]]', ""), "accepts nothing"),
        (('accept = [["KS"]]', 'accept = [["ZZ"]]'), "ZZ"),
        (('hand = ["KS"]', 'hand = ["KS"]\ncolour = 1'), "unknown key"),
        (('slug = "sample"', 'slug = "Sample!"'), "slug must be"),
        (('accept = [["KS"]]', 'accept_any = "everything"'), "accept_any must be"),
        (('slug = "sample"', 'slug = "sample"\nrule = "no-such-section"'), "names no rule"),
    ],
)
def test_a_file_with_a_mistake_is_refused(tmp_path: Path, change, message: str) -> None:
    (tmp_path / "sample.toml").write_text(GOOD.replace(*change))
    with pytest.raises(TeachingDataError, match=message):
        load_lessons(tmp_path)
