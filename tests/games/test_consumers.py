"""TableConsumer on the real Redis channel layer: moves reach everyone, each with his view."""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache

from accounts.models import User
from games import selectors, services
from games.engine import HandState, card_label
from games.models import ChatMessage, Hand, Table
from live import (
    LIVE,
    presence,
    tables,
)
from tests.factories import (
    make_moderator,
    make_table,
    make_user,
    play_to_pan_on_time,
    seated_users,
)
from tests.games.ws import Page, connect, elements, frames_until, version_of

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


@dataclass
class Started:
    table: Table
    hand: Hand
    users: list[User]
    state: HandState
    by_seat: dict[int, User]


@database_sync_to_async
def started_table(players: int = 2) -> Started:
    table = make_table(players=players, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    return Started(
        table=table,
        hand=hand,
        users=seated_users(table),
        state=hand.engine_state,
        by_seat={p.seat: p.user for p in hand.match.players.all()},
    )


@database_sync_to_async
def play_first_move(g: Started) -> None:
    """The player to move plays his first legal move, through the service."""
    move = g.state.legal_moves()[0]
    services.execute(
        services.move_action(
            {"type": "play", "cards": list(move.cards)},
            hand_id=g.hand.pk,
            version=g.hand.version,
            user=g.by_seat[g.state.to_move],
        )
    )


def hand_cards_in(frame: str) -> set[str]:
    """Card codes shown as one's own hand in a frame."""
    section = re.search(r'id="my-hand".*?</section>', frame, re.S)
    return set(re.findall(r'data-card="([^"]+)"', section.group(0))) if section else set()


def secret_marks(codes: set[str]) -> list[str]:
    """How a hidden card could leak into HTML: as a code attribute or as its label."""
    return [m for c in codes for m in (f'"{c}"', f"{c},", card_label(c))]


async def test_a_move_reaches_every_seat_and_spectator_each_with_his_own_view():
    g = await started_table()
    table, hand, state, by_seat = g.table, g.hand, g.state, g.by_seat
    mover_seat = state.to_move
    mover, other = by_seat[mover_seat], by_seat[1 - mover_seat]
    path = f"/ws/tables/{table.pk}/"
    ws_mover, ws_other, ws_spectator = (
        await connect(path, mover),
        await connect(path, other),
        await connect(path, None),
    )
    first = {
        "mover": await frames_until(ws_mover, 'id="my-hand"'),
        "other": await frames_until(ws_other, 'id="my-hand"'),
        "spectator": await frames_until(ws_spectator, 'id="my-hand"'),
    }
    assert hand_cards_in(first["mover"][-1]) == set(state.hand(mover_seat))
    assert hand_cards_in(first["other"][-1]) == set(state.hand(1 - mover_seat))
    assert hand_cards_in(first["spectator"][-1]) == set()

    await ws_mover.send_json_to({"action": "play", "cards": "9H", "version": str(hand.version)})
    updates = {
        "mover": await frames_until(ws_mover, 'data-version="2"'),
        "other": await frames_until(ws_other, 'data-version="2"'),
        "spectator": await frames_until(ws_spectator, 'data-version="2"'),
    }
    pages = {name: Page().take(*first[name], *frames) for name, frames in updates.items()}
    for page in pages.values():
        assert 'data-card="9H"' in page.part("pile")
    assert "9H" not in pages["mover"].hand()
    assert pages["other"].hand() == set(state.hand(1 - mover_seat))

    # The spectator never saw a card of any hand (the base card is public once played).
    hidden = (set(state.hand(0)) | set(state.hand(1))) - {"9H"}
    spectator_text = "".join(first["spectator"] + updates["spectator"])
    leaks = [m for m in secret_marks(hidden) if m in spectator_text]
    assert leaks == []
    # Nor did the other player see the mover's remaining cards.
    other_text = "".join(first["other"] + updates["other"])
    assert [m for m in secret_marks(set(state.hand(mover_seat)) - {"9H"}) if m in other_text] == []
    for ws in (ws_mover, ws_other, ws_spectator):
        await ws.disconnect()


async def test_after_a_move_the_next_player_gets_his_moves_and_a_bystander_only_the_table():
    g = await started_table(players=3)
    mover_seat = g.state.to_move
    path = f"/ws/tables/{g.table.pk}/"
    sockets = {seat: await connect(path, user) for seat, user in g.by_seat.items()}
    pages = {
        seat: Page().take(*await frames_until(ws, 'id="my-hand"')) for seat, ws in sockets.items()
    }

    await sockets[mover_seat].send_json_to(
        {"action": "play", "cards": "9H", "version": str(g.hand.version)}
    )
    frames = {
        seat: (await frames_until(ws, 'data-version="2"'))[-1] for seat, ws in sockets.items()
    }
    for seat, frame in frames.items():
        pages[seat].take(frame)
    after = await database_sync_to_async(lambda: Hand.objects.get(pk=g.hand.pk).engine_state)()
    next_seat = after.to_move
    (bystander,) = set(sockets) - {mover_seat, next_seat}
    # The one whose turn it is now gets the buttons of his cards that may go on the 9♥
    # (which play them at the version of the status's mark) and his moves.
    legal = {m["cards"][0] for m in after.private_view(next_seat)["legal_moves"] if m["cards"]}
    lit = set(re.findall(r'<button id="hb-([^"]+)" class="card-button legal"', frames[next_seat]))
    assert lit == legal
    assert 'id="table-status" type="hidden" name="version" value="2"' in frames[next_seat]
    assert 'data-testid="your-turn"' in frames[next_seat]
    # The mover's hand lost the 9♥ and its moves; the bystander's did not change, so he
    # gets the table's parts only.
    assert pages[mover_seat].hand() == set(g.state.hand(mover_seat)) - {"9H"}
    assert 'data-testid="your-turn"' not in pages[mover_seat].part("my-hand")
    assert 'id="hb-' not in frames[bystander] and "#hc-" not in frames[bystander]
    assert 'data-card="9H"' in pages[bystander].part("pile")
    for ws in sockets.values():
        await ws.disconnect()


async def test_a_move_shows_at_every_seat_of_its_process_while_redis_publishes_are_stalled():
    g = await started_table()
    mover, other = g.by_seat[g.state.to_move], g.by_seat[1 - g.state.to_move]
    path = f"/ws/tables/{g.table.pk}/"
    ws_mover, ws_other = await connect(path, mover), await connect(path, other)
    for ws in (ws_mover, ws_other):
        await frames_until(ws, 'id="my-hand"')
    async with get_channel_layer().publishes_held():  # every publish waits from now on
        await ws_mover.send_json_to(
            {"action": "play", "cards": "9H", "version": str(g.hand.version)}
        )
        # Both seats are sockets of this process: the mover's own sees his move too,
        # without waiting for the publish to the other processes.
        for ws in (ws_other, ws_mover):
            frames = await frames_until(ws, 'data-version="2"')
            assert re.search(r'id="pile".*data-card="9H"', frames[-1], re.S)
    for ws in (ws_mover, ws_other):
        await ws.disconnect()


async def test_one_render_of_a_move_serves_every_viewer_and_each_hand_stays_private():
    g = await started_table()
    mover = g.by_seat[g.state.to_move]
    other = g.by_seat[1 - g.state.to_move]
    path = f"/ws/tables/{g.table.pk}/"
    watcher_a, watcher_b = await database_sync_to_async(lambda: (make_user(), make_user()))()
    moderator = await database_sync_to_async(make_moderator)()
    ws_mover, ws_other = await connect(path, mover), await connect(path, other)
    ws_moderator = await connect(path, moderator)
    visitors = [await connect(path, None), await connect(path, None)]
    watchers = [await connect(path, watcher_a), await connect(path, watcher_b)]
    everyone = [ws_mover, ws_other, ws_moderator, *visitors, *watchers]
    names = ["mover", "other", "moderator", "v1", "v2", "w1", "w2"]
    joined = {}
    for name, ws in zip(names, everyone, strict=True):
        joined[name] = "".join(await frames_until(ws, 'id="seats"'))
    # On joining, each kind gets its own seats: the moderator his tools, a signed-in
    # spectator the report links, a visitor neither.
    assert 'data-testid="remove-player"' in joined["moderator"]
    assert 'data-testid="report-player"' in joined["w1"]
    assert 'data-testid="report-player"' not in joined["v1"]
    assert 'data-testid="remove-player"' not in joined["w1"]
    hits = LIVE.hits

    await ws_mover.send_json_to({"action": "play", "cards": "9H", "version": str(g.hand.version)})
    seen = {}
    for name, ws in zip(names, everyone, strict=True):
        seen[name] = (await frames_until(ws, 'data-version="2"'))[-1]
    # Everybody sees the move's public parts alike, down to the clocks' milliseconds:
    # one read of the table and one render of them served the whole process (the
    # mover's takes the 9♥'s face from his hand, and his hand's changes follow).
    public = re.compile(r'<input id="table-status".*?(?=<i hx-swap-oob="delete:#hc-|$)', re.S)
    bystanders = [frame for name, frame in seen.items() if name not in ("mover", "other")]
    assert len({public.search(frame).group(0) for frame in bystanders}) == 1
    assert LIVE.hits >= hits + 6
    assert 'data-card="9H"' in seen["w1"] and 'data-card="9H"' in seen["mover"]
    # A move sends no seats again; the mover gets his own hand's changes (the 9♥ gone),
    # the spectators none.
    assert 'id="seats"' not in seen["w1"]
    assert 'hx-swap-oob="delete:#hc-9H"' in seen["mover"]
    assert "#hc-" not in seen["w1"] and 'id="hb-' not in seen["v1"]
    # The other player, whose turn it is now, gets his hand's changes with its moves.
    assert 'data-testid="your-turn"' in seen["other"]
    for ws in everyone:
        await ws.disconnect()


def presence_of(page: Page, user: User) -> bool:
    """Whether the players' boxes of a page show ``user`` connected."""
    span = re.search(rf'<span id="presence-u{user.pk}" class="([^"]*)"', page.part("players"))
    return "on" in span.group(1).split()


async def test_moves_reach_the_table_from_the_event_alone_and_match_a_fresh_read():
    g = await started_table(players=3)
    path = f"/ws/tables/{g.table.pk}/"
    players = {seat: await connect(path, user) for seat, user in g.by_seat.items()}
    spectator = await connect(path, None)
    for ws in players.values():
        await frames_until(ws, 'id="seats"')
    page = Page().take(*await frames_until(spectator, 'id="seats"'))
    applied = LIVE.applied
    hand = g.hand
    sent_boxes = []
    for _ in range(4):  # four moves, each applied to the frame the last one left
        state = hand.engine_state
        move = state.legal_moves()[0]
        command = (
            {"action": "play", "cards": ",".join(move.cards)}
            if hasattr(move, "cards")
            else {"action": "pickup"}
        )
        await players[state.to_move].send_json_to({**command, "version": str(hand.version)})
        frames = await frames_until(spectator, f'data-version="{hand.version + 1}"')
        page.take(*frames)
        sent_boxes.append([id_ for id_, _html in elements(frames[-1])])
        hand = await database_sync_to_async(Hand.objects.get)(pk=hand.pk)
    assert LIVE.applied >= applied + 4
    # A move sends what it changed: the status's mark, of the players' boxes only the
    # parts that changed (the mover's and the next one's), each in its place; the pile
    # and the log whole only when they were empty (the hand's first move).
    for n, ids in enumerate(sent_boxes):
        assert "table-status" in ids and "players" not in ids
        assert n == 0 or not {"pile", "action-log"} & set(ids)
        assert not [i for i in ids if re.fullmatch(r"player-\d", i)]
        assert 1 <= len({i[:2] for i in ids if re.fullmatch(r"p\d-(label|count|clock)", i)}) < 3
    # What the page shows after the moves is what a reload shows: the status, every
    # player's box, the pile and the log, but for the clocks' milliseconds.
    reloaded = await connect(path, None)
    fresh = Page().take(*await frames_until(reloaded, 'id="seats"'))
    clocks = re.compile(r'<div id="p\d-clock".*?</div>|data-server-now="[^"]*"', re.S)
    for part in ("table-status", "status-line", "players", "pile", "action-log", *fresh.boxes()):
        assert clocks.sub("", page.part(part)) == clocks.sub("", fresh.part(part)), part
    assert page.boxes().keys() == fresh.boxes().keys() == {"player-0", "player-1", "player-2"}
    for ws in (*players.values(), spectator, reloaded):
        await ws.disconnect()


async def test_a_player_who_leaves_shows_offline_on_the_moves_after_it():
    g = await started_table()
    path = f"/ws/tables/{g.table.pk}/"
    mover = g.by_seat[g.state.to_move]
    other = g.by_seat[1 - g.state.to_move]
    ws_mover, ws_other = await connect(path, mover), await connect(path, other)
    spectator = await connect(path, None)
    for ws in (ws_mover, ws_other):
        await frames_until(ws, 'id="seats"')
    page = Page().take(*await frames_until(spectator, 'id="seats"'))
    await ws_other.disconnect()
    page.take(*await frames_until(spectator, f'id="presence-u{other.pk}"'))
    await ws_mover.send_json_to({"action": "play", "cards": "9H", "version": str(g.hand.version)})
    page.take(*await frames_until(spectator, 'data-version="2"'))
    assert presence_of(page, mover)
    assert not presence_of(page, other)
    await ws_mover.disconnect()
    await spectator.disconnect()


async def test_only_the_hands_players_comings_and_goings_reach_the_table():
    """A presence fragment swaps a player's mark by its id: one for a signed-in spectator,
    or for one seated at a table whose match has not started, would find no mark."""
    g = await started_table()
    path = f"/ws/tables/{g.table.pk}/"
    staying, leaving = g.users
    watcher, ws_leaving = await connect(path, staying), await connect(path, leaving)
    for ws in (watcher, ws_leaving):
        await frames_until(ws, 'id="seats"')
    onlooker = await database_sync_to_async(make_user)()
    spectator = await connect(path, onlooker)
    await frames_until(spectator, 'id="seats"')
    await spectator.disconnect()
    await ws_leaving.disconnect()
    frames = await frames_until(watcher, f'id="presence-u{leaving.pk}" class="presence"')
    assert [f for f in frames if f'presence-u{onlooker.pk}"' in f] == []
    await watcher.disconnect()

    open_table = await database_sync_to_async(make_table)(players=2)
    owner, seated = await database_sync_to_async(seated_users)(open_table)
    path = f"/ws/tables/{open_table.pk}/"
    watcher = await connect(path, owner)
    await frames_until(watcher, 'id="seats"')
    ws_seated = await connect(path, seated)
    await frames_until(ws_seated, 'id="seats"')
    await ws_seated.disconnect()
    await database_sync_to_async(services.match_start)(table_id=open_table.pk, by=owner)
    frames = await frames_until(watcher, 'data-testid="player"')  # the players' boxes
    assert [f for f in frames if "presence-u" in f and 'id="players"' not in f] == []
    await watcher.disconnect()


async def test_pongs_show_each_players_lag_and_a_closed_socket_stays_absent(monkeypatch):
    monkeypatch.setattr(presence, "PONG_FLUSH_EVERY", 0.2)
    g = await started_table()
    path = f"/ws/tables/{g.table.pk}/"
    staying, leaving = g.users
    ws_staying, ws_leaving = await connect(path, staying), await connect(path, leaving)
    for ws in (ws_staying, ws_leaving):
        await frames_until(ws, 'id="seats"')
    # Each answers a ping sent a quarter of a second ago; one closes his page at once.
    sent = str(time.monotonic() - 0.25)
    await ws_staying.send_json_to({"action": "pong", "t": sent})
    await ws_leaving.send_json_to({"action": "pong", "t": sent})
    await ws_leaving.disconnect()
    await asyncio.sleep(1.0)  # several flushes of the process's pongs

    def seen() -> tuple:
        return tuple(
            cache.get(key(g.table.pk, user.pk))
            for user in (staying, leaving)
            for key in (selectors.presence_key, selectors.lag_key)
        )

    present, lag, left_present, left_lag = await database_sync_to_async(seen)()
    assert present is True and 250 <= lag < 5000
    assert left_present is None and left_lag is None
    await ws_staying.disconnect()


async def play_first_legal(ws, hand: Hand) -> None:
    move = hand.engine_state.legal_moves()[0]
    command = (
        {"action": "play", "cards": ",".join(move.cards)}
        if hasattr(move, "cards")
        else {"action": "pickup"}
    )
    await ws.send_json_to({**command, "version": str(hand.version)})


async def test_lags_are_read_again_for_the_tables_due_together_in_one_read(monkeypatch):
    """Every table's frame reads its players' lags again now and then, for the moves to
    come: the tables due at once are read together (after a restart all of them are)."""
    monkeypatch.setattr(LIVE, "presence_ttl", 0.0)  # due at every move
    reads = []
    real = LIVE.source.read_presence

    def counted(frames):
        reads.append(sorted(frame.table.pk for frame in frames))
        return real(frames)

    monkeypatch.setattr(LIVE.source, "read_presence", counted)
    games = [await started_table(), await started_table()]
    sockets = {}
    for g in games:
        path = f"/ws/tables/{g.table.pk}/"
        sockets[g.table.pk] = {seat: await connect(path, user) for seat, user in g.by_seat.items()}
        for ws in sockets[g.table.pk].values():
            await frames_until(ws, 'id="seats"')

    def lags_written() -> None:  # as the pongs of every socket are, every 2 s
        for i, g in enumerate(games):
            for user in g.users:
                cache.set(selectors.lag_key(g.table.pk, user.pk), 300 + i, 40)

    await database_sync_to_async(lags_written)()
    for g in games:  # a move at each table; both tables are due
        await play_first_legal(sockets[g.table.pk][g.state.to_move], g.hand)
    for g in games:
        for ws in sockets[g.table.pk].values():
            await frames_until(ws, 'data-version="2"')
    await asyncio.sleep(tables.PRESENCE_BATCH + 0.5)
    assert sorted(g.table.pk for g in games) in reads  # one read for both
    for i, g in enumerate(games):  # the next move shows the lags read
        hand = await database_sync_to_async(Hand.objects.get)(pk=g.hand.pk)
        await play_first_legal(sockets[g.table.pk][hand.engine_state.to_move], hand)
        frame = (await frames_until(sockets[g.table.pk][0], 'data-version="3"'))[-1]
        assert len(re.findall(rf'class="lag"[^>]*>{300 + i} ms<', frame)) == 2
    for seats in sockets.values():
        for ws in seats.values():
            await ws.disconnect()


def _time_out(hand_id: int) -> Hand:
    """The player to move runs out of time (the clock is injected, not slept on)."""
    hand = Hand.objects.get(pk=hand_id)
    assert services.execute(
        services.Timeout(hand_id=hand.pk), now=hand.deadline + timedelta(seconds=1)
    )
    return Hand.objects.get(pk=hand_id)


def _deal_next(hand: Hand) -> Hand:
    return services.match_next_hand(
        match_id=hand.match_id, after_number=hand.number, now=hand.finished_at
    )


async def test_the_next_hand_reaches_players_and_spectators_without_a_reload():
    g = await started_table()
    path = f"/ws/tables/{g.table.pk}/"
    player, spectator = await connect(path, g.users[0]), await connect(path, None)
    for ws in (player, spectator):
        await frames_until(ws, 'id="seats"')
    # Hand 1 goes on for a while (its version passes the next hand's first ones)...
    mover = g.by_seat[g.state.to_move]
    opening = services.move_action(
        {"type": "play", "cards": ["9H"]}, hand_id=g.hand.pk, version=1, user=mover
    )
    await database_sync_to_async(services.execute)(opening)
    ended = await database_sync_to_async(_time_out)(g.hand.pk)
    assert ended.version == 3
    for ws in (player, spectator):
        await frames_until(ws, f'data-hand="{g.hand.pk}" data-version="3"')
    # ...then hand 2 is dealt: version 1 of a newer hand is news, not an old event.
    second = await database_sync_to_async(_deal_next)(ended)
    state = second.engine_state
    my_seat = next(seat for seat, user in g.by_seat.items() if user == g.users[0])
    for ws, cards in ((player, set(state.hand(my_seat))), (spectator, set())):
        frames = await frames_until(ws, f'data-hand="{second.pk}" data-version="1"')
        assert "Hand 2" in frames[-1]
        assert hand_cards_in(frames[-1]) == cards
    # And a move of hand 2 reaches both too.
    mover = g.by_seat[state.to_move]
    base = next(c for c in state.hand(state.to_move) if c == "9H")
    await database_sync_to_async(services.execute)(
        services.move_action(
            {"type": "play", "cards": [base]}, hand_id=second.pk, version=1, user=mover
        )
    )
    for ws in (player, spectator):
        await frames_until(ws, f'data-hand="{second.pk}" data-version="2"')
    for ws in (player, spectator):
        await ws.disconnect()


async def test_a_rematch_reaches_the_table_without_a_reload():
    table = await database_sync_to_async(make_table)(players=2, base_seconds=600)
    path = f"/ws/tables/{table.pk}/"
    owner_ws, spectator = await connect(path, table.owner), await connect(path, None)
    for ws in (owner_ws, spectator):
        await frames_until(ws, 'id="seats"')
    await database_sync_to_async(play_to_pan_on_time)(table)
    await frames_until(spectator, 'data-testid="ranking"')
    finished = await frames_until(owner_ws, 'data-testid="rematch"')  # the owner's own button
    assert 'data-testid="ranking"' in finished[-1]
    last_hand = await database_sync_to_async(
        lambda: Hand.objects.filter(match__table=table).order_by("-pk").first()
    )()
    await owner_ws.send_json_to({"action": "rematch"})
    for ws in (owner_ws, spectator):
        newer = rf'data-hand="(?!{last_hand.pk}")\d+" data-version="1"'
        frames = await frames_until(ws, newer)
        assert 'data-testid="ranking"' not in frames[-1]
    for ws in (owner_ws, spectator):
        await ws.disconnect()


async def test_a_player_who_left_cannot_play_the_seat_his_bot_took():
    g = await started_table()
    leaver = g.by_seat[g.state.to_move]
    path = f"/ws/tables/{g.table.pk}/"
    ws = await connect(path, leaver)
    await frames_until(ws, 'id="seats"')
    await database_sync_to_async(services.table_leave)(table_id=g.table.pk, user=leaver)
    # Before the bot's pause is over, he sends the move his old seat could make.
    await ws.send_json_to({"action": "play", "cards": "9H", "version": "1"})
    frames = await frames_until(ws, 'id="notice"')
    assert "A bot plays your former seat now." in frames[-1]
    hand = await database_sync_to_async(Hand.objects.get)(pk=g.hand.pk)
    assert hand.version == 1  # no worker runs here: the bot has not moved either
    await ws.disconnect()


async def test_refused_commands_get_a_reason_and_change_nothing():
    g = await started_table()
    table, hand, state, by_seat = g.table, g.hand, g.state, g.by_seat
    other = by_seat[1 - state.to_move]
    path = f"/ws/tables/{table.pk}/"
    ws_other, ws_spectator = await connect(path, other), await connect(path, None)
    stranger = await database_sync_to_async(make_user)()
    ws_stranger = await connect(path, stranger)
    for ws in (ws_other, ws_spectator, ws_stranger):
        await frames_until(ws, 'id="my-hand"')

    card = state.hand(1 - state.to_move)[0]
    await ws_other.send_json_to({"action": "play", "cards": card, "version": "1"})
    assert "It is not your turn." in (await frames_until(ws_other, 'id="notice"'))[-1]
    await ws_spectator.send_json_to({"action": "play", "cards": card, "version": "1"})
    assert "Log in to play or chat." in (await frames_until(ws_spectator, 'id="notice"'))[-1]
    await ws_stranger.send_json_to({"action": "pickup", "count": "3", "version": "1"})
    assert (
        "You are not playing in this hand." in (await frames_until(ws_stranger, 'id="notice"'))[-1]
    )
    await ws_stranger.send_to(text_data="not json")
    assert "could not be read" in (await frames_until(ws_stranger, 'id="notice"'))[-1]

    await database_sync_to_async(hand.refresh_from_db)()
    assert hand.version == 1
    for ws in (ws_other, ws_spectator, ws_stranger):
        await ws.disconnect()


async def test_a_stale_version_is_refused_and_the_table_is_sent_again():
    g = await started_table()
    table, hand, state, by_seat = g.table, g.hand, g.state, g.by_seat
    ws = await connect(f"/ws/tables/{table.pk}/", by_seat[state.to_move])
    await frames_until(ws, 'id="my-hand"')
    await ws.send_json_to({"action": "play", "cards": "9H", "version": "0"})
    await frames_until(ws, "The table has changed")
    frames = await frames_until(ws, 'id="my-hand"')  # the whole table again (resync)
    assert version_of(frames[-1]) == 1
    await database_sync_to_async(hand.refresh_from_db)()
    assert hand.version == 1
    await ws.disconnect()


async def test_chat_reaches_players_and_spectators():
    g = await started_table()
    table, users = g.table, g.users
    path = f"/ws/tables/{table.pk}/"
    ws_player, ws_spectator = await connect(path, users[0]), await connect(path, None)
    await frames_until(ws_spectator, 'id="my-hand"')
    await ws_player.send_json_to({"action": "chat", "text": "  good   luck  "})
    frames = await frames_until(ws_spectator, 'id="chat-messages"')
    assert f"<strong>{users[0].username}:</strong> good luck" in frames[-1]
    for ws in (ws_player, ws_spectator):
        await ws.disconnect()


@pytest.mark.parametrize("text", ["a\u0000b", "x\ud800y"], ids=["nul", "surrogate"])
async def test_chat_text_the_database_cannot_store_is_refused_and_nothing_stored(text):
    g = await started_table()
    ws = await connect(f"/ws/tables/{g.table.pk}/", g.users[0])
    await frames_until(ws, 'id="my-hand"')
    await ws.send_json_to({"action": "chat", "text": text})
    assert "cannot be stored" in (await frames_until(ws, 'id="notice"'))[-1]
    # A moderator's reason is read the same way.
    moderator = await database_sync_to_async(make_moderator)()
    ws_moderator = await connect(f"/ws/tables/{g.table.pk}/", moderator)
    await frames_until(ws_moderator, 'id="my-hand"')
    await ws_moderator.send_json_to({"action": "abort_hand", "reason": text})
    assert "cannot be stored" in (await frames_until(ws_moderator, 'id="notice"'))[-1]
    assert not await ChatMessage.objects.filter(table=g.table).aexists()
    assert (await Hand.objects.aget(pk=g.hand.pk)).version == g.hand.version
    for socket in (ws, ws_moderator):
        await socket.disconnect()


async def test_a_private_table_refuses_uninvited_watchers():
    table = await database_sync_to_async(make_table)(players=1, is_public=False)
    from channels.testing import WebsocketCommunicator

    from pan_site.asgi import application
    from tests.games.ws import ORIGIN

    communicator = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN])
    connected, _ = await communicator.connect(timeout=10)
    assert not connected
    owner_ws = await connect(f"/ws/tables/{table.pk}/", table.owner)
    await owner_ws.disconnect()


