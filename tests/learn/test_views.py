"""Learn over HTTP: the course, a lesson's moves judged (a wrong or illegal move
explained with nothing changed, malformed input refused), progress kept per account and
never written for a visitor, and the first match against a bot."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Match, Table
from learn.forms import path_text
from learn.lessons import lesson, lessons
from learn.models import LessonProgress
from tests.factories import client_for, make_user

pytestmark = pytest.mark.django_db


def _post(client: Client, slug: str, path: str = "", **fields: object):
    data = {"version": len(path.split()), "path": path, **fields}
    return client.post(reverse("learn:lesson", args=[slug]), data)


def _play(client: Client, slug: str, cards: str, path: str = ""):
    return _post(client, slug, path, action="play", cards=cards)


def _solve(client: Client, slug: str):
    """Plays every step of the lesson ``slug`` with its first accepted move."""
    moves = []
    response = None
    for step in lesson(slug).steps:
        move = step.accept[0]
        fields = (
            {"action": "pickup", "count": move.count}
            if hasattr(move, "count")
            else {"action": "play", "cards": ",".join(move.cards)}
        )
        response = _post(client, slug, path_text(moves), **fields)
        assert response.status_code == 200
        moves.append(move)
    return response


def _hand(page: str) -> list[str]:
    section = re.search(r'<section id="my-hand".*?</section>', page, re.S).group(0)
    return re.findall(r'class="card-button[^"]*" data-card="([^"]+)"', section)


def test_the_course_lists_every_lesson_in_order():
    page = client_for().get(reverse("learn:course")).content.decode()
    titles = [each.title.en for each in lessons()]
    assert [t for t in titles if t in page] == titles
    assert page.index(titles[0]) < page.index(titles[-1])


def test_a_lesson_shows_its_position_on_the_table_and_its_task():
    page = client_for().get(reverse("learn:lesson", args=["opening"])).content.decode()
    assert "Open the hand: play the nine of hearts." in page
    assert _hand(page) == ["9H", "10D", "QC", "KS", "AH"]
    assert 'aria-label="Play nine of hearts"' in page  # the table's own card buttons
    assert 'action="/learn/opening/"' in page and "ws-send" not in page


def _posted_cards(page: str) -> list[str]:
    """The cards of the hand whose button posts a move to the lesson."""
    section = re.search(r'<section id="my-hand".*?</section>', page, re.S).group(0)
    return re.findall(r'<form method="post"[^>]*>.*?data-card="([^"]+)"', section, re.S)


def test_a_card_that_may_not_be_played_posts_its_move_to_be_explained():
    page = client_for().get(reverse("learn:lesson", args=["opening"])).content.decode()
    assert _posted_cards(page) == ["9H", "10D", "QC", "KS", "AH"]
    assert 'data-card="KS" aria-disabled="true" tabindex="-1"' in page
    # Once the lesson is done its cards post nothing: there is no step left to judge.
    done = _play(client_for(), "opening", "9H").content.decode()
    assert "Lesson complete." in done and _posted_cards(done) == []


def test_a_right_move_shows_the_next_step_with_the_answer_played():
    page = _play(client_for(), "equal-or-higher", "QH").content.decode()
    assert "Step 2 of 2" in page and "Your opponent played a king." in page
    assert "Player 2 played K♦" in page
    assert _hand(page) == ["9D", "JC", "AS"]
    assert 'name="path" value="QH"' in page


def test_a_legal_but_wrong_move_is_explained_and_changes_nothing():
    page = _play(client_for(), "equal-or-higher", "AS").content.decode()
    assert "The ace may go on a queen too, but keep it for later" in page
    assert "Step 1 of 2" in page and _hand(page) == ["9D", "JC", "QH", "AS"]


def test_an_illegal_move_gets_the_engines_reason_in_words():
    page = _play(client_for(), "equal-or-higher", "9D").content.decode()
    assert "a 9 cannot go on a Q" in page
    assert _hand(page) == ["9D", "JC", "QH", "AS"]


def test_a_wrong_move_is_explained_in_polish():
    client = Client(HTTP_ACCEPT_LANGUAGE="pl")
    page = _play(client, "equal-or-higher", "AS").content.decode()
    assert "As też może pójść na damę" in page and "Krok 1 z 2" in page


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"action": "play", "cards": "ZZ"}, "That is not a move"),
        ({"action": "jump", "cards": "QH"}, "This is not a move of the lesson."),
        ({"action": "play", "cards": "QH", "version": 1}, "not the one shown"),
        ({"action": "play", "cards": "AS", "path": "AS"}, "not the one shown"),
        ({"action": "play", "cards": "QH", "path": "QH AS AS", "version": 3}, "not the one shown"),
    ],
)
def test_malformed_input_is_refused_with_a_message_and_nothing_recorded(fields, message):
    user = make_user()
    data = {"version": 0, "path": "", **fields}
    response = client_for(user).post(reverse("learn:lesson", args=["equal-or-higher"]), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not LessonProgress.objects.exists()


def test_an_unknown_lesson_is_not_found():
    assert client_for().get("/learn/no-such-lesson/").status_code == 404


def test_solving_the_last_step_records_the_lesson_for_the_account_once():
    user = make_user()
    client = client_for(user)
    page = _solve(client, "equal-or-higher").content.decode()
    assert "Lesson complete." in page
    _solve(client, "equal-or-higher")
    assert list(LessonProgress.objects.values_list("user", "lesson")) == [
        (user.pk, "equal-or-higher")
    ]
    course = client.get(reverse("learn:course")).content.decode()
    entry = re.search(r'<li data-lesson="equal-or-higher".*?</li>', course, re.S).group(0)
    assert "data-done" in entry and " hidden" not in entry


def test_the_course_shows_how_far_an_account_is():
    user = make_user()
    client = client_for(user)
    total = len(lessons())
    page = client.get(reverse("learn:course")).content.decode()
    assert f'<progress max="{total}" value="0"' in page
    assert f"Lessons done: 0 of {total}" in page
    for slug in ("opening", "equal-or-higher"):
        _solve(client, slug)
    page = client.get(reverse("learn:course")).content.decode()
    assert f'<progress max="{total}" value="2"' in page
    assert f"Lessons done: 2 of {total}</p>" in page
    polish = Client(HTTP_ACCEPT_LANGUAGE="pl")
    polish.force_login(user)
    text = polish.get(reverse("learn:course")).content.decode()
    assert f"Ukończone lekcje: 2 z {total}</p>" in text
    # A visitor's count is his browser's: the page gives the words, learn.js the number.
    visitor = client_for().get(reverse("learn:course")).content.decode()
    assert f'data-template="Lessons done: {{done}} of {total}"' in visitor


def test_each_lesson_says_where_it_stands_in_the_course():
    total = len(lessons())
    for number, each in enumerate(lessons(), 1):
        page = client_for().get(reverse("learn:lesson", args=[each.slug])).content.decode()
        assert f"Lesson {number} of {total}" in page


def test_a_step_short_of_the_end_records_nothing():
    _play(client_for(make_user()), "equal-or-higher", "QH")
    assert not LessonProgress.objects.exists()


def test_a_visitors_progress_is_never_written_to_an_account():
    """Decided: a visitor's progress stays in his browser; signing in afterwards does not
    carry it over (the page never posts it)."""
    client = client_for()
    page = _solve(client, "opening").content.decode()
    assert "Lesson complete." in page and "data-visitor" in page
    assert not LessonProgress.objects.exists()
    user = make_user()
    client.force_login(user)
    client.get(reverse("learn:course"))
    assert not LessonProgress.objects.exists()


def test_the_last_lesson_offers_the_first_match_or_a_sign_up():
    last = lessons()[-1].slug
    visitor = _solve(client_for(), last).content.decode()
    assert 'data-testid="first-match-signup"' in visitor
    signed_in = _solve(client_for(make_user()), last).content.decode()
    assert "Play your first match against a bot" in signed_in


def test_the_first_match_is_a_table_against_a_bot_in_play():
    user = make_user()
    response = client_for(user).post(reverse("learn:first_match"))
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == table.get_absolute_url()
    seats = list(table.seats.order_by("position"))
    assert seats[0].user == user and seats[1].bot_level == "random"
    assert Match.objects.filter(table=table).exists()


def test_a_visitor_cannot_start_a_first_match():
    response = client_for().post(reverse("learn:first_match"))
    assert response.status_code == 302 and "login" in response["Location"]
    assert not Table.objects.exists()


@pytest.mark.parametrize("language", ["en", "pl"])
def test_an_option_lesson_shows_its_rule_section_from_the_rules_page(language: str):
    from django.utils import translation

    from games.teaching.sections import rule_sections

    section = next(s for s in rule_sections() if s.anchor == "tie-rule")
    page = (
        client_for()
        .get(reverse("learn:lesson", args=["tie-rule"]), HTTP_ACCEPT_LANGUAGE=language)
        .content.decode()
    )
    rule = re.search(r'<section class="lesson-rule".*?</section>', page, re.S).group(0)
    assert 'href="/rules/#tie-rule"' in rule
    assert section.title.in_language(language) in rule
    for paragraph in section.paragraphs(language):
        assert paragraph in rule.replace("&#x27;", "'")
    with translation.override(language):
        assert translation.gettext("From the rules:") in rule
    # What this table does follows, in the lesson's own words.
    own = {
        "en": "This table allows a tie only with aces.",
        "pl": "Ten stół uznaje remis tylko asami.",
    }
    assert own[language] in page
