"""Every page says what it is in a meta description, in the reader's language: the main
pages each their own, the others the site's."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_user
from tests.games.test_views import finished_hand
from tests.puzzles.factories import make_puzzle
from tests.tournaments.helpers import make_tournament

pytestmark = pytest.mark.django_db

DESCRIPTION = re.compile(r'<meta name="description" content="([^"]+)">')


def descriptions(client: Client, paths: list[str]) -> dict[str, str]:
    found = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        matches = DESCRIPTION.findall(response.content.decode())
        assert len(matches) == 1, path
        found[path] = matches[0]
    return found


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_main_pages_each_describe_themselves(language: str):
    ola = make_user("ola")
    main = [
        "/",
        reverse("rules"),
        reverse("games:leaderboard"),
        reverse("games:fairness"),
        reverse("tournaments:list"),
        reverse("tournaments:detail", args=[make_tournament(name="Spring cup").pk]),
        reverse("profile", args=["ola"]),
        finished_hand().get_absolute_url(),
        reverse("account_login"),
        reverse("account_signup"),
        reverse("games:tv"),
        reverse("puzzles:next"),
        reverse("puzzles:detail", args=[make_puzzle().pk]),
        "/api/docs",
    ]
    found = descriptions(Client(HTTP_ACCEPT_LANGUAGE=language), main)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(ola)
    found |= descriptions(client, [reverse("games:table_create")])
    default = descriptions(client, [reverse("accounts:settings")])[reverse("accounts:settings")]
    # A puzzle's page says what puzzles are, whichever puzzle it shows.
    del found[reverse("puzzles:next")]
    assert len(set(found.values())) == len(found) and default not in found.values()
    pan = {"en": "Play the Polish card game Pan online", "pl": "Graj w polską grę karcianą Pan"}
    assert default.startswith(pan[language])
    assert "Spring cup" in found[main[5]] and "ola" in found[main[6]]
    if language == "pl":  # translated, not left in English
        assert found["/"].startswith("Otwarte stoły Pan online")
