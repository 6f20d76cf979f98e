"""Every page and pairing that shows or uses a rating takes the table's speed's."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from games import ratings, selectors, services
from games.models import Rating
from games.speeds import Speed
from pairing import services as pairing
from tests.factories import client_for, make_table, make_user, seated_users
from tests.games.test_tv import rate

pytestmark = pytest.mark.django_db

BULLET = {"base_seconds": 60, "increment_seconds": 0}


def test_the_lobby_and_the_table_show_each_players_rating_of_the_tables_speed():
    ola = make_user()
    rate(ola, 1800, Speed.BULLET)
    rate(ola, 1600, Speed.BLITZ)
    bullet = make_table(ola, players=1, name="Fast", **BULLET)
    blitz = make_table(make_user(), players=1, name="Steady")
    services.table_sit(table_id=blitz.pk, user=ola)

    lobby = client_for().get("/").content.decode()
    for table, shown in ((bullet, "1800"), (blitz, "1600")):
        row = lobby[lobby.index(f'href="{table.get_absolute_url()}"') :]
        assert re.search(rf"{ola.username} <[^>]*>{shown}<", row)
    # Each table says its speed, so that the rating beside a name is read as that speed's.
    assert re.findall(r'data-testid="speed">\(([^)]*)\)<', lobby) == ["blitz", "bullet"]
    for table, shown in ((bullet, "1800"), (blitz, "1600")):
        page = client_for().get(table.get_absolute_url()).content.decode()
        assert re.search(r'data-testid="speed">\((\w+)\)<', page).group(1) == table.speed.label
        assert re.search(rf'{ola.username}</span> <span class="rating" data-testid="ring-rating" '
                         rf'[^>]*>{shown}<', page)  # fmt: skip


def test_the_match_in_play_shows_the_tables_speed_rating_beside_each_player():
    table = make_table(players=2, **BULLET)
    ola, janek = seated_users(table)
    rate(ola, 1900, Speed.BULLET)
    rate(ola, 1400, Speed.BLITZ)
    services.match_start(table_id=table.pk, by=table.owner)
    page = client_for(janek).get(table.get_absolute_url()).content.decode()
    shown = re.findall(r'data-testid="player-rating" [^>]*>([^<]*)<', page)
    assert sorted(shown) == ["1500?", "1900"]


def test_tv_ranks_tables_by_their_own_speeds_ratings():
    # Bullet stars at a blitz table are newcomers there: the bullet table wins.
    stars = make_table(players=2, name="Stars at blitz")
    for user in seated_users(stars):
        rate(user, 2000, Speed.BULLET)
    bullet = make_table(players=2, name="Bullet", **BULLET)
    for user in seated_users(bullet):
        rate(user, 1700, Speed.BULLET)
    for table in (stars, bullet):
        services.match_start(table_id=table.pk, by=table.owner)
    tv = selectors.tv_table()
    assert tv.table == bullet and tv.strength == 1700


def test_play_now_pairs_by_the_rating_of_the_chosen_time_controls_speed():
    ola = make_user()
    rate(ola, 1900, Speed.BULLET)
    rate(ola, 1300, Speed.BLITZ)
    now = timezone.now()
    bullet = pairing.seek_create(
        user=ola, time_control="1+0", size=2, bots_after=30, channel_name="a", now=now
    )
    assert ratings.display_rating(bullet.rating) == 1900
    pairing.seek_cancel(user=ola)
    blitz = pairing.seek_create(
        user=ola, time_control="3+2", size=2, bots_after=30, channel_name="a", now=now
    )
    assert ratings.display_rating(blitz.rating) == 1300


def test_the_leaderboard_has_one_tab_per_speed_and_lists_that_speeds_players(client):
    fast, steady = make_user(), make_user()
    Rating.objects.create(user=fast, speed=Speed.BULLET, mu=31.0, sigma=3.0, matches=40)
    Rating.objects.create(user=steady, speed=Speed.BLITZ, mu=28.0, sigma=3.0, matches=40)

    page = client.get("/ratings/").content.decode()  # blitz, the default table's speed
    tabs = re.findall(r'<a href="\?speed=(\w+)"( aria-current="page")?', page)
    assert tabs == [
        ("bullet", ""),
        ("blitz", ' aria-current="page"'),
        ("rapid", ""),
        ("classical", ""),
        ("correspondence", ""),
    ]
    assert steady.username in page and fast.username not in page

    page = client.get("/ratings/?speed=bullet").content.decode()
    assert fast.username in page and steady.username not in page
    assert 'href="?speed=bullet" aria-current="page"' in page
    assert str(ratings.display_rating(31.0)) in page

    empty = client.get("/ratings/?speed=correspondence").content.decode()
    assert "Nobody has played 10 rated matches of this speed yet." in empty
    assert client.get("/ratings/?speed=hyper").status_code == 404


def test_the_profile_shows_a_rating_per_speed_and_charts_the_most_played(client):
    ola = make_user()
    Rating.objects.create(user=ola, speed=Speed.RAPID, mu=30.0, sigma=3.0, matches=12)
    page = client.get(ola.get_absolute_url()).content.decode()
    shown = dict(re.findall(r'data-stat="rating-(\w+)">([^<]*)<', page))
    assert shown == {
        "bullet": "1500?",
        "blitz": "1500?",
        "rapid": str(ratings.display_rating(30.0)),
        "classical": "1500?",
        "correspondence": "1500?",
    }


@pytest.mark.parametrize(
    ("base_seconds", "increment_seconds"),
    [
        (60, 0),
        (180 - 18, 0),
        (180 - 18, 1),
        (300, 3),
        (479, 0),
        (480, 0),
        (600, 5),
        (1499, 0),
        (1500, 0),
        (1200, 20),
        (3600, 60),
    ],
)
def test_the_speed_in_sql_agrees_with_the_speed_in_python(base_seconds, increment_seconds):
    table = make_table(players=1, base_seconds=base_seconds, increment_seconds=increment_seconds)
    in_sql = (
        type(table)
        .objects.annotate(speed_sql=ratings.table_speed_sql())
        .values_list("speed_sql", flat=True)
        .get(pk=table.pk)
    )
    assert in_sql == table.speed
