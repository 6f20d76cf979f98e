"""Pan TV: which live table it shows, its page and the lobby's small TV."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import renderers, selectors, services
from games.models import RATING_MU, Rating
from games.ratings import DISPLAY_SCALE
from games.speeds import Speed
from tests.factories import client_for, make_table, make_user, play_to_pan_on_time, seated_users

pytestmark = pytest.mark.django_db


def rate(user, shown: int, speed: Speed = Speed.BLITZ) -> None:
    """Give ``user`` the shown rating ``shown`` in ``speed`` (the tests' tables are blitz;
    established: no "?")."""
    Rating.objects.update_or_create(
        user=user,
        speed=speed,
        defaults={"mu": RATING_MU + (shown - 1500) / DISPLAY_SCALE, "matches": 20},
    )


def live_table(*ratings: int, **fields: object):
    """A table whose match is in play, its people rated ``ratings`` (seat order)."""
    table = make_table(players=len(ratings), seats=len(ratings), **fields)
    for user, shown in zip(seated_users(table), ratings, strict=True):
        rate(user, shown, table.speed)
    services.match_start(table_id=table.pk, by=table.owner)
    return table


# --- the selector ---------------------------------------------------------------------------


def test_the_table_of_the_highest_mean_rating_is_on_tv():
    live_table(1900, 1300, name="Mixed")  # mean 1600
    best = live_table(1700, 1650, name="Strong")  # mean 1675
    live_table(1500, 1500, name="Newcomers")
    tv = selectors.tv_table()
    assert tv is not None and tv.table == best
    assert tv.strength == 1675


def test_a_bot_does_not_count_in_the_mean():
    with_bot = make_table(players=1, seats=2, name="With a bot")
    rate(with_bot.owner, 1700)
    services.table_add_bot(table_id=with_bot.pk, by=with_bot.owner, position=1, level="random")
    services.match_start(table_id=with_bot.pk, by=with_bot.owner)
    live_table(1650, 1650, name="People")
    assert selectors.tv_table().table == with_bot


def test_a_table_of_bots_alone_is_never_on_tv():
    owner = make_user(is_bot_account=True)
    table = make_table(owner, players=1, seats=2)
    services.table_add_bot(table_id=table.pk, by=owner, position=1, level="random")
    services.match_start(table_id=table.pk, by=owner)
    assert selectors.tv_table() is None


def test_a_private_table_is_never_on_tv():
    live_table(2000, 2000, name="Secret", is_public=False)
    public = live_table(1500, 1500, name="Open")
    assert selectors.tv_table().table == public


def test_a_correspondence_table_is_never_on_tv():
    letters = live_table(2000, 2000, name="By letter", move_days=1)
    live = live_table(1500, 1500, name="Real time")
    assert selectors.tv_table().table == live
    assert not selectors.tv_still_live(letters.pk)


def test_a_finished_match_is_not_on_tv_nor_a_table_not_started():
    play_to_pan_on_time(make_table(players=2, base_seconds=30))
    make_table(players=2, name="Waiting")
    assert selectors.tv_table() is None
    live = live_table(1400, 1400)
    assert selectors.tv_table().table == live


def test_a_tie_goes_to_the_oldest_table_whatever_the_order_of_the_starts():
    first = make_table(players=2, name="First")
    second = make_table(players=2, name="Second")
    for table in (second, first):  # the later table's match starts first
        services.match_start(table_id=table.pk, by=table.owner)
    assert selectors.tv_table().table == first
    assert selectors.tv_match().table == first


# Time controls of each real-time speed (the tests' default, 3+2, is blitz).
CLOCKS = {
    Speed.BULLET: {"base_seconds": 60, "increment_seconds": 0},
    Speed.BLITZ: {"base_seconds": 180, "increment_seconds": 2},
    Speed.RAPID: {"base_seconds": 600, "increment_seconds": 5},
    Speed.CLASSICAL: {"base_seconds": 1800, "increment_seconds": 0},
}


def test_each_speed_has_a_channel_showing_its_best_match():
    best = {}
    for offset, (speed, clock) in enumerate(CLOCKS.items()):
        live_table(1500 + offset, 1500, name=f"Weaker {speed}", **clock)
        best[speed] = live_table(1700 + offset, 1700, name=f"Best {speed}", **clock)
    live_table(2100, 2100, name="Letters", move_days=1)  # correspondence: no channel
    for speed, table in best.items():
        assert table.speed == speed
        assert selectors.tv_table(speed).table == table
        assert selectors.tv_match(speed).table == table
    # The main channel: the best of them all, as before.
    assert selectors.tv_table().table == best[Speed.CLASSICAL]
    assert selectors.tv_table(Speed.BULLET).strength == 1700


def test_a_channel_of_a_speed_with_nothing_live_shows_nothing():
    live_table(1500, 1500, name="Blitz only")
    assert selectors.tv_table(Speed.BULLET) is None
    assert selectors.tv_table(Speed.BLITZ) is not None


# --- the page ---------------------------------------------------------------------------------


def test_with_nothing_live_the_tv_says_so_and_offers_the_lobby():
    make_table(players=2, name="Waiting")
    page = client_for().get(reverse("games:tv")).content.decode()
    assert "No match is being played at a public table just now." in page
    assert 'data-testid="tv-lobby"' in page
    assert "ws-connect" not in page
    assert json.loads(client_for().get(reverse("games:tv_current")).content) == {"table": None}


def test_the_tv_shows_the_table_as_a_spectator_sees_it_live():
    table = live_table(1800, 1600, name="Final table")
    alice, _ = seated_users(table)
    page = client_for(alice).get(reverse("games:tv")).content.decode()
    assert "Now on TV: Final table" in page
    assert f'ws-connect="/ws/tables/{table.pk}/"' in page
    assert f'href="{table.get_absolute_url()}"' in page
    assert f"{alice.username} " in page and ">1800<" in page and ">1600<" in page
    assert "Mean rating of the players: 1700" in page
    assert 'id="pile"' in page and 'id="players"' in page
    # Not even the player who watches sees a hand: the TV is a spectator's view.
    state = selectors.current_hand(selectors.current_match(table)).engine_state
    assert 'data-testid="my-hand"' not in page
    for seat in (0, 1):
        assert all(f'data-card="{card}"' not in page for card in state.hand(seat))
    assert 'name="action"' not in page
    answer = json.loads(client_for().get(reverse("games:tv_current")).content)
    assert answer == {"table": table.pk}


def test_the_tv_stays_on_its_table_while_its_match_is_in_play():
    watched = live_table(1600, 1600, name="Watched")
    client = client_for()
    url = f"{reverse('games:tv_current')}?table={watched.pk}"
    better = live_table(2000, 2000, name="Better")
    assert json.loads(client.get(url).content) == {"table": better.pk, "shown_live": True}
    services.match_set_annulled(match_id=selectors.current_match(watched).pk)
    assert json.loads(client.get(url).content) == {"table": better.pk, "shown_live": False}


def test_the_tv_check_refuses_a_table_that_is_no_number():
    response = client_for().get(reverse("games:tv_current"), {"table": "x1"})
    assert response.status_code == 400
    assert json.loads(response.content) == {
        "error": {"code": "bad_request", "message": "The table must be given by its number."}
    }


def test_a_private_table_is_never_live_for_the_tv():
    secret = live_table(1500, 1500, is_public=False)
    assert not selectors.tv_still_live(secret.pk)


def test_the_tv_page_is_in_polish():
    live_table(1500, 1500, name="Stół")
    client = client_for()
    client.cookies["django_language"] = "pl"
    page = client.get(reverse("games:tv"), HTTP_ACCEPT_LANGUAGE="pl").content.decode()
    assert "Teraz w TV: Stół" in page


def test_the_site_navigation_leads_to_the_tv():
    page = client_for().get(reverse("home")).content.decode()
    assert f'href="{reverse("games:tv")}" data-testid="nav-tv"' in page


def test_a_channel_page_shows_its_speed_s_best_table_and_asks_for_its_own_next_one():
    bullet = live_table(1600, 1600, name="Quick one", **CLOCKS[Speed.BULLET])
    live_table(1900, 1900, name="Blitz table")
    page = client_for().get(reverse("games:tv_channel", args=["bullet"])).content.decode()
    assert "Now on TV: Quick one" in page
    assert f'ws-connect="/ws/tables/{bullet.pk}/"' in page
    assert 'data-tv-speed="bullet"' in page
    start = page.index('data-testid="tv-channels"')
    channels = page[start : page.index("</nav>", start)]
    assert channels.count('data-testid="tv-channel"') == 5
    assert 'href="/tv/bullet/" aria-current="page"' in channels
    assert 'href="/tv/" data-testid' in channels  # the main channel, not the current one
    answer = client_for().get(reverse("games:tv_current"), {"speed": "bullet"})
    assert json.loads(answer.content) == {"table": bullet.pk}
    main = json.loads(client_for().get(reverse("games:tv_current")).content)
    assert main["table"] != bullet.pk


def test_a_channel_with_nothing_live_says_so_and_lists_the_other_speeds_matches():
    blitz = live_table(1500, 1500, name="Blitz table")
    page = client_for().get(reverse("games:tv_channel", args=["rapid"])).content.decode()
    assert "No match of this speed is being played at a public table just now." in page
    assert "ws-connect" not in page
    assert f'data-testid="tv-listing" data-table="{blitz.pk}"' in page


def test_only_the_real_time_speeds_have_a_channel():
    for name in ("correspondence", "nonsense"):
        assert client_for().get(f"/tv/{name}/").status_code == 404
        answer = client_for().get(reverse("games:tv_current"), {"speed": name})
        assert answer.status_code == 404
        assert json.loads(answer.content)["error"]["message"] == "No such channel."


def test_the_tv_lists_every_live_public_match_the_strongest_first():
    middle = live_table(1700, 1500, name="Middle", **CLOCKS[Speed.RAPID])  # mean 1600
    top = live_table(1800, 1800, name="Top")
    low = live_table(1400, 1400, name="Low", **CLOCKS[Speed.BULLET])
    live_table(2000, 2000, name="Secret", is_public=False)
    live_table(2000, 2000, name="Letters", move_days=2)
    owner = make_user(is_bot_account=True)
    bots = make_table(owner, players=1, seats=2, name="Bots")
    services.table_add_bot(table_id=bots.pk, by=owner, position=1, level="random")
    services.match_start(table_id=bots.pk, by=owner)
    make_table(players=2, name="Waiting")
    assert [t.pk for t in selectors.tv_tables()] == [top.pk, middle.pk, low.pk]
    for url in (reverse("games:tv"), reverse("games:tv_channel", args=["classical"])):
        page = client_for().get(url).content.decode()
        listed = page[page.index('data-testid="tv-list"') :]
        order = [listed.index(f'data-table="{t.pk}"') for t in (top, middle, low)]
        assert order == sorted(order)
        assert listed.count('data-testid="tv-listing"') == 3
        assert "Mean rating 1600" in listed and "(rapid)" in listed
        assert f'href="{middle.get_absolute_url()}"' in listed


def test_the_channels_and_the_list_are_in_polish():
    live_table(1500, 1500, name="Stół", **CLOCKS[Speed.RAPID])
    client = client_for()
    page = client.get(reverse("games:tv_channel", args=["rapid"]), HTTP_ACCEPT_LANGUAGE="pl")
    text = page.content.decode()
    assert "Teraz w TV: Stół" in text and "Kanały TV" in text and "Najlepsza partia" in text
    assert "Szybkie" in text and "Partie na żywo" in text and "Średni ranking 1500" in text
    empty = client.get(reverse("games:tv_channel", args=["bullet"]), HTTP_ACCEPT_LANGUAGE="pl")
    assert "nie toczy się teraz partia w tym tempie" in empty.content.decode()


# --- the lobby ---------------------------------------------------------------------------------


def open_the_pile(table) -> None:
    """The holder of the base card plays it: the pile's top is the nine of hearts."""
    hand = selectors.current_hand(selectors.current_match(table))
    opener = hand.match.players.get(seat=hand.engine_state.to_move).user
    services.execute(
        services.move_action(
            {"type": "play", "cards": ["9H"]}, hand_id=hand.pk, version=hand.version, user=opener
        )
    )


def test_the_lobby_shows_the_tv_table_small_with_its_top_card():
    table = live_table(1800, 1600, name="Final table")
    alice, _ = seated_users(table)
    open_the_pile(table)
    page = client_for().get(reverse("home")).content.decode()
    tv = page[page.index('id="lobby-tv"') : page.index('id="lobby-tables"')]
    assert f'data-table="{table.pk}"' in tv
    assert alice.username in tv and ">1800<" in tv
    assert 'data-testid="lobby-tv-top"' in tv and "Nine of hearts" in tv  # the base card
    assert f'href="{reverse("games:tv")}"' in tv


def test_the_lobby_shows_no_tv_when_nothing_is_live_and_its_update_carries_it():
    page = client_for().get(reverse("home")).content.decode()
    assert 'data-testid="lobby-tv"' not in page
    table = live_table(1500, 1500)
    fragment = renderers.lobby_fragment()
    assert 'id="lobby-tv" hx-swap-oob="true"' in fragment
    assert f'data-testid="lobby-tv" data-table="{table.pk}"' in fragment
