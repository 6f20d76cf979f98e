"""The puzzle pages: the answer stays hidden until the attempt, which is rated once."""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.test import Client

from games.engine import HandState, Rules
from puzzles import selectors
from puzzles.models import Puzzle, PuzzleAttempt, PuzzleRating
from puzzles.services import puzzle_save
from tests.factories import client_for, make_user
from tests.puzzles.factories import go_out_candidate, make_puzzle

pytestmark = pytest.mark.django_db


def _same_position_other_answer(puzzle: Puzzle) -> Puzzle:
    """A puzzle of the same position whose answer, chances and themes are the opposite."""
    return Puzzle.objects.create(
        position=puzzle.position,
        solutions=[puzzle.wrong["move"]],
        chances=list(reversed(puzzle.chances)),
        wrong={"move": puzzle.solutions[0], "loss": 0.9},
        best_loss=0.1,
        tolerance=0.05,
        playouts=80,
        themes=["pick_up"],
        content_hash="other",
    )


def _without_ids(html: str, *puzzles: Puzzle) -> str:
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    html = re.sub(r'"X-CSRFToken": "[^"]*"', "", html)
    for p in puzzles:
        html = html.replace(f"/puzzles/{p.pk}/", "/puzzles/ID/").replace(
            f'data-puzzle="{p.pk}"', 'data-puzzle="ID"'
        )
    return html


def test_nothing_of_the_answer_reaches_the_page_or_a_refusal_before_the_attempt() -> None:
    """Two puzzles of one position with opposite answers draw the very same page: so
    the page cannot hold the answer. Likewise the refusal of an illegal move."""
    puzzle = make_puzzle()
    other = _same_position_other_answer(puzzle)
    client = client_for(make_user())
    pages = [client.get(f"/puzzles/{p.pk}/").content.decode() for p in (puzzle, other)]
    assert _without_ids(pages[0], puzzle) == _without_ids(pages[1], other)
    assert 'data-testid="puzzle-result"' not in pages[0]
    assert 'data-testid="puzzle-themes"' not in pages[0]
    refusals = [
        client.post(f"/puzzles/{p.pk}/", {"cards": "AS"}).content.decode() for p in (puzzle, other)
    ]
    assert _without_ids(refusals[0], puzzle) == _without_ids(refusals[1], other)
    assert "/puzzles/" in client.get("/puzzles/").content.decode()


def test_a_right_move_is_explained_and_rated_once_whatever_is_sent_again() -> None:
    puzzle = make_puzzle()
    user = make_user()
    client = client_for(user)
    answer = client.post(f"/puzzles/{puzzle.pk}/", {"cards": "KH"})
    assert answer.status_code == 200
    text = answer.content.decode()
    assert 'data-correct="true"' in text and "to play K♥" in text
    assert "Right: to play K♥ leaves your chance of the letter at 0 %, the lowest" in text
    assert "Your puzzle rating: 1500 →" in text
    rating = PuzzleRating.objects.get(user=user)
    puzzle.refresh_from_db()
    after = (rating.mu, rating.sigma, puzzle.mu, puzzle.sigma, puzzle.attempts)
    assert rating.mu > 25 and puzzle.mu < 25 and puzzle.attempts == 1

    second_tab = client_for(user)
    again = [
        client.post(f"/puzzles/{puzzle.pk}/", {"cards": "KH"}),  # the same request again
        client.post(f"/puzzles/{puzzle.pk}/", {"pickup": "2"}),  # another answer
        client.get(f"/puzzles/{puzzle.pk}/"),  # a reload
        second_tab.post(f"/puzzles/{puzzle.pk}/", {"pickup": "2"}),
    ]
    assert all('data-correct="true"' in r.content.decode() for r in again)
    assert "Your first answer counted" in again[1].content.decode()
    rating.refresh_from_db()
    puzzle.refresh_from_db()
    assert (rating.mu, rating.sigma, puzzle.mu, puzzle.sigma, puzzle.attempts) == after
    assert PuzzleAttempt.objects.filter(user=user).count() == 1


def test_a_wrong_move_says_what_it_costs_and_what_was_best() -> None:
    puzzle = make_puzzle()
    user = make_user()
    text = client_for(user).post(f"/puzzles/{puzzle.pk}/", {"pickup": "2"}).content.decode()
    assert 'data-correct="false"' in text
    # No article before the number: "a 82 %" would be wrong English for some chances.
    assert "That costs you: to pick up 2 cards leaves your chance of the letter at 100 %" in text
    assert "the best was to play K♥ (0 %)" in text
    assert PuzzleRating.objects.get(user=user).mu < 25


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"cards": "AS"}, "you do not hold A♠"),
        ({"pickup": "3"}, "take"),
        ({"pickup": "x"}, "That is not a move"),
        ({}, "That is not a move"),
    ],
)
def test_an_illegal_move_is_explained_and_changes_nothing(form: dict, says: str) -> None:
    puzzle = make_puzzle()
    user = make_user()
    answer = client_for(user).post(f"/puzzles/{puzzle.pk}/", form)
    assert answer.status_code == 400
    assert says in answer.content.decode()
    assert 'data-testid="puzzle-result"' not in answer.content.decode()
    assert not PuzzleAttempt.objects.exists() and not PuzzleRating.objects.exists()
    puzzle.refresh_from_db()
    assert puzzle.attempts == 0 and puzzle.mu == 25


def test_a_visitor_solves_without_a_rating_and_is_given_the_next_puzzle() -> None:
    puzzle = make_puzzle()
    visitor = client_for()
    text = visitor.post(f"/puzzles/{puzzle.pk}/", {"cards": "KH"}).content.decode()
    assert 'data-correct="true"' in text and "Your puzzle rating" not in text
    assert not PuzzleAttempt.objects.exists() and not PuzzleRating.objects.exists()
    assert 'data-testid="no-puzzle"' in visitor.get("/puzzles/").content.decode()


