"""Arena tournaments through the services on PostgreSQL: pairing waves, points from the
hands, pause, withdraw, late join, Berserk and the countdown's end with games in play."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from games import services as games
from games.models import Hand
from games.services import Refused
from tests.factories import make_user
from tests.tournaments.helpers import make_staff, make_tournament, time_out
from tournaments import services
from tournaments.arena_selectors import arena_leaderboard, arena_player_games, arena_recount
from tournaments.formats.arena import overtime
from tournaments.models import ArenaGame, ArenaPlayer, Format, Tournament, TournamentEntry
from tournaments.services import TournamentSettings

pytestmark = pytest.mark.django_db


def make_arena(*, bots: int = 0, users=(), minutes: int = 20, **settings) -> Tournament:
    settings.setdefault("seats_per_table", 4)
    settings.setdefault("seats_min", 3)
    return make_tournament(
        bots=bots, users=list(users), format=Format.ARENA, minutes=minutes, **settings
    )


def start(tournament: Tournament, now=None) -> Tournament:
    return services.tournament_start(
        tournament_id=tournament.pk, by=tournament.created_by, now=now or timezone.now()
    )


def games_in_play(tournament: Tournament) -> list[ArenaGame]:
    return list(tournament.games.filter(finished_at__isnull=True).order_by("pk"))


def hand_of(game: ArenaGame) -> Hand:
    return Hand.objects.get(match_id=game.match_id)


def entry_of(user) -> TournamentEntry:
    return TournamentEntry.objects.get(user=user)


def pair(tournament: Tournament, now=None):
    """A pairing wave, by default five minutes on: past the timeouts ``time_out`` applies
    at a hand's deadline (a minute or three ahead) and the pause after them."""
    later = timezone.now() + timedelta(minutes=5)
    return services.tournament_advance(tournament_id=tournament.pk, now=now or later)


def test_settings_of_an_arena_are_checked():
    soon = timezone.now() + timedelta(hours=1)
    staff = make_staff()
    for bad in ({"minutes": 10}, {"minutes": 181}, {"minutes": None}, {"seats_per_table": 2}):
        settings = TournamentSettings(
            **{"name": "Arena", "starts_at": soon, "format": Format.ARENA, "minutes": 30, **bad}
        )
        with pytest.raises(Refused):
            services.tournament_create(by=staff, settings=settings)
    arena = services.tournament_create(
        by=staff,
        settings=TournamentSettings(
            "Arena", soon, format=Format.ARENA, minutes=30, seats_min=3, rated=True
        ),
    )
    assert arena.is_arena and arena.minutes == 30 and arena.smallest_table == 3 and arena.rated
    # An elimination keeps none of an arena's settings.
    cup = services.tournament_create(
        by=staff, settings=TournamentSettings("Cup", soon, minutes=30, rated=True)
    )
    assert not cup.is_arena and cup.minutes is None and not cup.rated


def test_the_start_pairs_neighbours_in_rating_and_a_game_gives_points_by_place():
    tournament = start(make_arena(bots=7, users=[make_user()]))
    tournament.refresh_from_db()
    assert tournament.ends_at == tournament.started_at + timedelta(minutes=20)
    in_play = games_in_play(tournament)
    assert len(in_play) == 2
    assert all(p.entry.table_id is not None for g in in_play for p in g.players.all())
    # The ranking before points is the rating: the strongest sit together.
    ratings = [sorted(p.entry.start_rating for p in g.players.all()) for g in in_play]
    assert max(ratings[1]) <= min(ratings[0]) or max(ratings[0]) <= min(ratings[1])
    game = in_play[0]
    hand = hand_of(game)
    loser_seat = time_out(hand)
    game.refresh_from_db()
    assert game.finished_at is not None and game.counted
    parts = {p.seat: p for p in game.players.select_related("entry")}
    # Nobody went out: the three others share places 1-3, (5 + 3 + 1) / 3 points each.
    assert parts[loser_seat].points == 0 and parts[loser_seat].place_best == 4
    for seat, part in parts.items():
        if seat != loser_seat:
            assert (part.place_best, part.place_worst) == (1, 3)
            assert part.points == 3 and part.entry.points == 3
        assert part.entry.table_id is None and part.entry.games_played == 1
        # Back in the pool; the person, had he timed out without acting, paused instead.
        assert (part.entry.waiting_since is not None) != part.entry.paused
    # The game's match ended, its table's seats are free, and the recount agrees.
    assert game.match.status == "finished"
    assert all(s.is_empty for s in game.link.table.seats.all())
    recount = arena_recount(tournament)
    assert all(recount[e.pk] == e.points for e in tournament.entries.all())


