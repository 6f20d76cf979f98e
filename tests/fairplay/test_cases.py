"""Fair play's cases: the check after a rated match (a real Celery worker on the analysis
queue), the moderators' queue and a case's page, and the decision."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bench.processes import celery_worker_args, running, wait_for_log, wait_until
from fairplay.models import (
    FairPlayCase,
    FairPlayHand,
    FairPlayMoment,
    PairSignals,
    PlayerSignals,
)
from fairplay.reference import Reference
from fairplay.services import cases as fairplay_cases
from games import bots, services
from games.models import Hand, Match
from moderation.models import AuditLog
from tests.factories import client_for, make_moderator, make_table, make_user
from tests.games.test_clocks import process_env

# No honest values: each signal judged against a standard normal law, so that these tests
# do not hang on the simulation's reference of the day.
NORMAL = Reference(source="", values={}, match_rates={})


def play_rated_match(players: int = 2) -> Match:
    """A rated match of ``players`` people played greedily to P-A-N (seeded moves), each
    move three seconds after the last."""
    table = make_table(players=players, base_seconds=600, increment_seconds=5)
    now = timezone.now()
    match = services.match_start(table_id=table.pk, by=table.owner, now=now)
    users = {p.seat: p.user for p in match.players.select_related("user")}
    for _ in range(40):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            return match
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            now += timedelta(seconds=5)
            services.match_next_hand(match_id=match.pk, after_number=hand.number, now=now)
            continue
        while not hand.is_over:
            state = hand.engine_state
            move = bots.choose_move(
                "greedy", state.view_for(state.to_move), seed=f"{hand.pk}:{hand.version}"
            )
            now += timedelta(seconds=3)
            hand = services.execute(
                services.move_action(
                    move, hand_id=hand.pk, version=hand.version, user=users[state.to_move]
                ),
                now=now,
            )
    raise AssertionError("the match did not end")


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_a_rated_match_is_judged_on_the_analysis_worker_and_a_case_reaches_the_queue(tmp_path):
    env = process_env() | {
        # A small budget, and a case for anyone judged: the wiring is what is tested here.
        "FAIRPLAY_PLAYOUTS": "4",
        "FAIRPLAY_BOT_PLAYOUTS": "8",
        "FAIRPLAY_CASE_CHANCE": "1",
        "FAIRPLAY_MIN_DECISIONS": "1",
    }
    from django.conf import settings

    log = tmp_path / "analysis.log"
    args = celery_worker_args(queues=[settings.CELERY_ANALYSIS_QUEUE], concurrency=1)
    with running(args, env=env, log=log) as proc:
        wait_for_log(log, "ready.", proc=proc)
        match = play_rated_match()
        hands = Hand.objects.filter(match=match).count()
        wait_until(
            lambda: FairPlayHand.objects.filter(hand__match=match).count() == hands,
            timeout=300,  # seconds of work, on a machine the other tests may crowd
            what="every hand of the match judged by the worker",
        )
    people = [p.user for p in match.players.select_related("user")]
    judged = PlayerSignals.objects.filter(user__in=people)
    assert judged.count() == 2 and all(row.hands == hands for row in judged)
    cases = FairPlayCase.objects.filter(status="open", other__isnull=True)
    assert {case.user_id for case in cases} & {u.pk for u in people}
    page = client_for(make_moderator("judge")).get("/moderation/fair-play/").content.decode()
    assert any(u.username in page for u in people)


# --- the queue and a case, on sums written directly ---------------------------------------


def open_case(user, other=None, *, chance: float, **signals) -> FairPlayCase:
    tails = {
        name: {"value": value, "above": 0.99, "chance": chance, "count": 100}
        for name, value in (signals or {"assistance": 4.0}).items()
    }
    return FairPlayCase.objects.create(
        user=user, other=other, chance=chance, signals={"tails": tails}
    )


@pytest.mark.django_db
def test_only_moderators_see_the_queue():
    player = make_user()
    open_case(player, chance=1e-6)
    assert client_for(player).get("/moderation/fair-play/").status_code == 403
    assert client_for().get("/moderation/fair-play/").status_code == 302  # to the login
    case = FairPlayCase.objects.get()
    assert client_for(player).get(f"/moderation/fair-play/{case.pk}/").status_code == 403
    response = client_for(player).post(f"/moderation/fair-play/{case.pk}/", {"decision": "clear"})
    assert response.status_code == 403
    assert FairPlayCase.objects.get().status == "open"


@pytest.mark.django_db
def test_the_queue_ranks_cases_by_evidence_and_a_case_shows_its_moves_with_the_replay():
    match = play_rated_match(players=3)
    hand = match.hands.order_by("number").first()
    a, b, c = (p.user for p in match.players.order_by("seat"))
    weak = open_case(c, chance=1e-3, assistance=3.1)
    strong = open_case(a, b, chance=1e-7, feeding=5.0, knowledge=4.0)
    FairPlayMoment.objects.create(
        hand=hand, step=6, user=a, other=b, kind="knowledge", weight=0.4,
        details={
            "seat": 0, "other_seat": 1, "made": 1, "best": 0, "bot": 0,
            "moves": [{"move": {"type": "play", "cards": ["KH"]}, "losses": [0.2, 0.6, 0.2]},
                      {"move": {"type": "pickup", "count": 2}, "losses": [0.5, 0.1, 0.4]}],
            "other_hand": ["9S", "AH"],
        },
    )  # fmt: skip
    moderator = make_moderator("mod", language="en")
    page = client_for(moderator).get("/moderation/fair-play/").content.decode()
    assert page.index(f"{a.username} + {b.username}") < page.index(c.username)
    case_page = client_for(moderator).get(f"/moderation/fair-play/{strong.pk}/").content.decode()
    assert f"/hands/{hand.pk}/?move=7" in case_page
    assert "Moves explained by the other player&#x27;s hand" in case_page
    assert "higher than 99.0 % of 100 honest pairs" in case_page
    assert "pick up 2 cards" in case_page and "played" in case_page
    assert f"{b.username} held: 9♠ A♥" in case_page
    # The replay opens at that move: its step is drawn on the page.
    replay = client_for(moderator).get(f"/hands/{hand.pk}/?move=7").content.decode()
    assert 'data-frame="7"' in replay
    # The weaker case's page names its player and his one signal, and no other player.
    weak_page = client_for(moderator).get(f"/moderation/fair-play/{weak.pk}/").content.decode()
    assert c.username in weak_page and a.username not in weak_page


@pytest.mark.django_db
def test_clearing_closes_the_case_and_writes_the_audit_log():
    player = make_user()
    case = open_case(player, chance=1e-6)
    moderator = make_moderator("mod", language="en")
    client = client_for(moderator)
    response = client.post(
        f"/moderation/fair-play/{case.pk}/", {"decision": "clear", "reason": "a strong player"}
    )
    assert response.status_code == 302 and response["Location"] == "/moderation/fair-play/"
    case.refresh_from_db()
    assert case.status == "cleared" and case.decided_by == moderator
    entry = AuditLog.objects.get(action=AuditLog.Action.FAIRPLAY_CLEAR)
    assert entry.actor == moderator and entry.target_user == player
    assert entry.reason == "a strong player"
    assert "No open cases." in client.get("/moderation/fair-play/").content.decode()


@pytest.mark.django_db
def test_bad_input_says_why_and_changes_nothing():
    player = make_user()
    case = open_case(player, chance=1e-6)
    client = client_for(make_moderator("mod", language="en"))
    url = f"/moderation/fair-play/{case.pk}/"
    page = client.post(url, {"decision": "ban-forever"}, follow=True).content.decode()
    assert "Choose one of the decisions offered." in page
    page = client.post(url, {"decision": "warn", "reason": " "}, follow=True).content.decode()
    assert "Give a reason." in page
    assert FairPlayCase.objects.get().status == "open" and not AuditLog.objects.exists()
    client.post(url, {"decision": "clear"})
    page = client.post(url, {"decision": "clear"}, follow=True).content.decode()
    assert "This case is already decided." in page
    assert AuditLog.objects.count() == 1
    assert client.get("/moderation/fair-play/999999/").status_code == 404


@pytest.mark.django_db
def test_a_case_opens_for_unusual_signals_once_and_a_decided_one_stays_decided(settings):
    settings.FAIRPLAY_MIN_DECISIONS = 1
    settings.FAIRPLAY_CASE_CHANCE = 0.01
    # Honest players match the strong bot from 10 points below their band's rate to 10 above.
    reference = Reference(
        source="test", values={"assistance": tuple(i / 100 for i in range(-10, 11))}, match_rates={}
    )
    player = make_user()
    PlayerSignals.objects.create(user=player, nontrivial=100, matched=95, expected=50, variance=25)
    now = timezone.now()
    fairplay_cases._review([player.pk], reference, now)
    fairplay_cases._review([player.pk], reference, now)
    case = FairPlayCase.objects.get()
    assert case.status == "open" and case.chance < 0.01
    assert case.signals["match_rate"] == 0.95
    fairplay_cases.fairplay_case_decide(by=make_moderator("mod"), case_id=case.pk, decision="clear")
    fairplay_cases._review([player.pk], reference, now)
    assert FairPlayCase.objects.count() == 1  # not opened again for the same signals
    honest = make_user()
    PlayerSignals.objects.create(user=honest, nontrivial=100, matched=58, expected=50, variance=25)
    fairplay_cases._review([honest.pk], reference, now)
    assert not FairPlayCase.objects.filter(user=honest).exists()
    # Thirty points above his band's rate on ten decisions can be luck (on a hundred, not).
    few = make_user()
    PlayerSignals.objects.create(user=few, nontrivial=10, matched=8, expected=5, variance=2.5)
    fairplay_cases._review([few.pk], reference, now)
    assert not FairPlayCase.objects.filter(user=few).exists()


def pair(one, two, *, together: int = 1, expected: float = 0.0, **sums) -> None:
    """Both directions of a pair's sums: ``sums`` one's toward two, ``two_*`` two's."""
    mine = {k: v for k, v in sums.items() if not k.startswith("two_")}
    theirs = {k[4:]: v for k, v in sums.items() if k.startswith("two_")}
    common = {"together": together, "expected_together": expected, "decisions": 60}
    PairSignals.objects.create(user=one, other=two, **common, **mine)
    PairSignals.objects.create(user=two, other=one, **common, **theirs)


