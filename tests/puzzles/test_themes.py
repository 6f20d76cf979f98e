"""Puzzle themes: their words are data in both languages, and a player picks one on
/puzzles/ to be given puzzles of that theme."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.teaching import TeachingDataError
from puzzles.finder import THEMES
from puzzles.themes import THEMES_FILE, load_themes
from tests.factories import client_for, make_user
from tests.puzzles.factories import make_puzzle


def test_every_theme_the_finder_names_has_a_name_and_description_in_both_languages() -> None:
    themes = load_themes()
    assert [t.key for t in themes] == list(THEMES)
    for theme in themes:
        for words in (theme.name, theme.description):
            assert words.en and words.pl and words.en != words.pl
    assert len({t.name.pl for t in themes}) == len(themes)


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda text: text.replace("[play_low.pl]", "[play_lower.pl]"), "play_lower"),
        (lambda text: text.replace('name = "Play low"\n', ""), "play_low's name"),
        (lambda text: text.replace("[best_card.pl]", "[best_card.de]"), "best_card"),
    ],
)
def test_a_themes_file_with_a_theme_or_a_text_missing_is_refused(
    tmp_path: Path, edit, says: str
) -> None:
    path = tmp_path / "themes.toml"
    path.write_text(edit(THEMES_FILE.read_text()))
    with pytest.raises(TeachingDataError, match=says):
        load_themes(path)


def _shown(html: str) -> int | None:
    found = re.search(r'data-testid="puzzle" data-puzzle="(\d+)"', html)
    return int(found.group(1)) if found else None


@pytest.mark.django_db
def test_a_player_picks_a_theme_and_is_given_puzzles_of_that_theme_only() -> None:
    # The nearest the player's rating has another theme: only the choice gives the far one.
    other = make_puzzle(content_hash="other", themes=["go_out", "play_on"], mu=25.0)
    picked = make_puzzle(content_hash="picked", themes=["play_low"], mu=30.0)
    client = client_for(make_user())
    assert _shown(client.get("/puzzles/").content.decode()) == other.pk

    page = client.get("/puzzles/", {"theme": "play_low"}).content.decode()
    assert _shown(page) == picked.pk
    assert '<option value="play_low" selected>Play low (1)</option>' in page
    assert '<option value="go_out">Go out in time (1)</option>' in page
    assert '<option value="pick_up">Pick up to win (0)</option>' in page
    assert "The lowest card you may play is the best one." in page
    # The answer's form and the next puzzle keep the theme.
    assert f'action="/puzzles/{picked.pk}/?theme=play_low"' in page
    answer = client.post(f"/puzzles/{picked.pk}/?theme=play_low", {"cards": "KH"})
    answer_page = answer.content.decode()
    assert 'href="/puzzles/?theme=play_low" data-testid="next-puzzle"' in answer_page
    assert '<a href="/puzzles/?theme=play_low">Play low</a>' in answer_page

    done = client.get("/puzzles/", {"theme": "play_low"}).content.decode()
    assert _shown(done) is None
    assert "You have tried every puzzle of this theme." in done
    assert _shown(client.get("/puzzles/", {"theme": "go_out"}).content.decode()) == other.pk


@pytest.mark.django_db
def test_the_themes_are_chosen_in_polish() -> None:
    make_puzzle(themes=["play_on"])
    client = client_for()
    client.cookies["django_language"] = "pl"
    page = client.get("/puzzles/", {"theme": "play_on"}).content.decode()
    assert '<option value="play_on" selected>Graj dalej, nie bierz kart (1)</option>' in page
    assert "Wzięcie kart wygląda bezpiecznie, a kosztuje" in page
    assert "Dowolny motyw" in page


@pytest.mark.django_db
def test_an_unknown_theme_is_refused_with_a_clear_message() -> None:
    make_puzzle()
    answer = client_for().get("/puzzles/", {"theme": "fork"})
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "There is no such theme." in text and _shown(text) is None
