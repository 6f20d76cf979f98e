"""A finished hand's analysis for one of its players: who may ask, one pending per user
(two requests at once included), its own queue and the place in it, the run with its
progress, and the replay page's panel in words."""

from __future__ import annotations

import json
import re
import threading
from datetime import timedelta
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.utils import timezone

from games import bots, services, tasks
from games.models import Hand, HandAnalysis
from games.selectors.analysis import analysis_queue_place
from tests.factories import client_for, make_table, make_user, seated_users

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def finished_hand(
    owner=None, *, public: bool = True, players: int = 2, rules=None, strategy: str = "greedy"
) -> Hand:
    """A hand of ``players`` people played to its end by the bot ``strategy`` (seeded)."""
    table = make_table(owner, players=players, rules=rules, base_seconds=600, is_public=public)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    users = {p.seat: p.user for p in hand.match.players.all()}
    while not hand.is_over:
        state = hand.engine_state
        move = bots.choose_move(
            strategy, state.view_for(state.to_move), seed=f"{hand.pk}:{hand.version}"
        )
        hand = services.execute(
            services.move_action(
                move, hand_id=hand.pk, version=hand.version, user=users[state.to_move]
            )
        )
    return hand


def decisive_step(result: dict[str, Any]) -> int | None:
    """The replay's step the panel names as the decisive turn of ``result``: the bot's,
    unless its rise shows as 0 points."""
    index = result["decisive"]
    if index is None or round(100 * result["decisions"][index]["rise"]) <= 0:
        return None
    return result["decisions"][index]["step"] + 1


def test_only_a_player_of_a_finished_hand_may_ask(django_capture_on_commit_callbacks):
    hand = finished_hand()
    with pytest.raises(services.Refused, match="Only the players"):
        services.analysis_request(hand_id=hand.pk, user=make_user())
    table = make_table(players=2)
    services.match_start(table_id=table.pk, by=table.owner)
    running = Hand.objects.get(match__table=table)
    with pytest.raises(services.Refused, match="finished hand"):
        services.analysis_request(hand_id=running.pk, user=table.owner)

    player = hand.match.players.get(seat=1).user
    with django_capture_on_commit_callbacks() as queued:
        analysis = services.analysis_request(hand_id=hand.pk, user=player)
    assert (analysis.seat, analysis.status, analysis.user) == (1, "queued", player)
    assert len(queued) == 1  # the task, sent by name after the commit

    # Asking again gives the same analysis and starts nothing.
    with django_capture_on_commit_callbacks() as queued:
        again = services.analysis_request(hand_id=hand.pk, user=player)
    assert again.pk == analysis.pk and not queued


def test_one_pending_analysis_per_user_until_it_is_stale():
    owner = make_user()
    first, second = finished_hand(owner), finished_hand(owner)
    now = timezone.now()
    pending = services.analysis_request(hand_id=first.pk, user=owner, now=now)
    assert pending.status == "queued"

    # Queued longer than a run may take, it still waits its turn and blocks him.
    began = now + services.ANALYSIS_STALE + timedelta(minutes=1)
    with pytest.raises(services.Refused, match="still running"):
        services.analysis_request(hand_id=second.pk, user=owner, now=began)
    # The worker takes it; running that long, it lost its worker: it is marked failed
    # and blocks him no longer.
    HandAnalysis.objects.filter(pk=pending.pk).update(status="running", started_at=began)
    with pytest.raises(services.Refused, match="still running"):
        services.analysis_request(hand_id=second.pk, user=owner, now=began + timedelta(minutes=1))
    later = began + services.ANALYSIS_STALE + timedelta(seconds=1)
    other = services.analysis_request(hand_id=second.pk, user=owner, now=later)
    assert other.status == "queued"
    pending.refresh_from_db()
    assert pending.status == "failed"

    # Queued longer than any queue lasts, it lost its message: the same.
    much_later = later + HandAnalysis.QUEUED_STALE + timedelta(seconds=1)
    again = services.analysis_request(hand_id=first.pk, user=owner, now=much_later)
    assert (again.pk, again.status, again.started_at) == (pending.pk, "queued", much_later)
    other.refresh_from_db()
    assert other.status == "failed"


