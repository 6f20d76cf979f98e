"""A bot account (a programmer's bot playing through the Bot API) registers for a
tournament only where the tournament allows bots; once the tournament starts it plays its
seat as a person does, and is never rated."""

from __future__ import annotations

import pytest
from django.utils import translation

from api import selectors as api_selectors
from games.models import MatchPlayer
from games.services import Refused
from tests.factories import client_for, make_user
from tests.tournaments.helpers import make_tournament, started
from tournaments import services
from tournaments.models import TournamentEntry

pytestmark = pytest.mark.django_db


def bot_account(username: str):
    return make_user(username, is_bot_account=True)


def test_a_bot_account_registers_where_bots_are_allowed_and_plays_its_seat():
    robo = bot_account("robo_cup")
    tournament = make_tournament(bots_allowed=True, bots=2, users=[make_user("ola_cup")])
    entry = services.tournament_register(tournament_id=tournament.pk, user=robo)
    assert (entry.user, entry.bot_level, entry.display_name) == (robo, "", "robo_cup")

    started(tournament)
    player = MatchPlayer.objects.get(
        user=robo, match__table__tournament_table__tournament=tournament
    )
    assert player.bot_level == ""
    assert api_selectors.games_in_play(robo) == [
        {
            "type": "gameStart",
            "game": {
                "tableId": player.match.table_id,
                "matchId": player.match_id,
                "seat": player.seat,
            },
        }
    ]


def test_a_bot_account_is_refused_where_bots_are_not_allowed_and_nothing_changes():
    robo = bot_account("robo_nope")
    tournament = make_tournament(bots_allowed=False)
    with pytest.raises(Refused) as refused:
        services.tournament_register(tournament_id=tournament.pk, user=robo)
    assert refused.value.message == "Bot accounts may not register in this tournament."
    assert not TournamentEntry.objects.filter(tournament=tournament).exists()
    with translation.override("pl"), pytest.raises(Refused) as polish:
        services.tournament_register(tournament_id=tournament.pk, user=robo)
    assert polish.value.message == "Konta botów nie mogą się zapisać do tego turnieju."
    # A person still registers there.
    services.tournament_register(tournament_id=tournament.pk, user=make_user("ola_nope"))
    assert list(tournament.entries.values_list("display_name", flat=True)) == ["ola_nope"]


def test_the_page_offers_a_bot_account_the_register_button_only_where_bots_are_allowed():
    robo = bot_account("robo_page_cup")
    client = client_for(robo)
    open_to_bots = make_tournament(bots_allowed=True)
    page = client.get(open_to_bots.get_absolute_url()).content.decode()
    assert 'data-testid="register"' in page
    response = client.post(f"/tournaments/{open_to_bots.pk}/register/", follow=True)
    assert "You are registered" in response.content.decode()
    assert open_to_bots.entries.filter(user=robo).exists()

    closed_to_bots = make_tournament(bots_allowed=False)
    page = client.get(closed_to_bots.get_absolute_url()).content.decode()
    assert 'data-testid="register"' not in page
    assert 'data-testid="bot-accounts-refused"' in page
    response = client.post(f"/tournaments/{closed_to_bots.pk}/register/", follow=True)
    assert "Bot accounts may not register in this tournament." in response.content.decode()
    assert not closed_to_bots.entries.exists()
