"""Ratings on PostgreSQL: who is rated, by which places, once; leavers; annulment; pages."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import ratings, services
from games.engine import move_to_json
from games.models import RATING_MU, Rating, RatingChange, Table
from games.speeds import Speed
from moderation import services as moderation
from tests.factories import (
    client_for,
    make_moderator,
    make_table,
    make_user,
    play_to_pan_on_time,
    seated_users,
    table_form,
)
from tests.tournaments.helpers import hands_in_play, make_tournament, started, time_out

pytestmark = pytest.mark.django_db


def mu_of(user) -> float:
    return Rating.objects.get(user=user, speed=Speed.BLITZ).mu


def test_a_finished_match_rates_its_people_by_place_and_only_once():
    table = make_table(players=3)
    match = play_to_pan_on_time(table)
    places = {p.user: p.place for p in match.players.select_related("user")}
    first = next(u for u, place in places.items() if place == 1)
    last = next(u for u, place in places.items() if place == 3)
    assert mu_of(first) > RATING_MU > mu_of(last)
    assert sorted(Rating.objects.values_list("matches", flat=True)) == [1, 1, 1]
    assert RatingChange.objects.filter(match=match).count() == 3

    before = {r.user_id: (r.mu, r.sigma) for r in Rating.objects.all()}
    assert ratings.match_rate(match=match) == []
    assert {r.user_id: (r.mu, r.sigma) for r in Rating.objects.all()} == before


def test_bots_are_not_rated_and_one_person_among_bots_is_not_a_rated_match():
    alone = make_table(players=1, seats=3)
    for position in (1, 2):
        services.table_add_bot(table_id=alone.pk, by=alone.owner, position=position, level="greedy")
    play_to_pan_on_time(alone)
    assert not Rating.objects.exists()

    pair = make_table(players=2, seats=3)
    services.table_add_bot(table_id=pair.pk, by=pair.owner, position=2, level="greedy")
    match = play_to_pan_on_time(pair)
    assert set(Rating.objects.values_list("user", flat=True)) == {u.pk for u in seated_users(pair)}
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_player_who_leaves_during_the_match_ranks_below_everyone_who_stayed():
    table = make_table(players=2)
    stayer, leaver = seated_users(table)
    match = services.match_start(table_id=table.pk, by=table.owner)
    services.table_leave(table_id=table.pk, user=leaver)
    # The bot that took his seat wins every hand: the one who stayed runs out of time.
    while True:
        match.refresh_from_db()
        if match.status == match.Status.FINISHED:
            break
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            services.match_next_hand(
                match_id=match.pk, after_number=hand.number, now=hand.finished_at
            )
            continue
        state = hand.engine_state
        if match.players.get(seat=state.to_move).user == stayer:
            services.execute(
                services.Timeout(hand_id=hand.pk), now=hand.deadline + timedelta(seconds=1)
            )
        else:
            move = move_to_json(state.legal_moves()[0])
            services.execute(
                services.move_action(move, hand_id=hand.pk, version=hand.version, as_bot=True)
            )
    assert match.players.get(user=leaver).place == 1
    assert mu_of(leaver) < RATING_MU < mu_of(stayer)


def test_annulling_a_rated_match_rebuilds_every_rating_without_it():
    table = make_table(players=2)
    first = play_to_pan_on_time(table)
    second_match = play_to_pan_on_time(table)  # the rematch, same players
    ola, janek = seated_users(table)
    moderation.match_annul(by=make_moderator(), match_id=first.pk, reason="collusion")
    assert not RatingChange.objects.filter(match=first).exists()
    assert sorted(Rating.objects.values_list("matches", flat=True)) == [1, 1]
    # The second match is now everyone's first: it starts from a newcomer's rating.
    for change in RatingChange.objects.filter(match=second_match):
        assert change.mu_before == RATING_MU
    for user in (ola, janek):
        assert mu_of(user) == RatingChange.objects.get(match=second_match, user=user).mu_after


def test_a_table_created_casual_shows_it_and_changes_no_rating(client):
    owner = make_user()
    client.force_login(owner)
    client.post(reverse("games:table_create"), table_form(name="Friendly"))
    table = Table.objects.get(name="Friendly")
    assert not table.rated
    services.table_sit(table_id=table.pk, user=make_user())
    assert 'data-testid="rated">casual<' in client.get(table.get_absolute_url()).content.decode()
    assert "casual" in client.get("/").content.decode()
    play_to_pan_on_time(table)
    assert not Rating.objects.exists()


def rated_shown(table: Table) -> str:
    page = client_for().get(table.get_absolute_url()).content.decode()
    return re.search(r'data-testid="rated">([^<]*)<', page).group(1)


def test_the_table_says_rated_only_when_its_match_will_be_rated():
    """The header follows ``ratings.is_rated``: a bot-only table and a tournament's table
    are not rated, a rated table with two people is (#14)."""
    owner = make_user()
    table = make_table(owner, players=1, seats=3)
    assert table.rated and rated_shown(table) == "casual"  # nobody to be rated against
    services.table_add_bot(table_id=table.pk, by=owner, position=1, level="random")
    assert rated_shown(table) == "casual"
    match = play_to_pan_on_time(table)
    assert rated_shown(table) == "casual" and not RatingChange.objects.filter(match=match).exists()
    services.table_sit(table_id=table.pk, user=make_user(), position=2)
    assert rated_shown(table) == "rated"
    match = play_to_pan_on_time(table)
    assert RatingChange.objects.filter(match=match).count() == 2

    people = [make_user() for _ in range(3)]
    tournament = started(make_tournament(users=people, bots_allowed=False))
    tournament_table = Table.objects.get(pk=hands_in_play(tournament)[0].match.table_id)
    assert not tournament_table.rated and rated_shown(tournament_table) == "tournament"


def test_tournament_matches_do_not_change_ratings():
    people = [make_user() for _ in range(3)]
    tournament = started(make_tournament(users=people, bots_allowed=False), letters=2)
    time_out(hands_in_play(tournament)[0])
    assert tournament.entries.filter(eliminated_at__isnull=False).count() == 1
    assert not Rating.objects.exists()


def rating_book() -> tuple[dict, dict]:
    ratings_now = {(r.user_id, r.speed): (r.mu, r.sigma, r.matches) for r in Rating.objects.all()}
    changes = {
        (c.match_id, c.user_id): (c.speed, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after)
        for c in RatingChange.objects.all()
    }
    return ratings_now, changes


def test_annulling_replays_only_what_came_after_and_agrees_with_a_rebuild_from_the_start():
    a, b, c = make_user(), make_user(), make_user()
    ab, bc = make_table(a, players=1), make_table(b, players=1)
    services.table_sit(table_id=ab.pk, user=b)
    services.table_sit(table_id=bc.pk, user=c)
    apart = make_table(players=2)  # two other people, never at a table with a, b or c
    m1, m2, m3 = play_to_pan_on_time(ab), play_to_pan_on_time(apart), play_to_pan_on_time(bc)
    m4, m5, m6 = play_to_pan_on_time(ab), play_to_pan_on_time(apart), play_to_pan_on_time(bc)
    # The clocks of these tests run ahead of the wall clock: let the matches have ended in
    # the order they were rated, as they do on the site, so that a rebuild agrees.
    start = timezone.now()
    for i, match in enumerate((m1, m2, m3, m4, m5, m6)):
        type(match).objects.filter(pk=match.pk).update(finished_at=start + timedelta(minutes=i))
    earlier = set(RatingChange.objects.filter(match__in=(m1, m2)).values_list("pk", flat=True))

    moderation.match_annul(by=make_moderator(), match_id=m3.pk, reason="collusion")

    # What was rated before the annulled match stays as it was, row for row.
    assert set(RatingChange.objects.filter(match__in=(m1, m2)).values_list("pk", flat=True)) == (
        earlier
    )
    assert not RatingChange.objects.filter(match=m3).exists()
    assert RatingChange.objects.filter(match__in=(m4, m5, m6)).count() == 6
    # c's only other match was the annulled one: the one after it starts from a newcomer.
    assert RatingChange.objects.get(match=m6, user=c).mu_before == RATING_MU
    assert RatingChange.objects.get(match=m6, user=b).mu_before == (
        RatingChange.objects.get(match=m4, user=b).mu_after
    )
    played = {a.pk: 2, b.pk: 3, c.pk: 1} | {u.pk: 2 for u in seated_users(apart)}
    assert {user_id: n for (user_id, _), (_, _, n) in rating_book()[0].items()} == played

    replayed = rating_book()
    assert ratings.ratings_recompute() == 5
    assert rating_book() == replayed


# --- pages ----------------------------------------------------------------------------------


def test_the_table_shows_each_persons_rating_change_when_the_match_is_over(client):
    table = make_table(players=2)
    match = play_to_pan_on_time(table)
    client.force_login(table.owner)
    page = client.get(table.get_absolute_url()).content.decode()
    ranking = page[page.index('data-testid="ranking"') :]
    winner, loser = (p.user.username for p in match.players.order_by("place"))
    # The winner first, gaining; the one with P-A-N second, losing.
    assert re.search(rf'value="1">{winner} .*?rating-delta" [^>]*>\+\d+<', ranking)
    assert re.search(rf'value="2">{loser} .*?rating-delta down" [^>]*>-\d+<', ranking)


def test_the_profile_shows_a_provisional_rating(client):
    table = make_table(players=2)
    play_to_pan_on_time(table)
    user = seated_users(table)[0]
    page = client.get(user.get_absolute_url()).content.decode()
    shown = ratings.display_rating(mu_of(user))
    assert f'data-stat="rating-blitz">{shown}?<' in page


def test_a_new_profile_shows_the_starting_rating_as_provisional(client):
    """Before any rated match (none at all, or casual ones only): 1500, provisional (#14)."""
    newcomer = make_user()
    page = client.get(newcomer.get_absolute_url()).content.decode()
    assert f'data-stat="rating-blitz">{ratings.DISPLAY_BASE}?<' in page
    assert "(provisional)" in page and "No games played yet." in page

    table = make_table(players=2, rated=False)
    play_to_pan_on_time(table)
    page = client.get(seated_users(table)[0].get_absolute_url()).content.decode()
    assert f'data-stat="rating-blitz">{ratings.DISPLAY_BASE}?<' in page and "(provisional)" in page


@pytest.mark.parametrize(
    ("language", "title", "spoken"),
    [
        ("en", "Provisional rating: fewer than ten rated matches so far.", "(provisional rating)"),
        (
            "pl",
            "Ranking tymczasowy: mniej niż dziesięć rankingowych partii.",
            "(ranking tymczasowy)",
        ),
    ],
)
def test_a_provisional_ratings_mark_explains_itself_on_hover_and_to_a_screen_reader(
    client, language, title, spoken
):
    table = make_table(players=2)
    established, _newcomer = seated_users(table)
    Rating.objects.create(speed=Speed.BLITZ, user=established, mu=28.0, sigma=3.0, matches=40)
    page = client.get(table.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    shown = re.findall(
        r'data-testid="seat-rating" title="([^"]*)">([^<]*)'
        r'(?:<span class="visually-hidden"> ([^<]*)</span>)?</span>',
        page,
    )
    established_title = "rating" if language == "en" else "ranking"
    assert shown == [
        (established_title, str(ratings.display_rating(28.0)), ""),
        (title, f"{ratings.DISPLAY_BASE}?", spoken),
    ]


def test_the_leaderboard_lists_established_players_by_rating(client):
    strong, steady, newcomer, banned = (make_user() for _ in range(4))
    Rating.objects.create(speed=Speed.BLITZ, user=strong, mu=31.0, sigma=3.0, matches=40)
    Rating.objects.create(
        speed=Speed.BLITZ, user=steady, mu=26.0, sigma=4.0, matches=ratings.PROVISIONAL_MATCHES
    )
    Rating.objects.create(speed=Speed.BLITZ, user=newcomer, mu=40.0, sigma=7.0, matches=3)
    Rating.objects.create(speed=Speed.BLITZ, user=banned, mu=35.0, sigma=3.0, matches=50)
    banned.banned_until = timezone.now() + timedelta(days=1)
    banned.save()
    page = client.get("/ratings/").content.decode()
    listed = [strong.username, steady.username]
    assert all(name in page for name in listed)
    assert page.index(strong.username) < page.index(steady.username)
    assert newcomer.username not in page and banned.username not in page
    assert str(ratings.display_rating(31.0)) in page


def test_the_profile_draws_the_rating_after_each_rated_match_and_each_matchs_change(client):
    table = make_table(players=2)
    play_to_pan_on_time(table)
    play_to_pan_on_time(table)
    user = seated_users(table)[1]
    changes = list(RatingChange.objects.filter(user=user).order_by("pk"))
    assert changes[1].mu_before == changes[0].mu_after
    shown = [ratings.display_rating(changes[0].mu_before)] + [
        ratings.display_rating(c.mu_after) for c in changes
    ]
    page = client.get(user.get_absolute_url()).content.decode()

    # A line through the rating before, after the first and after the second match.
    chart = page[page.index('data-testid="rating-chart"') :]
    points = re.search(r'<polyline points="([^"]*)"', chart).group(1).split()
    assert len(points) == 3
    # Higher ratings are drawn higher up (a smaller y), the lowest at the bottom.
    ys = [float(p.split(",")[1]) for p in points]
    assert sorted(range(3), key=lambda i: ys[i]) == sorted(range(3), key=lambda i: -shown[i])
    assert f"lowest {min(shown)}, highest {max(shown)}" in chart
    assert "Rating (blitz) over the last 2 rated matches" in chart

    # The recent matches, each with what it did to the rating.
    recent = page[page.index('data-testid="recent-matches"') :]
    deltas = re.findall(r'data-testid="rating-delta">([-+]\d+)<', recent)
    assert sorted(deltas) == sorted([f"{shown[2] - shown[1]:+d}", f"{shown[1] - shown[0]:+d}"])


def test_a_profile_without_rated_matches_draws_no_rating_line(client):
    table = make_table(players=2, rated=False)
    play_to_pan_on_time(table)
    page = client.get(seated_users(table)[0].get_absolute_url()).content.decode()
    assert 'data-testid="recent-matches"' in page
    assert 'data-testid="rating-chart"' not in page and 'data-testid="rating-delta"' not in page


def test_the_table_shows_each_persons_rating_beside_his_name_and_none_for_bots(client):
    table = make_table(players=2, seats=3)
    established, newcomer = seated_users(table)
    Rating.objects.create(speed=Speed.BLITZ, user=established, mu=28.0, sigma=3.0, matches=40)
    Rating.objects.create(speed=Speed.BLITZ, user=newcomer, mu=27.0, sigma=6.0, matches=2)
    services.table_add_bot(table_id=table.pk, by=table.owner, position=2, level="greedy")

    def shown(testid: str) -> list[str]:
        page = client.get(table.get_absolute_url()).content.decode()
        return re.findall(rf'data-testid="{testid}" [^>]*>([^<]*)<', page)

    expected = [str(ratings.display_rating(28.0)), f"{ratings.display_rating(27.0)}?"]
    assert shown("seat-rating") == expected  # the seats, before the match
    lobby = client.get("/").content.decode()
    players = lobby[lobby.index('data-testid="lobby-players"') :]
    assert re.search(rf"{established.username} <[^>]*>{expected[0]}<", players)
    assert re.search(rf"{newcomer.username} <[^>]*>{re.escape(expected[1])}<", players)
    services.match_start(table_id=table.pk, by=table.owner)
    page = client.get(table.get_absolute_url()).content.decode()
    assert page.count('data-testid="player" ') == 3  # two people and the bot...
    assert sorted(shown("player-rating")) == sorted(expected)  # ...which has no rating


# --- speeds ---------------------------------------------------------------------------------

BULLET, RAPID = {"base_seconds": 60, "increment_seconds": 0}, {"base_seconds": 600}


def speeds_of(user) -> dict[str, tuple[float, int]]:
    return {r.speed: (r.mu, r.matches) for r in Rating.objects.filter(user=user)}


def test_a_match_is_rated_in_its_tables_speed_and_leaves_the_others_alone():
    ola, janek = make_user(), make_user()
    bullet = make_table(ola, players=1, **BULLET)
    services.table_sit(table_id=bullet.pk, user=janek)
    rapid = make_table(janek, players=1, **RAPID)
    services.table_sit(table_id=rapid.pk, user=ola)

    first = play_to_pan_on_time(bullet)
    assert set(speeds_of(ola)) == {Speed.BULLET} and speeds_of(ola)[Speed.BULLET][1] == 1
    second = play_to_pan_on_time(rapid)
    # The rapid match starts from a newcomer's rapid rating, not from the bullet one.
    assert {c.mu_before for c in RatingChange.objects.filter(match=second)} == {RATING_MU}
    assert {c.speed for c in RatingChange.objects.filter(match=first)} == {Speed.BULLET}
    assert {c.speed for c in RatingChange.objects.filter(match=second)} == {Speed.RAPID}
    for user in (ola, janek):
        assert {speed: n for speed, (_, n) in speeds_of(user).items()} == {
            Speed.BULLET: 1,
            Speed.RAPID: 1,
        }
        bullet_after = RatingChange.objects.get(match=first, user=user).mu_after
        assert speeds_of(user)[Speed.BULLET][0] == bullet_after


def test_a_correspondence_match_is_rated_apart_from_the_real_time_ones():
    ola, janek = make_user(), make_user()
    days = make_table(ola, players=1, move_days=3)
    services.table_sit(table_id=days.pk, user=janek)
    blitz = make_table(janek, players=1)
    services.table_sit(table_id=blitz.pk, user=ola)
    over_days = play_to_pan_on_time(days)
    play_to_pan_on_time(blitz)
    assert {c.speed for c in RatingChange.objects.filter(match=over_days)} == {Speed.CORRESPONDENCE}
    for user in (ola, janek):
        assert {speed: n for speed, (_, n) in speeds_of(user).items()} == {
            Speed.CORRESPONDENCE: 1,
            Speed.BLITZ: 1,
        }


def played_at_speeds() -> list:
    """Rated matches of three people at three speeds, interleaved, ending in this order."""
    a, b, c = make_user(), make_user(), make_user()
    tables = [
        make_table(a, players=1, **BULLET),
        make_table(b, players=1),  # blitz
        make_table(c, players=1, **RAPID),
    ]
    for table, guest in zip(tables, (b, c, a), strict=True):
        services.table_sit(table_id=table.pk, user=guest)
    matches = [play_to_pan_on_time(table) for _ in range(2) for table in tables]
    start = timezone.now()
    for i, match in enumerate(matches):
        type(match).objects.filter(pk=match.pk).update(finished_at=start + timedelta(minutes=i))
    return matches


def test_annulling_replays_each_speed_and_agrees_with_a_rebuild():
    matches = played_at_speeds()
    bullet_before = {
        (c.match_id, c.user_id): c.mu_after for c in RatingChange.objects.filter(speed=Speed.BULLET)
    }
    moderation.match_annul(by=make_moderator(), match_id=matches[1].pk, reason="collusion")
    # The annulled blitz match takes nothing back from the bullet matches after it.
    assert {
        (c.match_id, c.user_id): c.mu_after for c in RatingChange.objects.filter(speed=Speed.BULLET)
    } == bullet_before
    assert Rating.objects.get(user=matches[1].table.owner, speed=Speed.BLITZ).matches == 1
    replayed = rating_book()
    assert ratings.ratings_recompute() == 5
    assert rating_book() == replayed