@pytest.mark.django_db(transaction=True)
def test_two_requests_at_once_start_only_one_analysis():
    if connection.vendor != "postgresql":
        pytest.skip("row locks and a concurrent unique index need PostgreSQL")
    owner = make_user()
    hands = [finished_hand(owner), finished_hand(owner)]
    barrier = threading.Barrier(2)
    results: list[object] = []

    def ask(hand: Hand) -> None:
        try:
            barrier.wait()
            results.append(services.analysis_request(hand_id=hand.pk, user=owner))
        except services.Refused as refusal:
            results.append(refusal)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(hand,)) for hand in hands]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(type(r).__name__ for r in results) == ["HandAnalysis", "Refused"]
    assert HandAnalysis.objects.filter(user=owner, status="queued").count() == 1


def test_the_task_computes_the_analysis_with_its_progress():
    hand = finished_hand()
    player = hand.match.players.get(seat=0).user
    analysis = services.analysis_request(hand_id=hand.pk, user=player)
    asked = analysis.started_at

    assert tasks.analyse_hand_task(analysis.pk) is True

    analysis.refresh_from_db()
    assert analysis.status == "done" and analysis.finished_at is not None
    assert analysis.started_at > asked  # from when the worker began
    decisions = analysis.result["decisions"]
    assert decisions and (analysis.done, analysis.total) == (len(decisions), len(decisions))
    assert {d["step"] for d in decisions} <= set(range(hand.actions.count()))
    assert analysis.result["seat"] == 0
    # Done: nothing runs again, and asking gives the result kept.
    assert tasks.analyse_hand_task(analysis.pk) is False
    assert services.analysis_request(hand_id=hand.pk, user=player).status == "done"


def test_progress_is_written_after_each_decision(monkeypatch):
    hand = finished_hand()
    player = hand.match.players.get(seat=0).user
    analysis = services.analysis_request(hand_id=hand.pk, user=player)
    seen: list[tuple[int, int]] = []
    from games.services import analysis as module

    real = module.analyse_hand

    def spying(*args, progress, **kwargs):
        def report(done: int, total: int) -> None:
            progress(done, total)
            row = HandAnalysis.objects.get(pk=analysis.pk)
            seen.append((row.done, row.total, row.status))

        return real(*args, progress=report, **kwargs)

    monkeypatch.setattr(module, "analyse_hand", spying)
    services.analysis_run(analysis_id=analysis.pk)

    total = len(seen)
    assert seen == [(done, total, "running") for done in range(1, total + 1)]


def test_a_failed_run_is_marked_failed(monkeypatch):
    hand = finished_hand()
    player = hand.match.players.get(seat=0).user
    analysis = services.analysis_request(hand_id=hand.pk, user=player)
    from games.services import analysis as module

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(module, "analyse_hand", broken)
    assert services.analysis_run(analysis_id=analysis.pk) is False
    analysis.refresh_from_db()
    assert analysis.status == "failed"


def test_the_replay_page_offers_the_analysis_to_its_players_only():
    hand = finished_hand()
    player = seated_users(hand.match.table)[0]
    page = client_for(player).get(hand.get_absolute_url())
    assert b'data-testid="analyse"' in page.content
    for viewer in (None, make_user()):
        page = client_for(viewer).get(hand.get_absolute_url())
        assert page.status_code == 200 and b'data-testid="analysis"' not in page.content
    url = f"/hands/{hand.pk}/analysis/"
    assert client_for(make_user()).post(url, **HTMX).status_code == 404
    assert client_for(None).post(url, **HTMX).status_code == 404


def test_the_panel_shows_progress_then_the_decisive_turn():
    hand = finished_hand()
    player = seated_users(hand.match.table)[0]
    client = client_for(player)
    url = f"/hands/{hand.pk}/analysis/"

    asked = client.post(url, **HTMX)
    assert asked.status_code == 200
    assert b'data-testid="analysis-progress"' in asked.content
    assert b'hx-trigger="every 1s"' in asked.content  # it polls itself while it runs

    analysis = HandAnalysis.objects.get(hand=hand, user=player)
    services.analysis_run(analysis_id=analysis.pk)
    done = client.get(url, **HTMX)
    assert b"every 1s" not in done.content  # done: the polling stops
    assert b'data-testid="decisive"' in done.content
    assert b'data-testid="analysis-table"' in done.content
    result = HandAnalysis.objects.get(pk=analysis.pk).result
    if decisive_step(result):
        step = decisive_step(result)
        assert f"rose most at step {step}:".encode() in done.content
        assert b'data-testid="decisive-row"' in done.content
    else:
        assert b"never rose" in done.content
    # The page itself shows the result, and a plain POST goes back to it.
    assert b'data-testid="analysis-table"' in client.get(hand.get_absolute_url()).content
    assert client.post(url).status_code == 302