async def test_the_lobby_hears_a_new_table_and_a_filled_seat():
    lobby = await connect("/ws/lobby/", None)
    table = await database_sync_to_async(make_table)(players=1, name="Brand new table")
    frames = await frames_until(lobby, "Brand new table")
    assert frames[-1].count("seat-dot taken") == 1
    guest = await database_sync_to_async(make_user)()
    await database_sync_to_async(services.table_sit)(table_id=table.pk, user=guest)
    frames = await frames_until(lobby, "seat-dot taken.*seat-dot taken")
    assert "Brand new table" in frames[-1]
    await lobby.disconnect()


async def test_sockets_opening_together_share_one_read_and_a_later_one_sees_the_change():
    """A page load reads the whole table; the sockets that open while a read waits for its
    thread share it (each joined the table's group before it started), and a socket that
    opens after a move reads again and shows it."""
    g = await started_table()
    joined = time.monotonic()
    reads = LIVE.reads
    first, second = await asyncio.gather(
        LIVE.fresh(g.table.pk, since=joined), LIVE.fresh(g.table.pk, since=joined)
    )
    assert first is second and LIVE.reads == reads + 1
    # One who joined before that read started may take it; it showed the hand as it was.
    assert await LIVE.fresh(g.table.pk, since=joined) is first
    assert first.hand.version == g.hand.version

    await play_first_move(g)
    later = await LIVE.fresh(g.table.pk, since=time.monotonic())
    assert LIVE.reads == reads + 2
    assert later.hand.version == g.hand.version + 1


