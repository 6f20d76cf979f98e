"""Playing through the API: moves, chat and leaving go through the site's services, and
every refusal is a JSON error with a code that changed nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from api import play
from games import services
from games.engine import IllegalMove, move_from_json
from games.models import ChatMessage, Hand, MatchPlayer, RatingChange, Seat
from tests.api.helpers import (
    bearer,
    bot_account,
    bot_game,
    bots_turn,
    current_hand,
    seats,
    started_match,
    token_for,
)
from tests.factories import make_table, make_user, play_to_pan_on_time

# The API reads in its own threads (api.db.in_pool): what a test writes must be committed.
pytestmark = pytest.mark.django_db(transaction=True)


def post(token: str, path: str, body: dict | None = None, **kwargs):
    return Client().post(
        path, body or {}, content_type="application/json", **bearer(token), **kwargs
    )


def error_of(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def test_a_legal_move_is_played_and_its_version_returned():
    _bot, token, hand, seat, opponent = bot_game()
    hand = bots_turn(hand, seat, opponent)
    move = hand.engine_state.private_view(seat)["legal_moves"][0]
    body = {"version": hand.version}
    if move["type"] == "play":
        body["cards"] = [c.lower() for c in move["cards"]]  # codes in any case
    else:
        body["pickup"] = move["count"]
    response = post(token, f"/api/bot/game/{hand.match.table_id}/move", body)
    assert response.status_code == 200, response.content
    assert response.json() == {"ok": True, "handId": hand.pk, "version": hand.version + 1}
    assert Hand.objects.get(pk=hand.pk).version == hand.version + 1


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        ("wrong_version", 409, "wrong_version"),
        ("not_your_turn", 409, "not_your_turn"),
        ("illegal", 400, "illegal_move"),
        ("unknown_card", 400, "malformed_move"),
        ("both", 400, "bad_move"),
        ("wrong_hand", 409, "wrong_hand"),
    ],
)
def test_a_refused_move_says_why_and_changes_nothing(case, status, code):
    bot, token, hand, seat, opponent = bot_game()
    hand = bots_turn(hand, seat, opponent)
    state = hand.engine_state
    legal = state.private_view(seat)["legal_moves"]
    held = set(state.hand(seat))
    body: dict = {"version": hand.version, "cards": [legal[0]["cards"][0]]}
    if legal[0]["type"] == "pickup":
        body = {"version": hand.version, "pickup": legal[0]["count"]}
    if case == "wrong_version":
        body["version"] = hand.version - 1
    elif case == "not_your_turn":  # the bot moves, then tries again on the person's turn
        services.execute(
            services.move_action(legal[0], hand_id=hand.pk, version=hand.version, user=bot)
        )
        hand = current_hand(hand.match.table_id)
        body = {"version": hand.version, "cards": [sorted(hand.engine_state.hand(seat))[0]]}
    elif case == "illegal":  # never two cards at once (RULES §4)
        body = {"version": hand.version, "cards": sorted(held)[:2]}
    elif case == "unknown_card":
        body = {"version": hand.version, "cards": ["1Z"]}
    elif case == "both":
        body = {"version": hand.version, "cards": ["9H"], "pickup": True}
    elif case == "wrong_hand":
        body["handId"] = hand.pk + 1000
    before = Hand.objects.get(pk=hand.pk)
    actions = before.actions.count()

    response = post(token, f"/api/bot/game/{hand.match.table_id}/move", body)
    assert error_of(response) == (status, code), response.content
    assert response.json()["error"]["message"]
    after = Hand.objects.get(pk=hand.pk)
    assert (after.version, after.state, after.actions.count()) == (
        before.version,
        before.state,
        actions,
    )
    if code == "illegal_move":
        with pytest.raises(IllegalMove) as judged:  # the engine's own code comes along
            state.apply(move_from_json({"type": "play", "cards": body["cards"]}))
        assert response.json()["error"]["engine"] == judged.value.code.value


def test_who_holds_no_seat_is_refused_and_an_unknown_table_is_not_found():
    _bot, token, hand, _seat, _opponent = bot_game()
    stranger_token = token_for(bot_account())
    body = {"version": hand.version, "pickup": True}
    table_path = f"/api/bot/game/{hand.match.table_id}/move"
    assert error_of(post(stranger_token, table_path, body)) == (403, "not_seated")
    assert error_of(post(token, "/api/bot/game/999999/move", body)) == (404, "unknown_game")


def test_bot_endpoints_need_a_bot_account_and_board_ones_a_persons():
    person = make_user()
    hand = started_match(person)
    body = {"version": hand.version, "pickup": True}
    table_id = hand.match.table_id
    both = token_for(person, scopes=["bot:play", "board:play"])
    assert error_of(post(both, f"/api/bot/game/{table_id}/move", body)) == (
        403,
        "not_a_bot_account",
    )
    board_only = token_for(person, scopes=["challenge:read"], name="reader")
    assert error_of(post(board_only, f"/api/board/game/{table_id}/move", body)) == (
        403,
        "missing_scope",
    )
    bot = bot_account()
    bot_token = token_for(bot, scopes=["bot:play", "board:play"])
    assert error_of(post(bot_token, f"/api/board/game/{table_id}/move", body)) == (
        403,
        "bot_account",
    )


def test_a_person_plays_his_own_game_through_the_board_endpoints():
    person = make_user()
    token = token_for(person, scopes=["board:play"])
    hand = started_match(person)
    players = seats(hand)
    seat = next(s for s, p in players.items() if p.user_id == person.pk)
    hand = bots_turn(hand, seat, players[1 - seat].user)
    move = hand.engine_state.private_view(seat)["legal_moves"][0]
    body = {"version": hand.version, **({"cards": move["cards"]} if "cards" in move else {})}
    if move["type"] == "pickup":
        body["pickup"] = move["count"]
    response = post(token, f"/api/board/game/{hand.match.table_id}/move", body)
    assert response.status_code == 200, response.content


def test_chat_and_leave():
    bot, token, hand, _seat, _opponent = bot_game()
    table_id = hand.match.table_id
    assert post(token, f"/api/bot/game/{table_id}/chat", {"text": " hello  there "}).json() == {
        "ok": True
    }
    assert ChatMessage.objects.get(table_id=table_id).text == "hello there"
    assert error_of(post(token, f"/api/bot/game/{table_id}/chat", {"text": "  "})) == (
        400,
        "bad_text",
    )
    assert error_of(post(token, f"/api/bot/game/{table_id}/chat", {})) == (400, "bad_request")

    assert post(token, f"/api/bot/game/{table_id}/leave").json() == {"ok": True}
    assert not Seat.objects.filter(table_id=table_id, user=bot).exists()
    # A bot of the site plays the seat on; the API's moves are refused there now.
    assert MatchPlayer.objects.get(match=hand.match, user=bot).bot_level == "greedy"
    assert error_of(post(token, f"/api/bot/game/{table_id}/leave")) == (403, "not_seated")


def test_a_person_without_rated_matches_becomes_a_bot_account_for_good():
    person = make_user()
    token = token_for(person)
    response = post(token, "/api/bot/account/upgrade")
    assert response.status_code == 200
    assert response.json()["bot"] is True
    person.refresh_from_db()
    assert person.is_bot_account
    assert error_of(post(token, "/api/bot/account/upgrade")) == (409, "already_bot")


def test_an_account_with_a_rated_match_or_a_match_in_play_stays_a_person():
    table_owner = make_user()
    table = make_table(table_owner, players=2, base_seconds=60)
    play_to_pan_on_time(table)
    assert RatingChange.objects.filter(user=table_owner).exists()
    token = token_for(table_owner)
    assert error_of(post(token, "/api/bot/account/upgrade")) == (409, "has_rated_matches")

    playing = make_user()
    started_match(playing)
    assert error_of(post(token_for(playing), "/api/bot/account/upgrade")) == (409, "in_a_match")
    needs_scope = token_for(make_user(), scopes=["board:play"])
    assert error_of(post(needs_scope, "/api/bot/account/upgrade")) == (403, "missing_scope")


def test_a_bot_accounts_matches_are_not_rated():
    bot = bot_account()
    table = make_table(bot, players=2, base_seconds=60)
    match = play_to_pan_on_time(table)
    assert not RatingChange.objects.filter(match=match).exists()


def test_move_json_reads_cards_or_a_pickup():
    assert play.move_json(cards=["9h", " 10s"], pickup=None) == {
        "type": "play",
        "cards": ["9H", "10S"],
    }
    assert play.move_json(cards=None, pickup=True) == {"type": "pickup", "count": 3}
    assert play.move_json(cards=None, pickup=5) == {"type": "pickup", "count": 5}
