"""A table's owner seats a programmer's bot account by its name, as he seats a bot of the
site: the account then plays the seat through the Bot API. Every refusal changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from api import selectors as api_selectors
from games import services
from games.models import MatchPlayer, Table
from tests.factories import client_for, make_table, make_user

pytestmark = pytest.mark.django_db


def bot_account(username: str, **fields: object):
    return make_user(username, is_bot_account=True, **fields)


def seating(table: Table) -> list[tuple[int, int | None, str]]:
    """Who sits where: (position, user id, bot level) of every seat."""
    return list(table.seats.order_by("position").values_list("position", "user_id", "bot_level"))


def test_the_owner_seats_a_bot_account_by_name_and_the_match_makes_it_a_player():
    table = make_table(players=1, seats=3)
    robo = bot_account("RoboPan")
    seat = services.table_seat_bot_account(
        table_id=table.pk, by=table.owner, position=2, username="  robopan "
    )
    assert (seat.position, seat.user_id, seat.bot_level) == (2, robo.pk, "")
    assert seating(table) == [(0, table.owner.pk, ""), (1, None, ""), (2, robo.pk, "")]

    match = services.match_start(table_id=table.pk, by=table.owner)
    player = MatchPlayer.objects.get(match=match, user=robo)
    assert player.bot_level == "" and player.display_name == "RoboPan"
    # What the account's event stream opens with: the game it plays now.
    assert api_selectors.games_in_play(robo) == [
        {"type": "gameStart", "game": {"tableId": table.pk, "matchId": match.pk, "seat": 1}}
    ]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Enter the name of a bot account."),
        ("nobody_here", "There is no account named nobody_here."),
        ("human_ola", "human_ola is not a bot account."),
        ("banned_bot", "banned_bot is banned."),
        ("gone_bot", "There is no account named gone_bot."),
    ],
)
def test_only_an_existing_bot_account_in_good_standing_is_seated(name, message):
    table = make_table(players=1, seats=3)
    make_user("human_ola")
    bot_account("banned_bot", banned_until=timezone.now() + timedelta(days=1))
    bot_account("gone_bot", is_active=False)
    before = seating(table)
    with pytest.raises(services.Refused) as refused:
        services.table_seat_bot_account(
            table_id=table.pk, by=table.owner, position=1, username=name
        )
    assert refused.value.message == message
    assert seating(table) == before


def test_only_the_owner_seats_a_bot_account_in_a_free_seat_once_and_not_during_a_match():
    table = make_table(players=2, seats=4)
    robo = bot_account("robo_once")
    services.table_add_bot(table_id=table.pk, by=table.owner, position=2, level="greedy")
    before = seating(table)
    refusals = [
        ({"by": make_user(), "position": 3}, "Only the table's owner can do that."),
        ({"by": table.owner, "position": 1}, "This seat is taken."),  # a person sits there
        ({"by": table.owner, "position": 2}, "This seat is taken."),  # a bot of the site
        ({"by": table.owner, "position": 9}, "This seat is taken."),  # no such seat
    ]
    for arguments, message in refusals:
        with pytest.raises(services.Refused) as refused:
            services.table_seat_bot_account(table_id=table.pk, username="robo_once", **arguments)
        assert refused.value.message == message
        assert seating(table) == before

    services.table_seat_bot_account(
        table_id=table.pk, by=table.owner, position=3, username="robo_once"
    )
    services.table_remove_bot(table_id=table.pk, by=table.owner, position=2)
    seated = seating(table)
    with pytest.raises(services.Refused, match="robo_once already has a seat at this table"):
        services.table_seat_bot_account(
            table_id=table.pk, by=table.owner, position=2, username="robo_once"
        )
    assert seating(table) == seated

    # Once the match is played, its seats stay as they are until it ends.
    services.match_start(table_id=table.pk, by=table.owner)
    with pytest.raises(services.Refused, match="A match is being played"):
        services.table_remove_bot(table_id=table.pk, by=table.owner, position=3)
    assert table.seats.get(position=3).user == robo


def test_a_seat_cannot_be_given_to_a_bot_account_while_a_match_is_played():
    table = make_table(players=2, seats=3)
    services.match_start(table_id=table.pk, by=table.owner)
    bot_account("robo_late")
    before = seating(table)
    with pytest.raises(services.Refused, match="A match is being played"):
        services.table_seat_bot_account(
            table_id=table.pk, by=table.owner, position=2, username="robo_late"
        )
    assert seating(table) == before


def test_the_owner_removes_a_bot_account_but_never_a_person_so():
    table = make_table(players=2, seats=3)
    bot_account("robo_out")
    services.table_seat_bot_account(
        table_id=table.pk, by=table.owner, position=2, username="robo_out"
    )
    services.table_remove_bot(table_id=table.pk, by=table.owner, position=2)
    assert table.seats.get(position=2).is_empty
    before = seating(table)
    with pytest.raises(services.Refused, match="There is no bot in this seat"):
        services.table_remove_bot(table_id=table.pk, by=table.owner, position=1)
    assert seating(table) == before


# --- the table page -------------------------------------------------------------------------


def test_the_owner_sees_the_bot_account_field_at_each_free_seat_and_others_do_not():
    table = make_table(players=1, seats=3)
    url = f"/tables/{table.pk}/"
    owner_page = client_for(table.owner).get(url).content.decode()
    assert owner_page.count('data-testid="add-bot-account"') == 2
    assert f'hx-post="/tables/{table.pk}/bot-account/"' in owner_page
    other_page = client_for(make_user()).get(url).content.decode()
    assert 'data-testid="add-bot-account"' not in other_page


def test_seating_from_the_page_clears_the_notice_and_shows_the_account_as_a_bot():
    table = make_table(players=1, seats=2)
    bot_account("robo_page")
    client = client_for(table.owner)
    response = client.post(
        f"/tables/{table.pk}/bot-account/",
        {"position": "1", "username": "robo_page"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="notice"' in html and 'hx-swap-oob="true"' in html
    assert 'data-testid="notice"' not in html
    page = client.get(f"/tables/{table.pk}/").content.decode()
    assert "robo_page" in page and 'data-testid="bot-account"' in page
    assert 'data-testid="remove-bot-account"' in page


def test_a_refusal_from_the_page_is_shown_in_the_notice_in_the_owners_language():
    table = make_table(players=1, seats=2)
    make_user("human_page")
    client = client_for(table.owner)
    response = client.post(
        f"/tables/{table.pk}/bot-account/",
        {"position": "1", "username": "human_page"},
        headers={"HX-Request": "true"},
    )
    assert 'data-testid="notice">human_page is not a bot account.<' in response.content.decode()
    with translation.override("pl"):
        polish = client.post(
            f"/tables/{table.pk}/bot-account/",
            {"position": "1", "username": "human_page"},
            headers={"HX-Request": "true", "Accept-Language": "pl"},
        )
    assert "human_page nie jest kontem bota." in polish.content.decode()
    assert table.seats.get(position=1).is_empty


def test_without_htmx_the_page_redirects_back_with_the_refusal_as_a_message():
    table = make_table(players=1, seats=2)
    response = client_for(table.owner).post(
        f"/tables/{table.pk}/bot-account/", {"position": "x", "username": "ghost"}, follow=True
    )
    assert response.redirect_chain[-1][0] == f"/tables/{table.pk}/"
    assert "There is no account named ghost." in response.content.decode()
    assert table.seats.get(position=1).is_empty


def test_a_visitor_is_sent_to_log_in_and_nothing_changes():
    table = make_table(players=1, seats=2)
    bot_account("robo_visitor")
    response = client_for().post(
        f"/tables/{table.pk}/bot-account/", {"position": "1", "username": "robo_visitor"}
    )
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert table.seats.get(position=1).is_empty
