"""Correspondence tables: days per move on the real clock's path, the day deadline's
timeout applied once, and the turn's signal once per turn. Time is passed in."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services, signals
from games.clock import ClockTicker
from games.engine import move_to_json
from games.models import Action, BotLevel, Match
from tests.factories import (
    act_first_legal,
    client_for,
    first_hand,
    make_table,
    make_user,
    table_form,
)

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)


@pytest.fixture
def turns():
    """Every ``correspondence_turn`` sent while the test runs, as its keyword arguments."""
    sent: list[dict] = []

    def receiver(sender, signal, **kwargs):
        sent.append(kwargs)

    signals.correspondence_turn.connect(receiver, weak=False)
    yield sent
    signals.correspondence_turn.disconnect(receiver)


def test_a_correspondence_table_gives_days_per_move_and_a_move_restores_them():
    table = make_table(players=2, move_days=2)
    t0 = timezone.now()
    hand = first_hand(table, t0)
    assert hand.deadline == t0 + 2 * DAY
    mover = hand.engine_state.to_move
    hand = act_first_legal(hand, t0 + DAY + timedelta(hours=5))
    assert hand.clock_ms[mover] == 2 * 86_400_000  # his full two days again, nothing banked
    assert hand.deadline == t0 + 3 * DAY + timedelta(hours=5)


def test_a_move_after_the_day_deadline_is_refused_and_the_timeout_applies_once():
    table = make_table(players=2, move_days=1)
    t0 = timezone.now()
    hand = first_hand(table, t0)
    late_seat = hand.engine_state.to_move
    late = t0 + DAY + timedelta(seconds=1)
    with pytest.raises(services.Refused, match="Your time ran out"):
        act_first_legal(hand, late)
    # Every other layer of the clock finds nothing left to do.
    assert services.execute(services.Timeout(hand_id=hand.pk), now=late) is None
    assert services.execute(services.Timeout(hand_id=hand.pk), now=late + DAY) is None
    ClockTicker(now=lambda: late + DAY).day_tick()
    hand.refresh_from_db()
    assert hand.outcome["reason"] == "timeout" and hand.outcome["loser"] == late_seat
    assert Action.objects.filter(hand=hand, move__type="timeout").count() == 1
    assert hand.match.match_state.letters[late_seat] == 1


def test_the_ticker_applies_a_day_deadline_and_not_a_minute_early():
    table = make_table(players=2, move_days=3)
    t0 = timezone.now()
    hand = first_hand(table, t0)
    ClockTicker(now=lambda: t0 + 3 * DAY - timedelta(minutes=1)).day_tick()
    hand.refresh_from_db()
    assert hand.outcome is None
    ClockTicker(now=lambda: t0 + 3 * DAY).tick()  # the live clocks' pass: not its
    hand.refresh_from_db()
    assert hand.outcome is None
    ClockTicker(now=lambda: t0 + 3 * DAY).day_tick()
    hand.refresh_from_db()
    assert hand.outcome["reason"] == "timeout"


def test_the_turn_signal_goes_once_per_turn_to_the_person_to_move(
    turns, django_capture_on_commit_callbacks
):
    table = make_table(players=2, move_days=5)
    t0 = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        hand = first_hand(table, t0)
    first = hand.match.players.get(seat=hand.engine_state.to_move).user_id
    assert turns == [
        {"table_id": table.pk, "hand_id": hand.pk, "user_id": first, "deadline": hand.deadline}
    ]
    with django_capture_on_commit_callbacks(execute=True):
        moved = act_first_legal(hand, t0 + timedelta(hours=2))
    second = moved.match.players.get(seat=moved.engine_state.to_move).user_id
    assert len(turns) == 2 and turns[1]["user_id"] == second
    assert turns[1]["deadline"] == t0 + timedelta(hours=2) + 5 * DAY
    # A move on a stale page is refused: no turn passed, no signal.
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.Refused):
        services.execute(
            services.move_action(
                move_to_json(moved.engine_state.legal_moves()[0]),
                hand_id=hand.pk,
                version=hand.version,
                user=moved.match.players.get(seat=moved.engine_state.to_move).user,
            ),
            now=t0 + timedelta(hours=3),
        )
    assert len(turns) == 2


def test_no_turn_signal_for_a_bot_or_at_a_real_time_table(
    turns, django_capture_on_commit_callbacks
):
    owner = make_user()
    with_bot = make_table(owner, players=1, seats=2, move_days=1)
    services.table_add_bot(table_id=with_bot.pk, by=owner, position=1, level=BotLevel.RANDOM)
    real_time = make_table(players=2)
    t0 = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        hand = first_hand(with_bot, t0)
        first_hand(real_time, t0)
    bot_seat = hand.match.players.get(bot_level=BotLevel.RANDOM).seat
    if hand.engine_state.to_move == bot_seat:
        assert turns == []
    else:
        assert [t["user_id"] for t in turns] == [owner.pk]
        with django_capture_on_commit_callbacks(execute=True):
            act_first_legal(hand, t0 + timedelta(minutes=1))
        assert len(turns) == 1  # the bot's turn sends nothing


def test_the_table_form_creates_a_correspondence_table():
    owner = make_user()
    response = client_for(owner).post("/tables/new/", table_form(time_control="7d"))
    assert response.status_code == 302
    table = owner.owned_tables.get()
    assert table.move_days == 7
    page = client_for(owner).get(table.get_absolute_url()).content.decode()
    assert "7 days per move" in page


def test_days_the_site_does_not_offer_are_refused_and_nothing_is_created():
    owner = make_user()
    with pytest.raises(services.Refused, match="Days per move"):
        make_table(owner, move_days=4)
    assert not owner.owned_tables.exists()
    response = client_for(owner).post("/tables/new/", table_form(time_control="4d"))
    assert response.status_code == 200 and not owner.owned_tables.exists()


def test_a_whole_correspondence_match_is_played_out_on_time():
    table = make_table(players=2, move_days=1)
    t0 = timezone.now()
    match = Match.objects.get(pk=services.match_start(table_id=table.pk, by=table.owner, now=t0).pk)
    now = t0
    while match.status == Match.Status.PLAYING:
        hand = match.hands.order_by("-number").first()
        if hand.is_over:
            services.match_next_hand(match_id=match.pk, after_number=hand.number, now=now)
        else:
            now = hand.deadline + timedelta(seconds=1)
            assert services.execute(services.Timeout(hand_id=hand.pk), now=now)
        match.refresh_from_db()
    assert match.hands.count() >= 3