def test_the_next_puzzle_is_untried_and_nearest_the_players_rating() -> None:
    puzzle = make_puzzle(mu=30.0, content_hash="a")
    near = make_puzzle(mu=26.0)
    user = make_user()
    assert selectors.next_puzzle(user=user) == near
    client_for(user).post(f"/puzzles/{near.pk}/", {"cards": "KH"})
    assert selectors.next_puzzle(user=user) == puzzle
    assert f'data-puzzle="{puzzle.pk}"' in client_for(user).get("/puzzles/").content.decode()


def test_the_history_lists_attempts_newest_first_with_the_rating_change() -> None:
    first = make_puzzle(content_hash="a")
    second = make_puzzle()
    user = make_user()
    client = client_for(user)
    client.post(f"/puzzles/{first.pk}/", {"cards": "KH"})
    client.post(f"/puzzles/{second.pk}/", {"pickup": "2"})
    rows = selectors.attempt_history(user)
    assert [r.puzzle_id for r in rows] == [second.pk, first.pk]
    assert [r.correct for r in rows] == [False, True]
    assert rows[1].change.startswith("+") and rows[0].change.startswith("-")
    text = client.get("/puzzles/history/").content.decode()
    assert text.count('data-testid="history-row"') == 2
    assert client_for().get("/puzzles/history/").status_code == 302


def test_the_lobby_shows_the_days_puzzle_the_same_all_day() -> None:
    first = make_puzzle(content_hash="a")
    second = make_puzzle()
    day = date(2026, 12, 3)
    assert selectors.daily_puzzle(today=day) == selectors.daily_puzzle(today=day)
    assert {selectors.daily_puzzle(today=day), selectors.daily_puzzle(today=date(2026, 12, 4))} == {
        first,
        second,
    }
    text = client_for().get("/").content.decode()
    assert 'data-testid="daily-puzzle"' in text
    assert re.search(r'href="/puzzles/(\d+)/" data-testid="daily-puzzle-link"', text)


def test_the_lobby_has_no_daily_puzzle_without_puzzles() -> None:
    assert 'data-testid="daily-puzzle"' not in client_for().get("/").content.decode()


def test_the_same_position_is_kept_once() -> None:
    assert puzzle_save(candidate=go_out_candidate()) is not None
    assert puzzle_save(candidate=go_out_candidate()) is None


def test_the_puzzle_page_and_its_answer_speak_polish() -> None:
    puzzle = make_puzzle()
    polish = Client(HTTP_ACCEPT_LANGUAGE="pl")
    polish.force_login(make_user())
    page = polish.get(f"/puzzles/{puzzle.pk}/").content.decode()
    assert "Twój ruch. Który ruch daje ci najmniejszą szansę na literę?" in page
    answer = polish.post(f"/puzzles/{puzzle.pk}/", {"pickup": "2"}).content.decode()
    assert "To cię kosztuje: wzięcie 2 kart zostawia ci 100 % szans na literę" in answer
    assert "najlepsze było zagranie K♥ (0 %)" in answer


def test_the_board_shows_the_others_cards_and_who_is_out_of_the_hand() -> None:
    state = HandState.from_position(
        rules=Rules(), hands=[["KH", "9S"], [], ["AS", "AD", "QC"]], pile=["9H", "QD"], to_move=0
    )
    puzzle = make_puzzle(position=state.view_for(0), content_hash="three")
    text = client_for().get(f"/puzzles/{puzzle.pk}/").content.decode()
    assert "Player 2: out of this hand, safe" in text
    assert "Player 3: 3 cards in hand" in text
    assert 'data-card="KH" tabindex="0" autofocus' in text
    assert 'data-card="9S" tabindex="-1" aria-disabled="true"' in text
    assert "Pick up 1 card" in text


def test_the_rules_of_the_position_are_words_linked_to_their_sections() -> None:
    """'The rules of this position' lists each rule in words, linked to its section of
    /rules/, as a table's page does (not the selector's records)."""
    puzzle = make_puzzle()
    text = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/puzzles/{puzzle.pk}/").content.decode()
    rules = text.split("The rules of this position", 1)[1]
    assert "RuleLine(" not in rules
    assert '<a href="/rules/#deck">24-card deck, base card 9♥.</a>' in rules


def test_the_solvers_own_actions_read_in_the_second_person_in_polish() -> None:
    """The log above a puzzle says the solver's own actions to him ('Zagrałeś…'), not
    'Ty zagrał…', the third person's verb after 'you'."""
    puzzle = make_puzzle()
    position = dict(puzzle.position)
    seat, other = position["seat"], (position["seat"] + 1) % position["players"]
    position["history"] = [
        {"seat": seat, "type": "play", "cards": ["10S"]},
        {"seat": other, "type": "pickup", "cards": ["10S"]},
        {"seat": seat, "type": "pickup", "cards": ["JC"]},
        {"seat": other, "type": "play", "cards": ["QD"]},
    ]
    Puzzle.objects.filter(pk=puzzle.pk).update(position=position)
    polish = Client(HTTP_ACCEPT_LANGUAGE="pl").get(f"/puzzles/{puzzle.pk}/").content.decode()
    assert "Zagrałeś 10♠" in polish and "Wziąłeś J♣" in polish
    assert "Gracz 2 zagrał Q♦" in polish and "Gracz 2 wziął 10♠" in polish
    assert "Ty zagrał" not in polish and "Ty wziął" not in polish
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/puzzles/{puzzle.pk}/").content.decode()
    assert "You played 10♠" in english and "You picked up J♣" in english
