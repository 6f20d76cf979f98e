"""An arena's page, its buttons and its live parts, and Berserk offered at the table."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from tests.factories import client_for, make_user
from tests.tournaments.helpers import make_staff, time_out
from tests.tournaments.test_arena import games_in_play, hand_of, make_arena, start
from tournaments.arena_selectors import PAGE_SIZE, arena_leaderboard
from tournaments.models import TournamentEntry
from tournaments.renderers import tournament_fragments

pytestmark = pytest.mark.django_db


def test_a_scheduled_arena_page_offers_join_and_explains_the_scale_in_both_languages():
    arena = make_arena(bots=2)
    user = make_user()
    page = client_for(user).get(arena.get_absolute_url())
    html = page.content.decode()
    assert page.status_code == 200 and 'data-testid="arena-join"' in html
    assert 'data-testid="arena-scale"' in html and "<td>5</td>" in html
    polish = client_for(user).get(arena.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="pl")
    with translation.override("pl"):
        assert translation.gettext("How the arena works") in polish.content.decode()
    # Joining is a form that answers with a redirect, and the page then offers withdrawing.
    answer = client_for(user).post(f"/tournaments/{arena.pk}/arena/join/")
    assert answer.status_code == 302
    assert TournamentEntry.objects.filter(tournament=arena, user=user).exists()
    joined = client_for(user).get(arena.get_absolute_url()).content.decode()
    assert 'data-testid="arena-withdraw"' in joined
    # He is told of the notice before the start, and where to have it by e-mail too.
    assert 'data-testid="start-mail-hint"' in joined and 'href="/notifications/settings/"' in joined
    assert 'data-testid="start-mail-hint"' not in html  # not before he joined
    # An unknown action changes nothing.
    assert client_for(user).post(f"/tournaments/{arena.pk}/arena/nonsense/").status_code == 404


def test_the_leaderboard_pages_and_a_player_sees_his_own_rank_and_page():
    arena = start(make_arena(bots=3 * PAGE_SIZE))
    me = make_user()
    services_join(arena, me)
    TournamentEntry.objects.filter(tournament=arena, user__isnull=True).update(points=5)
    board = arena_leaderboard(tournament=arena, viewer=me)
    assert board.total == 3 * PAGE_SIZE + 1 and board.pages == 4
    assert board.my_rank == board.total and board.page == board.my_page == 4
    assert [r.is_me for r in board.rows] == [True]
    first = arena_leaderboard(tournament=arena, viewer=me, page=1)
    assert len(first.rows) == PAGE_SIZE and first.rows[0].rank == 1
    html = client_for(me).get(arena.get_absolute_url()).content.decode()
    assert 'data-testid="my-rank">61<' in html and 'data-testid="board-prev"' in html


def test_the_live_parts_follow_a_finished_game_and_the_podium_shows_at_the_end():
    user = make_user()
    arena = start(make_arena(bots=3, users=[user]))
    (game,) = games_in_play(arena)
    before = tournament_fragments(
        tournament_id=arena.pk, viewer=user, language="en", csrf_token="x"
    )
    assert 'id="arena-leaderboard"' in before and 'hx-swap-oob="true"' in before
    assert 'data-testid="my-table"' in before
    arena.refresh_from_db()
    time_out(hand_of(game), now=arena.ends_at + timedelta(seconds=1))
    from tournaments import services

    services.tournament_advance(tournament_id=arena.pk, now=arena.ends_at + timedelta(seconds=2))
    after = tournament_fragments(tournament_id=arena.pk, viewer=user, language="pl", csrf_token="x")
    assert 'data-testid="podium"' in after and 'data-testid="my-games"' in after


def test_berserk_is_offered_at_the_arena_table_and_taken_by_a_post():
    user = make_user()
    arena = start(make_arena(bots=3, users=[user], base_seconds=60, increment_seconds=2))
    (game,) = games_in_play(arena)
    table_url = f"/tables/{game.link.table_id}/"
    html = client_for(user).get(table_url).content.decode()
    assert 'data-testid="berserk-offer"' in html
    answer = client_for(user).post(f"/tournaments/{arena.pk}/berserk/", {"next": table_url})
    assert answer.status_code == 302 and answer["Location"] == table_url
    html = client_for(user).get(table_url).content.decode()
    assert 'data-testid="berserk-offer"' not in html and 'data-testid="berserk"' in html
    # A spectator is offered nothing; an outside "next" is not followed.
    assert (
        'data-testid="berserk-offer"' not in client_for(make_user()).get(table_url).content.decode()
    )
    answer = client_for(user).post(
        f"/tournaments/{arena.pk}/berserk/", {"next": "https://example.org/"}
    )
    assert answer["Location"] == arena.get_absolute_url()


def test_the_staff_creates_an_arena_with_the_form():
    staff = make_staff()
    soon = timezone.localtime(timezone.now() + timedelta(hours=2))
    answer = client_for(staff).post(
        "/tournaments/new/",
        {
            "name": "Evening arena",
            "starts_at": soon.strftime("%Y-%m-%dT%H:%M"),
            "format": "arena",
            "minutes": "45",
            "arena_tables": "3-4",
            "rated": "on",
            "min_players": "3",
            "max_players": "200",
            "seats_per_table": "4",
            "profile": "tournament",
            "max_actions": "500",
            "time_control": "3+2",
            "seconds_between_hands": "3",
        },
    )
    assert answer.status_code == 302
    from tournaments.models import Tournament

    arena = Tournament.objects.get(name="Evening arena")
    assert arena.is_arena and arena.minutes == 45 and arena.seats_min == 3 and arena.rated


def services_join(arena, user):
    from tournaments import services

    services.arena_join(tournament_id=arena.pk, user=user)


def test_the_lobby_lists_an_arena_in_play_and_one_about_to_start():
    running = start(make_arena(bots=4, name="Lunch arena"))
    make_arena(name="Soon arena", starts_in=1800)
    make_arena(name="Tomorrow arena", starts_in=86400)
    html = client_for(make_user()).get("/").content.decode()
    assert 'data-testid="lobby-tournaments"' in html
    assert "Lunch arena" in html and "Soon arena" in html and "Tomorrow arena" not in html
    assert running.get_absolute_url() in html


def test_the_arena_tv_shows_its_top_table_as_a_spectator_sees_it():
    arena = start(make_arena(bots=8))
    # The players of one game lead the board: theirs is the top table.
    top_game = games_in_play(arena)[-1]
    TournamentEntry.objects.filter(arena_games__game=top_game).update(points=5)
    page = client_for(make_user()).get(f"/tournaments/{arena.pk}/tv/")
    html = page.content.decode()
    assert page.status_code == 200 and f'data-tv="{top_game.link.table_id}"' in html
    assert f'data-tv-current="/tournaments/{arena.pk}/tv/current/"' in html
    assert 'data-testid="my-hand"' not in html or 'id="my-hand"></div>' in html
    current = (
        client_for()
        .get(f"/tournaments/{arena.pk}/tv/current/?table={top_game.link.table_id}")
        .json()
    )
    assert current["shown_live"] is True and current["table"] in {
        g.link.table_id for g in games_in_play(arena)
    }
    assert client_for().get("/tournaments/999999/tv/").status_code == 404