@pytest.mark.django_db
def test_throwing_hands_counts_toward_a_pair_only_once_they_keep_meeting(settings):
    settings.FAIRPLAY_MIN_DECISIONS = 1
    dumper, gainer = make_user(), make_user()
    # Sixty decisions, each his worst on two moves in three: a random player's 40.
    pair(dumper, gainer, together=2, expected=0.5, dumps=60, dump_expected=40.0,
         dump_variance=40 / 3)  # fmt: skip
    now = timezone.now()
    fairplay_cases._review([dumper.pk, gainer.pk], NORMAL, now)
    # Twice at one table, as chance seats people: he threw hands to anyone's gain.
    assert not FairPlayCase.objects.exists()
    PairSignals.objects.update(together=6)  # 5 tables after the first where 0.5 were due
    fairplay_cases._review([dumper.pk, gainer.pk], NORMAL, now)
    case = FairPlayCase.objects.get()
    assert (case.user, case.other) == (dumper, gainer)
    assert case.signals["tails"]["dumping"]["chance"] < settings.FAIRPLAY_CASE_CHANCE
    assert case.signals["overlap_chance"] < fairplay_cases.DUMPING_OVERLAP


@pytest.mark.django_db
def test_a_pair_plays_for_each_other_in_both_directions_a_seat_style_in_one(settings):
    settings.FAIRPLAY_MIN_DECISIONS = 1
    now = timezone.now()
    # One always helps the other beyond the table (z 5), who does not help him back (z -1):
    # what a style that favours the next seat shows between friends who always sit so.
    one, two = make_user(), make_user()
    pair(one, two, help_sum=10.0, help_squares=4.0, two_help_sum=-2.0, two_help_squares=4.0)
    fairplay_cases._review([one.pk, two.pk], NORMAL, now)
    assert not FairPlayCase.objects.exists()
    three, four = make_user(), make_user()
    pair(three, four, help_sum=10.0, help_squares=4.0, two_help_sum=9.0, two_help_squares=4.0)
    fairplay_cases._review([three.pk, four.pk], NORMAL, now)
    case = FairPlayCase.objects.get()
    assert {case.user, case.other} == {three, four}
    assert case.signals["tails"]["feeding"]["value"] == 4.5  # the smaller direction


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("decision", "action", "status"),
    [
        ("warn", AuditLog.Action.FAIRPLAY_WARN, "warned"),
        ("mark", AuditLog.Action.FAIRPLAY_MARK, "marked"),
    ],
)
def test_warning_or_marking_a_pair_acts_on_both_accounts_through_the_account_services(
    decision, action, status
):
    first, second = make_user(), make_user()
    case = open_case(first, second, chance=1e-8, knowledge=5.0)
    moderator = make_moderator("mod", language="en")
    response = client_for(moderator).post(
        f"/moderation/fair-play/{case.pk}/", {"decision": decision, "reason": "shared cards"}
    )
    assert response.status_code == 302
    case.refresh_from_db()
    assert case.status == status and case.decided_by == moderator
    entries = AuditLog.objects.filter(action=action)
    assert {entry.target_user for entry in entries} == {first, second}
    first.refresh_from_db()
    assert (first.fairplay_marked_at is not None) == (decision == "mark")