def test_a_player_who_does_not_act_in_a_game_is_paused_until_he_comes_back():
    user = make_user()
    tournament = start(make_arena(bots=3, users=[user], seats_min=4))
    game = games_in_play(tournament)[0]
    hand = hand_of(game)
    me = game.players.get(entry__user=user)
    # The bots move until it is his turn, then his clock runs out.
    while hand.engine_state.to_move != me.seat:
        games.execute(
            games.move_action(
                _first_legal(hand), hand_id=hand.pk, version=hand.version, as_bot=True
            )
        )
        hand.refresh_from_db()
    time_out(hand)
    mine = entry_of(user)
    assert mine.paused and mine.waiting_since is None
    # The three bots wait for a fourth: he is not paired.
    assert pair(tournament).started == 0 and entry_of(user).table_id is None
    # He comes back: in the pool again, and seated by the next wave with the bots.
    services.arena_join(tournament_id=tournament.pk, user=user)
    assert not entry_of(user).paused and entry_of(user).waiting_since is not None
    pair(tournament)
    assert entry_of(user).table_id is not None


def test_pause_and_withdraw_keep_points_and_a_late_join_is_paired_at_once():
    first, late = make_user(), make_user()
    tournament = start(make_arena(bots=3, users=[first]))
    game = games_in_play(tournament)[0]
    services.arena_pause(tournament_id=tournament.pk, user=first)
    with pytest.raises(Refused):
        services.arena_pause(tournament_id=tournament.pk, user=first)
    # His game goes on and counts; afterwards he is not in the pool.
    time_out(hand_of(game))
    mine = entry_of(first)
    assert mine.games_played == 1 and mine.waiting_since is None and mine.paused
    # A late player joins during the arena; with the three bots he makes a table.
    services.arena_join(tournament_id=tournament.pk, user=late)
    pair(tournament)
    assert entry_of(late).table_id is not None
    assert entry_of(first).table_id is None
    # Withdrawing keeps the points of a player who has played, on the leaderboard.
    services.arena_withdraw(tournament_id=tournament.pk, user=first)
    assert TournamentEntry.objects.filter(user=first).exists()
    board = arena_leaderboard(tournament=tournament, viewer=first)
    assert board.my_rank is not None and any(r.paused for r in board.rows if r.is_me)


def test_nobody_joins_in_the_last_tenth_of_the_arena():
    tournament = start(make_arena(bots=3, minutes=20))
    tournament.refresh_from_db()
    late = tournament.ends_at - timedelta(minutes=1)
    with pytest.raises(Refused):
        services.arena_join(tournament_id=tournament.pk, user=make_user(), now=late)
    assert not tournament.entries.filter(user__isnull=False).exists()


def test_berserk_halves_the_clock_before_the_first_action_and_shows_on_the_seat():
    bold, careful = make_user(), make_user()
    tournament = start(
        make_arena(bots=2, users=[bold, careful], base_seconds=60, increment_seconds=2)
    )
    (game,) = games_in_play(tournament)
    hand = hand_of(game)
    seats = {p.entry.user_id: p.seat for p in game.players.select_related("entry")}
    before = hand.clock.left_ms[seats[bold.pk]]
    services.arena_berserk(tournament_id=tournament.pk, user=bold)
    hand.refresh_from_db()
    assert hand.bare_seats == 1 << seats[bold.pk]
    assert hand.clock.left_ms[seats[bold.pk]] <= before // 2
    assert ArenaPlayer.objects.get(game=game, entry__user=bold).berserk
    with pytest.raises(Refused):
        services.arena_berserk(tournament_id=tournament.pk, user=bold)
    # The others play on; once the careful player has acted, Berserk is refused him.
    users = {seats[bold.pk]: bold, seats[careful.pk]: careful}
    while True:
        state = hand.engine_state
        mover = users.get(state.to_move)
        games.execute(
            games.move_action(
                _first_legal(hand),
                hand_id=hand.pk,
                version=hand.version,
                user=mover,
                as_bot=mover is None,
            )
        )
        hand.refresh_from_db()
        if mover == careful or hand.is_over:
            break
    if not hand.is_over:
        with pytest.raises(Refused):
            services.arena_berserk(tournament_id=tournament.pk, user=careful)
    assert not ArenaPlayer.objects.get(game=game, entry__user=careful).berserk


