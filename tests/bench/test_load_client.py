"""The load generator of the live-room benchmarks keeps every table playing."""

from __future__ import annotations

import asyncio

import pytest

from bench.load_client import LoadRun, SeatSpec, element, forms
from games import services
from games.engine import move_to_json
from tests.factories import client_for, make_table


@pytest.mark.asyncio
async def test_a_table_whose_pause_was_cancelled_before_it_ran_plays_in_the_next_play() -> None:
    run = LoadRun([[SeatSpec("ws://127.0.0.1:9/ws/tables/1/", "http://127.0.0.1:9")] * 4])
    (table,) = run.tables
    # A pause whose task was created by the last look at the tables and never ran: a
    # task cancelled before its first step never runs its ``finally``.
    table.acting = asyncio.create_task(asyncio.sleep(3600))

    await run.play(0.0)

    assert table.acting is None  # the next play() starts the table's next move


@pytest.mark.asyncio
async def test_a_rematch_whose_pause_was_cut_by_the_end_of_a_play_is_asked_in_the_next() -> None:
    run = LoadRun(
        [[SeatSpec("ws://127.0.0.1:9/ws/tables/1/", "http://127.0.0.1:9")] * 4],
        pace=(3600.0, 3600.0),  # the owner's pause outlasts the play
    )
    (table,) = run.tables
    owner = table.seats[0]
    table.complete, owner.rematch, owner.position = True, True, (1, 40)  # the match ended
    run.playing = True
    table.next_move()
    assert table.acting is not None  # the owner's pause before he asks for the rematch
    await run.play(0.0)  # the play ends during the pause
    assert table.rematched is None  # not asked
    run.playing = table.complete = True  # the next play (its sockets open)
    table.next_move()
    assert table.acting is not None  # asked in the next play
    table.acting.cancel()


@pytest.mark.asyncio
async def test_a_socket_dropped_again_before_it_showed_the_table_is_one_coming_back() -> None:
    """Back on a daphne that stopped as its handshake completed, then on another: the
    time it took counts from the first drop, and it is counted back once it shows the
    table."""
    run = LoadRun([[SeatSpec("ws://127.0.0.1:9/ws/tables/1/", "http://127.0.0.1:9")] * 4])
    seat = run.tables[0].seats[0]
    seat.closing = True  # no handshake tried here: only the bookkeeping
    await seat._reconnect(run, 1012)
    (first,) = run.reconnects
    seat.coming_back = first  # it opened again, and was dropped before showing the table
    await seat._reconnect(run, 1012)
    assert run.reconnects == [first]


@pytest.mark.django_db
def test_a_seat_offers_exactly_the_moves_the_page_lets_its_player_make() -> None:
    """The forms of ``#my-hand`` as the site draws them: a card that may not be played
    sends its play only to hear why not, so it is no move on offer, and a player not to
    move has none."""
    table = make_table(players=3, base_seconds=600)
    match = services.match_start(table_id=table.pk, by=table.owner)
    hand = match.hands.get()
    state = hand.engine_state
    users = {p.seat: p.user for p in match.players.select_related("user")}
    for seat, user in users.items():
        page = client_for(user).get(table.get_absolute_url()).content.decode()
        offered = forms(element(page, "my-hand")[1])
        if seat != state.to_move:
            assert offered == []
            continue
        legal = {move_to_json(move)["cards"][0] for move in state.legal_moves() if move.cards}
        plays = {form["cards"] for form in offered if form["action"] == "play"}
        assert plays == legal and len(state.hand(seat)) > len(legal)  # some cards are grey


def test_the_bare_consumers_frames_offer_the_seat_to_move_its_move_at_their_version() -> None:
    """The baseline speaks the site's shape: the client finds the position in the
    status's mark and the one move among the hand's other moves, and sends it."""
    from bench.baseline_asgi import frame

    run = LoadRun([[SeatSpec("ws://127.0.0.1:9/ws/base/1/0/", "http://127.0.0.1:9")] * 4])
    table = run.tables[0]
    for version in (0, 1, 5, 8):
        for seat in table.seats:
            page = frame(version, seat.index)
            seat.take_hand(page)
            seat.position = table.position(element(page, "table-status"))
            assert seat.position == (1, version)
            assert seat.can_move() == (version % 4 == seat.index)
            if seat.can_move():
                assert seat.choose() == {"action": "pickup", "count": "1"}