def test_a_refusal_is_shown_in_the_panel():
    owner = make_user()
    first, second = finished_hand(owner), finished_hand(owner)
    services.analysis_request(hand_id=first.pk, user=owner)
    answer = client_for(owner).post(f"/hands/{second.pk}/analysis/", **HTMX)
    assert answer.status_code == 200
    assert b'data-testid="analysis-error"' in answer.content
    assert b"still running" in answer.content


# --- the panel in words: built from results written here, every case at will ---------

PLAY_QUEEN = {"type": "play", "cards": ["QH"]}
PICK_UP = {"type": "pickup", "count": 2}


def decision(step: int, made: float, best: float, rise: float | None) -> dict[str, Any]:
    """A decision as the bot writes it: a pick-up made, beside a queen."""
    moves = sorted(
        [{"move": PICK_UP, "loss": made}, {"move": PLAY_QUEEN, "loss": best}],
        key=lambda m: m["loss"],
    )
    return {
        "step": step,
        "moves": moves,
        "made": {"move": PICK_UP, "loss": made},
        "best": moves[0],
        "rise": rise,
        "cost": round(made - moves[0]["loss"], 4),
    }


def analysed(
    decisions: list[dict[str, Any]], *, decisive: int | None, costliest: int | None
) -> tuple[Hand, Any]:
    """A finished hand and a player of it whose analysis is done with ``decisions``."""
    hand = finished_hand()
    player = hand.match.players.get(seat=0)
    now = timezone.now()
    HandAnalysis.objects.create(
        hand=hand,
        seat=0,
        user=player.user,
        playouts=200,
        status="done",
        done=len(decisions),
        total=len(decisions),
        result={
            "seat": 0,
            "players": 2,
            "playouts": 200,
            "decisions": decisions,
            "decisive": decisive,
            "costliest": costliest,
        },
        started_at=now - timedelta(seconds=3),
        finished_at=now,
    )
    return hand, player.user


def panel(hand: Hand, user, language: str = "en") -> str:
    return (
        client_for(user)
        .get(f"/hands/{hand.pk}/analysis/", HTTP_ACCEPT_LANGUAGE=language, **HTMX)
        .content.decode()
    )


def last_cells(page: str) -> dict[int, str]:
    """The "change since your last turn" cell of each row, by the row's step."""
    rows = re.findall(r'data-replay-step="(\d+)">(.*?)</tr>', page, re.DOTALL)
    return {int(step): re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)[-1] for step, row in rows}


def test_a_rise_of_less_than_a_point_is_no_decisive_turn():
    # The bot's floats rose by 0.4 points at most: 0 points in words is no rise, and a
    # move 0.3 points worse than the best is no costly choice.
    decisions = [decision(0, 0.5, 0.5, None), decision(2, 0.504, 0.501, 0.004)]
    hand, user = analysed(decisions, decisive=1, costliest=1)
    page = panel(hand, user)
    assert "never rose" in page and "rose most" not in page
    assert 'data-testid="decisive-row"' not in page
    assert "At every turn you chose one of the best moves." in page
    assert last_cells(page) == {1: "", 3: "0"}


@pytest.mark.parametrize(
    ("rise", "language", "words"),
    [
        (0.01, "en", "1 point more than"),
        (0.12, "en", "12 points more than"),
        (0.01, "pl", "o 1 punkt procentowy więcej"),
        (0.03, "pl", "o 3 punkty procentowe więcej"),
        (0.05, "pl", "o 5 punktów procentowych więcej"),
        (0.22, "pl", "o 22 punkty procentowe więcej"),
    ],
)
def test_the_points_of_the_decisive_turn_are_counted_in_words(rise, language, words):
    decisions = [decision(0, 0.4, 0.4, None), decision(2, 0.4 + rise, 0.3, rise)]
    hand, user = analysed(decisions, decisive=1, costliest=1)
    page = panel(hand, user, language)
    assert words in page
    assert 'data-testid="decisive-row" data-replay-step="3"' in page


def test_the_first_decision_has_no_change_since_a_previous_one():
    # Stored before the first decision's rise was left out: measured from an even share.
    decisions = [decision(0, 0.8, 0.8, 0.3), decision(2, 0.9, 0.9, 0.1)]
    hand, user = analysed(decisions, decisive=0, costliest=None)
    page = panel(hand, user)
    assert last_cells(page) == {1: "", 3: "+10"}
    assert "rose most at step 1:" not in page