def test_the_countdown_ends_no_new_game_starts_and_games_in_play_count_until_the_overtime():
    tournament = start(make_arena(bots=8))
    tournament.refresh_from_db()
    first, second = games_in_play(tournament)
    end = tournament.ends_at
    time_out(hand_of(first), now=end + timedelta(seconds=1))
    # After the end: the players of the finished game are not paired again.
    report = pair(tournament, now=end + timedelta(seconds=2))
    assert report.started == 0 and len(games_in_play(tournament)) == 1
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    # Past the overtime the game still in play is stopped and counts for nobody.
    pair(tournament, now=end + overtime(tournament) + timedelta(seconds=1))
    second.refresh_from_db()
    assert second.finished_at is not None and not second.counted
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    places = list(tournament.entries.order_by("place").values_list("place", "points"))
    assert [p for p, _points in places] == list(range(1, 9))
    assert places[0][1] == max(points for _p, points in places)
    assert all(arena_recount(tournament)[e.pk] == e.points for e in tournament.entries.all())


def test_a_finished_game_in_time_counts_and_the_podium_is_by_points():
    tournament = start(make_arena(bots=4))
    tournament.refresh_from_db()
    (game,) = games_in_play(tournament)
    time_out(hand_of(game), now=tournament.ends_at + timedelta(seconds=1))
    pair(tournament, now=tournament.ends_at + timedelta(seconds=2))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    winner = tournament.entries.get(place=1)
    assert winner.points == Decimal(3)
    games_of_winner = arena_player_games(tournament=tournament, entry_id=winner.pk)
    assert [g.place for g in games_of_winner] == ["1–3"]


def _first_legal(hand: Hand) -> dict:
    from games.engine import move_to_json

    return move_to_json(hand.engine_state.legal_moves()[0])


def test_a_rated_arenas_games_change_ratings_and_an_unrated_ones_do_not():
    from games.models import Rating, RatingChange

    rated = start(make_arena(users=[make_user() for _ in range(4)], rated=True))
    (game,) = games_in_play(rated)
    time_out(hand_of(game))
    changes = RatingChange.objects.filter(match_id=game.match_id)
    assert changes.count() == 4
    assert {c.speed for c in changes} == {"blitz"}  # 3+2: base + 18 x increment = 216 s
    casual = start(make_arena(users=[make_user() for _ in range(4)], name="Casual"))
    (game,) = games_in_play(casual)
    time_out(hand_of(game))
    assert not RatingChange.objects.filter(match_id=game.match_id).exists()
    assert Rating.objects.count() == 4


def test_an_arena_starts_empty_and_the_first_players_to_join_are_seated():
    arena = start(make_arena(name="Early hour"))
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.RUNNING and arena.ends_at is not None
    people = [make_user() for _ in range(3)]
    for person in people:
        services.arena_join(tournament_id=arena.pk, user=person)
    pair(arena)
    assert len(games_in_play(arena)) == 1
    assert all(entry_of(p).table_id is not None for p in people)


def test_players_see_their_result_for_the_pause_before_the_next_pairing():
    arena = start(make_arena(bots=4, seconds_between_hands=3.0))
    (game,) = games_in_play(arena)
    hand = hand_of(game)
    ended = hand.deadline + timedelta(seconds=1)
    time_out(hand, now=ended)
    assert pair(arena, now=ended + timedelta(seconds=1)).started == 0
    assert pair(arena, now=ended + timedelta(seconds=3)).started == 1


def test_a_disqualified_player_leaves_the_board_and_his_game_counts_for_nobody():
    cheat = make_user()
    arena = start(make_arena(bots=3, users=[cheat]))
    (game,) = games_in_play(arena)
    services.tournament_disqualify(
        tournament_id=arena.pk, entry_id=entry_of(cheat).pk, by=arena.created_by, reason="x"
    )
    game.refresh_from_db()
    assert game.finished_at is not None and not game.counted
    assert game.match.status == "finished"
    board = arena_leaderboard(tournament=arena, viewer=cheat)
    assert board.my_rank is None and board.total == 3
    pair(arena)
    assert len(games_in_play(arena)) == 1  # the three others play on
    assert entry_of(cheat).table_id is None