async def test_a_page_opened_after_a_move_is_not_shown_an_earlier_pages_render():
    """What the pages of one read see alike is drawn once for them (named by the read); a
    page opened after a move is drawn from a read that shows it."""
    g = await started_table()
    path = f"/ws/tables/{g.table.pk}/"
    first = await connect(path, None)
    before = "".join(await frames_until(first, 'id="seats"'))
    assert f'data-version="{g.hand.version}"' in before
    await play_first_move(g)
    later = await connect(path, None)
    frame = "".join(await frames_until(later, 'id="seats"'))
    assert f'data-version="{g.hand.version + 1}"' in frame
    for ws in (first, later):
        await ws.disconnect()


async def test_opening_a_table_whose_clock_ran_out_shows_the_timeout_applied():
    """Layer 1 of the clock: a page opened after the deadline, before any ticker applied
    it, shows the hand ended on time, never a clock at zero still waiting."""
    g = await started_table()
    past = g.hand.turn_started_at - timedelta(seconds=1)
    await database_sync_to_async(Hand.objects.filter(pk=g.hand.pk).update)(deadline=past)
    ws = await connect(f"/ws/tables/{g.table.pk}/", g.by_seat[1 - g.state.to_move])
    frame = "".join(await frames_until(ws, 'id="seats"'))
    assert 'data-testid="outcome"' in frame
    hand = await database_sync_to_async(Hand.objects.get)(pk=g.hand.pk)
    assert hand.outcome is not None and hand.outcome["reason"] == "timeout"
    await ws.disconnect()


