"""Fair play, putting it right (PostgreSQL): marking an account gives its victims back
the rating it took from them in the last 90 days, takes it off the leaderboards and the
results of tournaments and arenas, and tells everyone concerned; warnings, closing, the
appeal and the moderator's decision; who may do it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from core.errors import Refused
from fairplay import services as fairplay
from fairplay.models import FairPlayAppeal, FairPlayMark
from games import ratings, services
from games.models import Match, Rating, RatingChange, RatingRefund
from games.selectors import leaderboard
from games.speeds import Speed
from moderation.models import AuditLog
from notifications.models import Kind, Notification
from notifications.texts import notice_text
from pairing.services import seek_create
from tests.factories import client_for, make_moderator, make_table, make_user
from tests.tournaments.helpers import advance, hands_in_play, make_tournament, started, time_out
from tournaments.arena_selectors import arena_leaderboard, arena_recount
from tournaments.formats.arena import arena_rank_order
from tournaments.models import Tournament, TournamentEntry
from tournaments.selectors import tournament_audit, tournament_standings, user_tournaments

pytestmark = pytest.mark.django_db


def beaten(*, winner: User, loser: User) -> Match:
    """A rated blitz match of two that ``loser`` loses in rating: he leaves during it
    (a bot plays his seat on; a leaver ranks below everyone who stayed)."""
    table = make_table(winner, players=1)
    services.table_sit(table_id=table.pk, user=loser)
    match = services.match_start(table_id=table.pk, by=winner)
    services.table_leave(table_id=table.pk, user=loser)
    for _ in range(200):
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return match
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            services.match_next_hand(
                match_id=match.pk, after_number=hand.number, now=hand.finished_at
            )
            continue
        services.execute(
            services.Timeout(hand_id=hand.pk), now=hand.deadline + timedelta(seconds=1)
        )
    raise AssertionError("the match did not end")


def mu_of(user: User) -> float:
    return Rating.objects.get(user=user, speed=Speed.BLITZ).mu


def lost_in(match: Match, user: User) -> float:
    change = RatingChange.objects.get(match=match, user=user)
    return change.mu_before - change.mu_after


def test_marking_gives_each_victim_back_what_he_lost_to_the_cheater_in_90_days(mod):
    cheat, ola, janek = make_user("cheat"), make_user("ola"), make_user("janek")
    old = beaten(winner=cheat, loser=ola)
    recent = [beaten(winner=cheat, loser=ola), beaten(winner=cheat, loser=janek)]
    fair = beaten(winner=janek, loser=ola)  # nothing to do with the cheater
    now = max(m.finished_at for m in (*recent, fair)) + timedelta(minutes=1)
    Match.objects.filter(pk=old.pk).update(finished_at=now - timedelta(days=91))
    # The history in the order of these times (the clock of the test plays every match
    # from the same moment): the rebuild below must give the same after the refunds.
    ratings.ratings_recompute()
    owed = {ola: lost_in(recent[0], ola), janek: lost_in(recent[1], janek)}
    assert all(mu > 0 for mu in owed.values()) and lost_in(old, ola) > 0
    before = {user: mu_of(user) for user in (cheat, ola, janek)}

    result = fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine moves", now=now)

    assert result.newly_marked
    for user, mu in owed.items():
        assert mu_of(user) == pytest.approx(before[user] + mu)  # exactly the loss, no more
    assert mu_of(cheat) == before[cheat]
    refunds = RatingRefund.objects.order_by("user__username")
    assert [(r.user, r.match_id, r.because_of, r.speed) for r in refunds] == [
        (janek, recent[1].pk, cheat, "blitz"),
        (ola, recent[0].pk, cheat, "blitz"),
    ]
    assert not RatingRefund.objects.filter(match__in=[old, fair]).exists()
    # The rebuild from the start gives the same ratings: the refunds are in the history.
    now_ratings = {(r.user_id, r.speed): r.mu for r in Rating.objects.all()}
    ratings.ratings_recompute()
    assert {(r.user_id, r.speed): r.mu for r in Rating.objects.all()} == pytest.approx(now_ratings)
    cheat.refresh_from_db()
    assert cheat.fairplay_marked_at == now
    mark = FairPlayMark.objects.get(user=cheat)
    assert (mark.marked_by, mark.reason, mark.lifted_at) == (mod, "engine moves", None)
    entry = AuditLog.objects.get(action=AuditLog.Action.FAIRPLAY_MARK)
    assert (entry.actor, entry.target_user, entry.reason) == (mod, cheat, "engine moves")


def test_marking_twice_changes_nothing_more(mod):
    cheat, ola = make_user("cheat"), make_user("ola")
    beaten(winner=cheat, loser=ola)
    first = fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    rating = mu_of(ola)
    again = fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine, again")
    assert not again.newly_marked and again.mark == first.mark and again.refunds == []
    assert mu_of(ola) == rating
    assert RatingRefund.objects.count() == 1
    assert FairPlayMark.objects.count() == 1
    assert AuditLog.objects.filter(action=AuditLog.Action.FAIRPLAY_MARK).count() == 1


def test_a_three_player_match_refunds_only_what_the_cheater_cost(mod):
    cheat, ola, janek = make_user("cheat"), make_user("ola"), make_user("janek")
    table = make_table(cheat, players=1, seats=3)
    for user in (ola, janek):
        services.table_sit(table_id=table.pk, user=user)
    match = services.match_start(table_id=table.pk, by=cheat)
    services.table_leave(table_id=table.pk, user=ola)  # ola ranks last
    while True:
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            break
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            services.match_next_hand(
                match_id=match.pk, after_number=hand.number, now=hand.finished_at
            )
        else:
            services.execute(
                services.Timeout(hand_id=hand.pk), now=hand.deadline + timedelta(seconds=1)
            )
    changes = {c.user_id: c for c in RatingChange.objects.filter(match=match)}
    places = {p.user_id: p.place for p in match.players.all()}
    # The recount: the match rated between ola and janek alone, from their ratings before.
    ranks = {janek.pk: places[janek.pk], ola.pk: 99}
    without = ratings.MODEL.rate(
        [
            [ratings.MODEL.rating(mu=changes[u].mu_before, sigma=changes[u].sigma_before)]
            for u in (ola.pk, janek.pk)
        ],
        ranks=[ranks[ola.pk], ranks[janek.pk]],
    )
    expected = {
        u.pk: r.mu - changes[u.pk].mu_after for u, (r,) in zip((ola, janek), without, strict=True)
    }
    before = {u: mu_of(u) for u in (ola, janek)}
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="collusion")
    for user in (ola, janek):
        assert mu_of(user) == pytest.approx(before[user] + max(0.0, expected[user.pk]))


def test_the_victims_see_the_refund_and_hear_of_it_in_their_language(mod):
    cheat, ola = make_user("cheat"), make_user("ola", language="pl")
    match = beaten(winner=cheat, loser=ola)
    points = round(24 * lost_in(match, ola))
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    page = client_for().get(reverse("profile", kwargs={"username": "ola"}))
    assert f"+{points} refunded: games against an account marked for cheating" in page.text
    polish = client_for().get(
        reverse("profile", kwargs={"username": "ola"}), HTTP_ACCEPT_LANGUAGE="pl"
    )
    assert f"+{points} zwrócone: partie z kontem oznaczonym za oszukiwanie" in polish.text
    notice = Notification.objects.get(owner=ola, kind=Kind.RATING_REFUNDED)
    assert notice.params == {"points": points, "speed": "blitz"}
    with translation.override("en"):
        assert notice_text(notice) == (
            f"+{points} rating refunded (blitz): games against an account marked for cheating."
        )
    # The cheater is told too, with the way to appeal; his profile says it to everyone.
    told = Notification.objects.get(owner=cheat, kind=Kind.MODERATION)
    assert told.link == reverse("fairplay:appeal")
    with translation.override("en"):
        assert "marked for breaking fair play: engine" in notice_text(told)
    profile = client_for().get(reverse("profile", kwargs={"username": "cheat"}))
    assert "This account was marked for breaking fair play." in profile.text


def test_a_marked_account_leaves_the_leaderboard_and_plays_casual_only(mod):
    cheat, honest = make_user("cheat"), make_user("honest")
    # Established in blitz (ten rated matches), the cheater on top.
    Rating.objects.create(user=cheat, speed=Speed.BLITZ, mu=40.0, matches=12)
    Rating.objects.create(user=honest, speed=Speed.BLITZ, mu=30.0, matches=12)
    assert [row.user for row in leaderboard(Speed.BLITZ)] == [cheat, honest]
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    assert [(row.place, row.user) for row in leaderboard(Speed.BLITZ)] == [(1, honest)]
    cheat.refresh_from_db()
    rated = make_table(make_user(), players=1)
    with pytest.raises(Refused, match="casual tables only"):
        services.table_sit(table_id=rated.pk, user=cheat)
    with pytest.raises(Refused, match="casual tables only"):
        make_table(cheat, players=1)
    with pytest.raises(Refused, match="casual tables only"):
        seek_create(
            user=cheat,
            time_control="3+2",
            size=2,
            bots_after=settings.PAIRING_WAITS[0],
            channel_name="c",
            now=timezone.now(),
        )
    casual = make_table(make_user(), players=1, rated=False)
    services.table_sit(table_id=casual.pk, user=cheat)
    make_table(cheat, players=1, rated=False)


def test_a_non_moderator_is_refused_and_nothing_changes():
    cheat, ola, player = make_user("cheat"), make_user("ola"), make_user("nosy")
    beaten(winner=cheat, loser=ola)
    rating = mu_of(ola)
    for action in (fairplay.account_mark, fairplay.account_warn, fairplay.account_close):
        with pytest.raises(PermissionDenied):
            action(by=player, user_id=cheat.pk, reason="I think so")
    cheat.refresh_from_db()
    assert cheat.fairplay_marked_at is None and not cheat.is_banned()
    assert mu_of(ola) == rating
    assert not AuditLog.objects.exists() and not RatingRefund.objects.exists()


def test_bad_input_is_refused_with_a_clear_message(mod, english):
    cheat = make_user("cheat")
    with pytest.raises(Refused, match="Give a reason"):
        fairplay.account_mark(by=mod, user_id=cheat.pk, reason="   ")
    with pytest.raises(Refused, match="does not exist"):
        fairplay.account_mark(by=mod, user_id=10**9, reason="engine")
    with pytest.raises(Refused, match="your own account"):
        fairplay.account_warn(by=mod, user_id=mod.pk, reason="engine")
    with pytest.raises(PermissionDenied):
        fairplay.account_mark(by=mod, user_id=make_moderator().pk, reason="engine")
    assert not FairPlayMark.objects.exists() and not AuditLog.objects.exists()


def test_a_warning_is_logged_and_told(mod):
    ola = make_user("ola")
    fairplay.account_warn(by=mod, user_id=ola.pk, reason="a friend advising you")
    entry = AuditLog.objects.get()
    assert (entry.action, entry.target_user, entry.reason) == (
        AuditLog.Action.FAIRPLAY_WARN,
        ola,
        "a friend advising you",
    )
    notice = Notification.objects.get(owner=ola)
    with translation.override("pl"):
        assert notice_text(notice).startswith("Moderator ostrzega cię w sprawie uczciwej gry")
    ola.refresh_from_db()
    assert ola.fairplay_marked_at is None


def test_closing_marks_and_bans_for_good(mod):
    cheat, ola = make_user("cheat"), make_user("ola")
    beaten(winner=cheat, loser=ola)
    fairplay.account_close(by=mod, user_id=cheat.pk, reason="engine, again and again")
    cheat.refresh_from_db()
    assert cheat.is_fairplay_marked and cheat.is_banned(timezone.now() + timedelta(days=3650))
    assert RatingRefund.objects.filter(user=ola).exists()
    assert set(AuditLog.objects.values_list("action", flat=True)) == {
        AuditLog.Action.FAIRPLAY_MARK,
        AuditLog.Action.BAN,
    }


# --- tournaments and arenas ----------------------------------------------------------------


def play_elimination(users: list[User]) -> Tournament:
    tournament = started(make_tournament(users=users, seats_per_table=4))
    moment = timezone.now()
    for _ in range(300):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        in_play = hands_in_play(tournament)
        if not in_play:
            advance(tournament)
            continue
        hand = in_play[0]
        hand.refresh_from_db()
        moment = max(hand.deadline + timedelta(seconds=1), moment + timedelta(milliseconds=1))
        time_out(hand, now=moment)
    else:
        pytest.fail("the tournament did not finish")
    advance(tournament)
    return tournament


def places(tournament: Tournament) -> dict[str, int | None]:
    return dict(tournament.entries.values_list("display_name", "place"))


@pytest.mark.parametrize("cheat_place", [1, 3])
def test_an_elimination_tournaments_places_close_up_and_agree_with_the_recount(mod, cheat_place):
    users = [make_user() for _ in range(5)]
    tournament = play_elimination(users)
    played = places(tournament)
    cheat = User.objects.get(username=next(n for n, p in played.items() if p == cheat_place))
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    tournament.refresh_from_db()
    after = places(tournament)
    assert after[cheat.username] is None
    for name, place in played.items():
        if name != cheat.username:
            assert after[name] == (place - 1 if place > cheat_place else place)
    assert sorted(p for p in after.values() if p) == [1, 2, 3, 4]
    assert tournament_audit(tournament=tournament) == []
    standings = tournament_standings(tournament=tournament, viewer=None)
    shown = [row.name for row in [*standings.players_in, *standings.eliminated]]
    assert cheat.username not in shown and len(shown) == 4
    assert user_tournaments(user=cheat) == []
    assert tournament.entries.get(user=cheat).place_played == cheat_place


def test_an_arenas_leaderboard_drops_the_cheater_and_the_others_move_up(mod):
    from tests.tournaments.test_arena import games_in_play, hand_of, make_arena, pair, start

    users = [make_user() for _ in range(4)]
    arena = start(make_arena(users=users))
    arena.refresh_from_db()
    (game,) = games_in_play(arena)
    time_out(hand_of(game), now=arena.ends_at + timedelta(seconds=1))
    pair(arena, now=arena.ends_at + timedelta(seconds=2))
    arena.refresh_from_db()
    assert arena.status == Tournament.Status.FINISHED
    board = [row.user_id for row in arena_leaderboard(tournament=arena, viewer=None).rows]
    cheat = User.objects.get(pk=board[0])
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    rows = arena_leaderboard(tournament=arena, viewer=None).rows
    assert [row.user_id for row in rows] == board[1:]
    assert [row.rank for row in rows] == [1, 2, 3]
    # The recount: the points from the hands, ranked without him, give the same order.
    points = arena_recount(arena)
    counted = list(arena.entries.filter(struck_at__isnull=True))
    for entry in counted:
        assert entry.points == points[entry.pk]
    assert [e.user_id for e in arena_rank_order(counted)] == board[1:]
    assert [e.place for e in sorted(counted, key=lambda e: e.place)] == [1, 2, 3]
    assert TournamentEntry.objects.get(user=cheat).place is None


def test_a_live_tournament_disqualifies_the_cheater_and_a_coming_one_drops_him(mod):
    cheat = make_user("cheat")
    live = started(make_tournament(users=[cheat, *[make_user() for _ in range(3)]]))
    coming = make_tournament(users=[cheat, make_user()], name="Later cup")
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    entry = live.entries.get(user=cheat)
    assert entry.disqualified and entry.struck_at is not None and entry.place is None
    assert not coming.entries.filter(user=cheat).exists()
    cheat.refresh_from_db()
    with pytest.raises(Refused):
        from tournaments import services as tournaments

        tournaments.tournament_register(tournament_id=coming.pk, user=cheat)
    assert tournament_audit(tournament=live) == []


# --- the appeal -----------------------------------------------------------------------------


def test_a_marked_player_appeals_once_and_a_moderator_upholds_the_mark(mod, english):
    cheat = make_user("cheat")
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    client = client_for(cheat)
    page = client.get("/fair-play/appeal/")
    assert "Your account was marked for breaking fair play" in page.text
    sent = client.post("/fair-play/appeal/", {"text": "I play on my own."})
    assert sent.status_code == 302 and sent["Location"] == "/fair-play/appeal/"
    appeal = FairPlayAppeal.objects.get()
    assert (appeal.text, appeal.status) == ("I play on my own.", FairPlayAppeal.Status.OPEN)
    again = client.post(reverse("fairplay:appeal"), {"text": "Please!"})
    assert again.status_code == 400
    assert "You have already appealed: a mark can be appealed once." in again.text
    assert FairPlayAppeal.objects.count() == 1

    moderators = client_for(mod)
    listed = moderators.get("/moderation/fair-play/appeals/")
    assert "I play on my own." in listed.text
    decided = moderators.post(
        f"/moderation/fair-play/appeals/{appeal.pk}/decide/",
        {"decision": "uphold", "reason": "the moves match the engine's"},
    )
    assert decided.status_code == 302
    assert decided["Location"] == "/moderation/fair-play/appeals/"
    appeal.refresh_from_db()
    assert appeal.status == FairPlayAppeal.Status.UPHELD and appeal.decided_by == mod
    cheat.refresh_from_db()
    assert cheat.is_fairplay_marked
    told = Notification.objects.filter(owner=cheat, kind=Kind.MODERATION).first()
    assert "the fair play mark stays" in notice_text(told)
    with pytest.raises(Refused, match="already been decided"):
        fairplay.appeal_decide(by=mod, appeal_id=appeal.pk, lift=True, reason="changed mind")


def test_lifting_the_mark_gives_the_places_back_and_the_refunds_stay(mod):
    cheat = make_user("cheat")
    ola = make_user("ola")
    beaten(winner=cheat, loser=ola)
    tournament = play_elimination([cheat, *[make_user() for _ in range(4)]])
    played = places(tournament)
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine")
    refunded = mu_of(ola)
    appeal = fairplay.appeal_create(user=cheat, text="It was my brother.")
    fairplay.appeal_decide(by=mod, appeal_id=appeal.pk, lift=True, reason="a mistake")
    cheat.refresh_from_db()
    assert not cheat.is_fairplay_marked
    assert places(tournament) == played
    assert tournament_audit(tournament=tournament) == []
    assert mu_of(ola) == refunded
    assert FairPlayMark.objects.get().lifted_by == mod
    assert AuditLog.objects.filter(action=AuditLog.Action.FAIRPLAY_LIFT).exists()
    # Marked again: the same matches are not refunded twice.
    fairplay.account_mark(by=mod, user_id=cheat.pk, reason="engine after all")
    assert mu_of(ola) == refunded


def test_only_moderators_see_and_decide_appeals(english):
    player = make_user("nosy")
    client = client_for(player)
    assert client.get(reverse("fairplay:appeals")).status_code == 403
    assert (
        client.post(
            reverse("fairplay:appeal_decide", kwargs={"appeal_id": 1}),
            {"decision": "lift", "reason": "why not"},
        ).status_code
        == 403
    )
    page = client.get(reverse("fairplay:appeal"))
    assert "Your account is not marked for breaking fair play." in page.text
    with pytest.raises(Refused, match="not marked"):
        fairplay.appeal_create(user=player, text="hello")


def test_the_moderators_user_page_marks_and_warns_with_a_reason(mod):
    cheat = make_user("cheat")
    client = client_for(mod)
    change = reverse("admin:accounts_user_change", args=[cheat.pk])
    page = client.get(change)
    assert 'data-testid="user-action-fairplay_mark_users"' in page.text
    assert 'data-testid="user-action-fairplay_warn_users"' in page.text
    changelist = reverse("admin:accounts_user_changelist")
    form = {"action": "fairplay_mark_users", "_selected_action": [cheat.pk]}
    assert client.post(changelist, form).status_code == 200  # the reason first
    empty = client.post(changelist, {**form, "apply": "1", "text": ""})
    assert empty.status_code == 200 and not FairPlayMark.objects.exists()
    done = client.post(changelist, {**form, "apply": "1", "text": "engine moves"})
    assert done.status_code == 302
    assert FairPlayMark.objects.get().reason == "engine moves"
    warn = {"action": "fairplay_warn_users", "_selected_action": [cheat.pk]}
    assert client.post(changelist, {**warn, "apply": "1", "text": "be careful"}).status_code == 302
    assert AuditLog.objects.filter(action=AuditLog.Action.FAIRPLAY_WARN).count() == 1
