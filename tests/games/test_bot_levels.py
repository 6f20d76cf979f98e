"""The bot levels say what they are: the strong one names the budget it plays with."""

from __future__ import annotations

from games import bots
from games.models import BotLevel


def test_the_strong_level_names_the_playouts_it_searches():
    assert f"{bots.DEFAULT_PLAYOUTS} playouts" in str(BotLevel.ISMCTS.label)
    assert set(BotLevel.values) == set(bots.LEVELS)