async def test_a_refusal_speaks_the_viewers_language_and_a_garbled_pong_is_ignored():
    """Refusals are translated when shown, in the viewer's language (a visitor's from his
    browser), however early the edge refuses; a pong whose time is no number changes nothing."""
    from channels.testing import WebsocketCommunicator

    from pan_site.asgi import application
    from tests.games.ws import ORIGIN

    g = await started_table()
    path = f"/ws/tables/{g.table.pk}/"
    polish = WebsocketCommunicator(application, path, headers=[ORIGIN, (b"accept-language", b"pl")])
    assert (await polish.connect(timeout=10))[0]
    await frames_until(polish, 'id="seats"')
    for garbled in ("nan", "inf", "soon"):
        await polish.send_json_to({"action": "pong", "t": garbled})
    await polish.send_json_to({"action": "play", "cards": "9H", "version": "1"})
    notice = (await frames_until(polish, 'id="notice"'))[-1]
    assert "Zaloguj się, aby grać lub pisać na czacie." in notice  # the pongs got no answer
    await polish.send_to(text_data="not json")
    notice = (await frames_until(polish, 'id="notice"'))[-1]
    assert "Nie udało się odczytać tej wiadomości." in notice

    player = await connect(path, g.by_seat[g.state.to_move])  # English (tests' default)
    await frames_until(player, 'id="seats"')
    await player.send_json_to({"action": "dance"})
    assert "Unknown command." in (await frames_until(player, 'id="notice"'))[-1]
    await player.send_json_to({"action": "play", "cards": "9H", "version": "one"})
    assert "could not be read" in (await frames_until(player, 'id="notice"'))[-1]
    await player.send_json_to({"action": "play", "cards": "", "version": "1"})
    assert "Choose a card to play." in (await frames_until(player, 'id="notice"'))[-1]
    hand = await database_sync_to_async(Hand.objects.get)(pk=g.hand.pk)
    assert hand.version == 1
    for ws in (polish, player):
        await ws.disconnect()