def test_a_hand_without_a_decision_says_there_was_nothing_to_analyse():
    hand, user = analysed([], decisive=None, costliest=None)  # he only ran out of time
    page = panel(hand, user)
    assert "There was no decision of yours to analyse in this hand" in page
    assert "At every turn" not in page and "never rose" not in page
    assert 'data-testid="analysis-table"' not in page
    assert "nie było twojej decyzji" in panel(hand, user, "pl")


def test_each_turn_is_explained_as_an_estimate_of_its_own():
    # 100 % after his move, then a move at 57 % at his next turn: two estimates.
    decisions = [decision(0, 1.0, 0.9, None), decision(2, 0.6, 0.57, -0.4)]
    hand, user = analysed(decisions, decisive=None, costliest=0)
    page = panel(hand, user)
    assert "Each turn is estimated anew, from what you could see at that turn" in page
    assert "Każdy ruch jest szacowany od nowa" in panel(hand, user, "pl")


def test_the_title_fits_the_result_of_the_hand():
    hand = finished_hand()
    while hand.outcome["loser"] is None:  # a tie: nobody lost it
        hand = finished_hand()
    for player in hand.match.players.all():
        page = client_for(player.user).get(hand.get_absolute_url()).content.decode()
        lost = player.seat == hand.outcome["loser"]
        assert ("Where did I lose this hand?" in page) is lost
        assert ("How did I play this hand?" in page) is not lost
    loser = hand.match.players.get(seat=hand.outcome["loser"]).user
    winner = hand.match.players.exclude(seat=hand.outcome["loser"]).first().user
    assert (
        "Jak zagrałem to rozdanie?"
        in client_for(winner)
        .get(hand.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="pl")
        .content.decode()
    )
    assert (
        "Jak zagrałem"
        not in client_for(loser)
        .get(hand.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="pl")
        .content.decode()
    )


# --- the analysis queue -----------------------------------------------------------


@pytest.mark.redis
def test_the_task_goes_to_the_analysis_queue_of_its_own(django_capture_on_commit_callbacks):
    # Named after the site's queue, so that sites and test runs sharing a Redis stay apart.
    assert settings.CELERY_ANALYSIS_QUEUE.startswith(settings.CELERY_TASK_DEFAULT_QUEUE)
    assert settings.CELERY_ANALYSIS_QUEUE != settings.CELERY_TASK_DEFAULT_QUEUE
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete(settings.CELERY_ANALYSIS_QUEUE)  # no worker runs here: what is sent stays
    hand = finished_hand()
    player = hand.match.players.get(seat=0).user
    try:
        with django_capture_on_commit_callbacks(execute=True):
            analysis = services.analysis_request(hand_id=hand.pk, user=player)
        sent = [json.loads(raw) for raw in broker.lrange(settings.CELERY_ANALYSIS_QUEUE, 0, -1)]
        assert [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in sent] == [
            ("games.analyse_hand", f"({analysis.pk},)")
        ]
        main = broker.lrange(settings.CELERY_TASK_DEFAULT_QUEUE, 0, -1)
        assert not [raw for raw in main if b"games.analyse_hand" in raw]
    finally:
        broker.delete(settings.CELERY_ANALYSIS_QUEUE)


def queued_for_someone(*, asked, status: str = "queued") -> HandAnalysis:
    hand = finished_hand()
    player = hand.match.players.get(seat=0)
    return HandAnalysis.objects.create(
        hand=hand, seat=0, user=player.user, playouts=200, status=status, started_at=asked
    )


def test_the_place_in_the_queue_counts_the_analyses_ahead():
    now = timezone.now()
    running = queued_for_someone(asked=now - timedelta(seconds=5), status="running")
    queued_for_someone(asked=now - timedelta(minutes=6), status="running")  # lost its worker
    queued_for_someone(asked=now - timedelta(hours=1))  # lost its message
    second = queued_for_someone(asked=now - timedelta(seconds=2))
    third = queued_for_someone(asked=now - timedelta(seconds=1))

    assert [analysis_queue_place(a, now=now) for a in (running, second, third)] == [0, 2, 3]
    page = panel(third.hand, third.user)
    assert "you are number 3 in the queue" in page and 'hx-trigger="every 1s"' in page
    assert "jesteś 3. w kolejce" in panel(third.hand, third.user, "pl")
    assert "in the queue" not in panel(running.hand, running.user)

    # The one running is done: the second is next, with nobody ahead of him.
    HandAnalysis.objects.filter(pk=running.pk).update(status="done", result=None)
    assert analysis_queue_place(second, now=now) == 1
    page = panel(second.hand, second.user)
    assert "in the queue" not in page and "Analysing your decisions" in page
