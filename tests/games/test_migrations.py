"""The data migrations of games on real rows."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps
from django.utils import translation

from games.models import Match, MatchPlayer, Table
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

names = import_module("games.migrations.0011_names_in_the_readers_language")


def test_names_stored_in_one_language_are_blanked_and_named_at_display():
    ola = make_user("ola")
    english = make_table(ola, players=1, name="ola's table")
    polish = make_table(ola, players=1, name="Stół gracza ola")
    own = make_table(ola, players=1, name="Stół gracza janek")  # not his own default name
    match = Match.objects.create(table=english, state={})
    players = {
        name: MatchPlayer.objects.create(
            match=match, seat=seat, table_position=seat, user=user, bot_level=level,
            display_name=name,
        )
        for seat, (name, user, level) in enumerate(
            [
                ("Bot: zachłanny", None, "greedy"),
                ("Bot: strong (ISMCTS)", None, "ismcts"),  # a level's name of an older release
                ("Bot 1", None, "random"),  # a tournament's bot
                ("ola", ola, "greedy"),  # a person a bot plays for
            ]
        )
    }  # fmt: skip

    names.blank_language_names(apps, None)

    for table in (english, polish, own):
        table.refresh_from_db()
    assert (english.name, polish.name, own.name) == ("", "", "Stół gracza janek")
    stored = {name: MatchPlayer.objects.get(pk=p.pk).display_name for name, p in players.items()}
    assert stored == {
        "Bot: zachłanny": "",
        "Bot: strong (ISMCTS)": "",
        "Bot 1": "Bot 1",
        "ola": "ola",
    }
    with translation.override("en"):
        assert Table.objects.get(pk=polish.pk).title == "ola's table"
        assert MatchPlayer.objects.get(pk=players["Bot: zachłanny"].pk).name == "Bot: greedy"

    names.name_in_english(apps, None)
    assert Table.objects.get(pk=polish.pk).name == "ola's table"
    assert MatchPlayer.objects.get(pk=players["Bot: zachłanny"].pk).display_name == "Bot: greedy"
