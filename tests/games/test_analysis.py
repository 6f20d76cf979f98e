"""A finished hand's analysis for one of its players: who may ask, one running per user
(two requests at once included), the run with its progress, and the replay page's panel."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from games import bots, services, tasks
from games.models import Hand, HandAnalysis
from tests.factories import client_for, make_table, make_user, seated_users

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def finished_hand(owner=None, *, public: bool = True) -> Hand:
    """A hand of two people played to its end by greedy moves (seeded)."""
    table = make_table(owner, players=2, base_seconds=600, is_public=public)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    users = {p.seat: p.user for p in hand.match.players.all()}
    while not hand.is_over:
        state = hand.engine_state
        move = bots.choose_move(
            "greedy", state.view_for(state.to_move), seed=f"{hand.pk}:{hand.version}"
        )
        hand = services.hand_act(
            hand_id=hand.pk, move=move, version=hand.version, user=users[state.to_move]
        )
    return hand


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
    assert (analysis.seat, analysis.status, analysis.user) == (1, "running", player)
    assert len(queued) == 1  # the task, sent by name after the commit

    # Asking again gives the same analysis and starts nothing.
    with django_capture_on_commit_callbacks() as queued:
        again = services.analysis_request(hand_id=hand.pk, user=player)
    assert again.pk == analysis.pk and not queued


def test_one_running_analysis_per_user_until_it_is_stale():
    owner = make_user()
    first, second = finished_hand(owner), finished_hand(owner)
    now = timezone.now()
    running = services.analysis_request(hand_id=first.pk, user=owner, now=now)

    with pytest.raises(services.Refused, match="still running"):
        services.analysis_request(hand_id=second.pk, user=owner, now=now + timedelta(minutes=1))

    # A run that old lost its worker: it is marked failed and blocks him no longer.
    later = now + services.ANALYSIS_STALE + timedelta(seconds=1)
    other = services.analysis_request(hand_id=second.pk, user=owner, now=later)
    assert other.status == "running"
    running.refresh_from_db()
    assert running.status == "failed"
    # Asking again for the failed one starts it anew once the other is done.
    HandAnalysis.objects.filter(pk=other.pk).update(status="done")
    again = services.analysis_request(hand_id=first.pk, user=owner, now=later)
    assert (again.pk, again.status, again.started_at) == (running.pk, "running", later)


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
    assert HandAnalysis.objects.filter(user=owner, status="running").count() == 1


def test_the_task_computes_the_analysis_with_its_progress():
    hand = finished_hand()
    player = hand.match.players.get(seat=0).user
    analysis = services.analysis_request(hand_id=hand.pk, user=player)

    assert tasks.analyse_hand_task(analysis.pk) is True

    analysis.refresh_from_db()
    assert analysis.status == "done" and analysis.finished_at is not None
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
    if result["decisive"] is not None:
        step = result["decisions"][result["decisive"]]["step"] + 1
        assert f"rose most at step {step}:".encode() in done.content
        assert b'data-testid="decisive-row"' in done.content
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