async def test_a_move_while_the_database_is_unreachable_is_refused_and_the_socket_stays(
    monkeypatch,
):
    """The live room's connection to PostgreSQL fails (a restart): the player reads why,
    nothing is written, the socket stays open, and once the database is back the same
    move lands."""
    import contextlib

    import psycopg

    from live import adb

    g = await started_table()
    mover = g.by_seat[g.state.to_move]
    ws = await connect(f"/ws/tables/{g.table.pk}/", mover)
    await frames_until(ws, 'id="my-hand"')
    move = {"action": "play", "cards": "9H", "version": str(g.hand.version)}  # the opening

    @contextlib.asynccontextmanager
    async def unreachable(**kwargs):
        raise psycopg.OperationalError("connection refused")
        yield  # pragma: no cover

    with monkeypatch.context() as patched:
        patched.setattr(adb.CONNECTIONS, "connection", unreachable)
        await ws.send_json_to(move)
        frames = await frames_until(ws, "cannot reach its database")
    assert not any('data-version="2"' in frame for frame in frames)
    row = await database_sync_to_async(Hand.objects.get)(pk=g.hand.pk)
    assert row.version == g.hand.version

    await ws.send_json_to(move)
    await frames_until(ws, 'data-version="2"')
    await ws.disconnect()
