"""Services on PostgreSQL: the legal flow, every refusal, and a whole match to P-A-N."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.engine import HandState, Rules, verify_commitment
from games.models import Action, BotLevel, ChatMessage, Hand, Match, Table
from tests.factories import make_table, make_user, seated_users

pytestmark = pytest.mark.django_db

QUICK = Rules(max_actions=10, max_actions_result="most_cards")  # every hand has a loser, fast


def start(table: Table, now=None) -> Hand:
    services.match_start(table_id=table.pk, by=table.owner, now=now)
    return Hand.objects.get(match__table=table)


def player_to_move(hand: Hand):
    state = hand.engine_state
    return hand.match.players.get(seat=state.to_move).user


def act_first_legal(hand: Hand, now=None) -> Hand:
    hand.refresh_from_db()
    move = hand.engine_state.legal_moves()[0]
    from games.engine import move_to_json

    services.execute(
        services.move_action(
            move_to_json(move), hand_id=hand.pk, version=hand.version, user=player_to_move(hand)
        ),
        now=now,
    )
    hand.refresh_from_db()
    return hand


# --- tables and seats ---------------------------------------------------------------------


def test_create_table_seats_the_owner_first():
    owner = make_user("ola")
    table = services.table_create(owner=owner, name="", rules=Rules(), seats=3)
    assert [s.user for s in table.seats.order_by("position")] == [owner, None, None]
    assert table.name == ""  # named "ola's table" in each reader's language (test_models)
    assert table.status == Table.Status.OPEN


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seats": 5}, r"A table has 2 to 4 seats\."),
        ({"base_seconds": 4}, "between 5 seconds and 60 minutes"),
        ({"increment_seconds": 99}, "between 0 and 60 seconds"),
        ({"name": "x" * 61}, "at most 60 characters"),
    ],
)
def test_create_table_refuses_bad_input_and_creates_nothing(kwargs, message):
    with pytest.raises(services.Refused, match=message):
        services.table_create(
            owner=make_user(), rules=Rules(), name=kwargs.pop("name", "t"), **kwargs
        )
    assert Table.objects.count() == 0


def test_a_user_sits_once_and_a_full_table_refuses():
    table = make_table(players=1, seats=2)
    guest = make_user()
    services.table_sit(table_id=table.pk, user=guest)
    with pytest.raises(services.Refused, match="already have a seat"):
        services.table_sit(table_id=table.pk, user=guest)
    with pytest.raises(services.Refused, match=r"The table is full\."):
        services.table_sit(table_id=table.pk, user=make_user())


def test_only_the_owner_adds_bots():
    table = make_table(players=1, seats=3)
    with pytest.raises(services.Refused, match="owner"):
        services.table_add_bot(table_id=table.pk, by=make_user(), position=1, level="greedy")
    services.table_add_bot(table_id=table.pk, by=table.owner, position=1, level="greedy")
    assert table.seats.get(position=1).bot_level == BotLevel.GREEDY


def test_a_match_needs_two_players():
    table = make_table(players=1)
    with pytest.raises(services.Refused, match="At least two players"):
        services.match_start(table_id=table.pk, by=table.owner)
    assert not Match.objects.exists()


def test_starting_deals_a_hand_with_a_commitment_and_a_running_clock():
    table = make_table(players=3, base_seconds=60, increment_seconds=1)
    now = timezone.now()
    hand = start(table, now=now)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert hand.version == 1
    assert verify_commitment(hand.commitment, hand.seed, hand.salt)
    assert hand.clock_ms == [60_000] * 3
    assert hand.deadline == now + timedelta(seconds=60)
    assert sum(hand.engine_state.hand_counts) == 24


# --- acting --------------------------------------------------------------------------------


def test_a_legal_move_advances_the_version_logs_the_action_and_runs_the_clocks():
    table = make_table(players=2, base_seconds=60, increment_seconds=2)
    t0 = timezone.now()
    hand = start(table, now=t0)
    mover = hand.engine_state.to_move
    hand = act_first_legal(hand, now=t0 + timedelta(seconds=5))
    assert hand.version == 2
    action = Action.objects.get(hand=hand)
    assert action.seat == mover and action.time_used_ms == 5000
    assert hand.clock_ms[mover] == 60_000 - 5000 + 2000
    assert hand.deadline == t0 + timedelta(seconds=5) + timedelta(
        milliseconds=hand.clock_ms[1 - mover]
    )


def _assert_unchanged(hand: Hand, before: dict) -> None:
    hand.refresh_from_db()
    assert hand.version == before["version"]
    assert hand.state == before["state"]
    assert hand.actions.count() == before["actions"]


def _snapshot(hand: Hand) -> dict:
    hand.refresh_from_db()
    return {"version": hand.version, "state": hand.state, "actions": hand.actions.count()}


def test_refusals_change_nothing():
    table = make_table(players=2)
    hand = start(table)
    state = hand.engine_state
    mover = player_to_move(hand)
    other = next(u for u in seated_users(table) if u != mover)
    legal = {"type": "play", "cards": list(state.legal_moves()[0].cards)}
    before = _snapshot(hand)

    with pytest.raises(services.Refused, match=r"It is not your turn\."):
        services.execute(
            services.move_action(legal, hand_id=hand.pk, version=hand.version, user=other)
        )
    with pytest.raises(services.Refused, match=r"You are not playing in this hand\."):
        services.execute(
            services.move_action(legal, hand_id=hand.pk, version=hand.version, user=make_user())
        )
    with pytest.raises(services.Refused, match="The table has changed") as stale:
        services.execute(
            services.move_action(legal, hand_id=hand.pk, version=hand.version - 1, user=mover)
        )
    assert stale.value.resync
    # A card of the other player's (the mover may well hold all four aces).
    not_held = state.hand(1 - state.to_move)[0]
    with pytest.raises(services.Refused, match="Illegal move"):
        services.execute(
            services.move_action(
                {"type": "play", "cards": [not_held]},
                hand_id=hand.pk,
                version=hand.version,
                user=mover,
            )
        )
    with pytest.raises(services.Refused, match="That is not a move"):
        services.execute(
            services.move_action(
                {"type": "dance"}, hand_id=hand.pk, version=hand.version, user=mover
            )
        )
    with pytest.raises(services.Refused, match="Illegal move"):
        services.execute(
            services.move_action(
                {"type": "timeout"}, hand_id=hand.pk, version=hand.version, user=mover
            )
        )
    _assert_unchanged(hand, before)


def test_the_opening_must_be_the_base_card():
    table = make_table(players=2)
    hand = start(table)
    state: HandState = hand.engine_state
    other_card = next(c for c in state.hand(state.to_move) if c != "9H")
    with pytest.raises(services.Refused, match="Illegal move"):
        services.execute(
            services.move_action(
                {"type": "play", "cards": [other_card]},
                hand_id=hand.pk,
                version=hand.version,
                user=player_to_move(hand),
            )
        )


# --- clocks ----------------------------------------------------------------------------------


def test_a_move_after_the_deadline_is_refused_and_the_timeout_applied_first():
    table = make_table(players=2, base_seconds=30, increment_seconds=0)
    t0 = timezone.now()
    hand = start(table, now=t0)
    mover_seat = hand.engine_state.to_move
    move = {"type": "play", "cards": list(hand.engine_state.legal_moves()[0].cards)}
    with pytest.raises(services.Refused, match="Your time ran out"):
        services.execute(
            services.move_action(
                move, hand_id=hand.pk, version=hand.version, user=player_to_move(hand)
            ),
            now=t0 + timedelta(seconds=31),
        )
    hand.refresh_from_db()
    assert hand.outcome == {
        "loser": mover_seat,
        "tie": False,
        "reason": "timeout",
        "final_play": None,
    }
    assert hand.match.match_state.letters[mover_seat] == 1
    assert hand.deadline is None


def test_a_timeout_task_from_an_earlier_turn_does_nothing():
    table = make_table(players=2, base_seconds=30)
    t0 = timezone.now()
    hand = start(table, now=t0)
    old_version = hand.version
    hand = act_first_legal(hand, now=t0 + timedelta(seconds=1))
    late = t0 + timedelta(minutes=5)
    assert (
        services.execute(services.Timeout(hand_id=hand.pk, version=old_version), now=late) is None
    )
    hand.refresh_from_db()
    assert hand.outcome is None
    assert (
        services.execute(services.Timeout(hand_id=hand.pk, version=hand.version), now=late)
        is not None
    )


def test_a_timeout_before_the_deadline_does_nothing():
    table = make_table(players=2, base_seconds=30)
    t0 = timezone.now()
    hand = start(table, now=t0)
    assert (
        services.execute(
            services.Timeout(hand_id=hand.pk, version=1), now=t0 + timedelta(seconds=29)
        )
        is None
    )


# --- a whole match ------------------------------------------------------------------------------


def test_a_full_match_to_pan_through_the_services():
    table = make_table(players=3, rules=QUICK)
    now = timezone.now()
    services.match_start(table_id=table.pk, by=table.owner, now=now)
    match = Match.objects.get(table=table)
    dealers = []
    for _ in range(50):
        hand = match.hands.order_by("-number").first()
        dealers.append(hand.dealer)
        while not hand.is_over:
            now += timedelta(seconds=1)
            hand = act_first_legal(hand, now=now)
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            break
        assert services.match_next_hand(match_id=match.pk, after_number=hand.number) is not None
        # Safe to repeat: the same call deals nothing more.
        assert services.match_next_hand(match_id=match.pk, after_number=hand.number) is None
    assert match.status == Match.Status.FINISHED
    letters = match.match_state.letters
    assert sorted(letters)[-1] == 3 and letters.count(3) == 1
    losers = [h.outcome["loser"] for h in match.hands.all() if h.outcome["loser"] is not None]
    assert [losers.count(seat) for seat in range(3)] == list(letters)
    # The dealer moved one seat clockwise every hand.
    assert all((b - a) % 3 == 1 for a, b in itertools.pairwise(dealers))
    places = dict(match.players.values_list("seat", "place"))
    assert places[letters.index(3)] == 3
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    rematch = services.match_rematch(table_id=table.pk, by=table.owner)
    assert rematch.players.count() == 3 and rematch.pk != match.pk


def test_leaving_during_a_match_hands_the_seat_to_a_bot():
    table = make_table(players=2)
    start(table)
    guest = seated_users(table)[1]
    services.table_leave(table_id=table.pk, user=guest)
    match = Match.objects.get(table=table)
    assert match.players.get(seat__in=[0, 1], display_name=guest.username).bot_level == "greedy"


# --- chat ----------------------------------------------------------------------------------------


def test_chat_refuses_the_muted_with_the_time_left():
    table = make_table(players=1)
    muted = make_user(muted_until=timezone.now() + timedelta(hours=2), mute_reason="spam")
    with pytest.raises(services.Refused, match=r"You are muted until .*: spam"):
        services.chat_post(table_id=table.pk, user=muted, text="hello")
    assert not ChatMessage.objects.exists()


def test_chat_limits_length_and_rate():
    table = make_table(players=1)
    with pytest.raises(services.Refused, match="at most 300 characters"):
        services.chat_post(table_id=table.pk, user=table.owner, text="x" * 301)
    now = timezone.now()
    for i in range(5):
        services.chat_post(table_id=table.pk, user=table.owner, text=f"m{i}", now=now)
    with pytest.raises(services.Refused, match="too fast"):
        services.chat_post(table_id=table.pk, user=table.owner, text="again", now=now)
    assert ChatMessage.objects.count() == 5
