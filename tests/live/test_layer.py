"""Channels' layer interface on the real Redis, run against the project's layer
(live.layer) and channels_redis's stock pub/sub layer; then the project layer's
own methods (drop_channel, announce, publishes_held, deserialize), its origin skipping, its
per-loop connections and its reconnection after Redis dropped the subscriber. Every test
reads a channel through Channels' interface (``receive``), as a consumer does."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from asgiref.sync import async_to_sync
from channels.layers import BaseChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from live.layer import PubSubChannelLayer, redis_name

pytestmark = [pytest.mark.asyncio, pytest.mark.redis]

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
KINDS = ["project", "channels_redis"]
NAMES = BaseChannelLayer()  # Channels' own name validation
WAIT = 10  # seconds a test waits for what must come before it fails


def make_layer(kind: str, prefix: str, **config: Any) -> Any:
    config = {"hosts": [REDIS_URL], "prefix": prefix, **config}
    if kind == "project":
        return PubSubChannelLayer(**config)
    return RedisPubSubChannelLayer(**config)


@pytest.fixture
def prefix() -> str:
    base = os.environ.get("CHANNELS_PREFIX", "pan")
    return f"{base}-conformance-{uuid.uuid4().hex[:12]}."


@pytest_asyncio.fixture
async def redis() -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL)
    yield client
    await client.aclose()


@pytest_asyncio.fixture(params=KINDS)
async def layers(request: pytest.FixtureRequest, prefix: str) -> AsyncIterator[Any]:
    """``layers()`` makes a layer of the test's kind (one per "process"), flushed after."""
    made = []

    def make() -> Any:
        made.append(make_layer(request.param, prefix))
        return made[-1]

    make.kind = request.param
    yield make
    for layer in made:
        await layer.flush()


@pytest_asyncio.fixture
async def project(prefix: str) -> AsyncIterator[Any]:
    made = []

    def make(**config: Any) -> PubSubChannelLayer:
        made.append(make_layer("project", prefix, **config))
        return made[-1]

    yield make
    for layer in made:
        await layer.flush()


async def subscribed(redis: Redis, name: str, count: int = 1) -> None:
    """Redis has ``count`` subscribers of ``name`` (the stock layer does not wait for
    Redis to confirm a subscription; the project's layer does)."""
    async with asyncio.timeout(WAIT):
        while (await redis.pubsub_numsub(name))[0][1] < count:
            await asyncio.sleep(0.01)


async def unsubscribed(redis: Redis, name: str) -> None:
    async with asyncio.timeout(WAIT):
        while (await redis.pubsub_numsub(name))[0][1] > 0:
            await asyncio.sleep(0.01)


async def receive(layer: Any, channel: str) -> dict[str, Any]:
    return await asyncio.wait_for(layer.receive(channel), WAIT)


async def nothing_more(layer: Any, channel: str) -> None:
    """Nothing else is on its way to ``channel``: a marker sent now through Redis comes
    next (Redis delivers one sender's publishes in order, on one subscriber connection)."""
    marker = {"type": "marker", "id": uuid.uuid4().hex}
    await layer.send(channel, marker)
    assert await receive(layer, channel) == marker


# Channels' interface, on both layers


async def test_new_channel_names_are_unique_and_valid(layers):
    layer = layers()
    names = [await layer.new_channel() for _ in range(20)]
    assert len(set(names)) == 20
    for name in names:
        assert NAMES.require_valid_channel_name(name)


async def test_a_message_sent_to_a_channel_is_received(layers):
    layer = layers()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "hello", "n": 1})
    assert await receive(layer, channel) == {"type": "hello", "n": 1}


async def test_a_group_message_reaches_every_member_and_not_one_that_left(layers, redis):
    layer = layers()
    channels = [await layer.new_channel() for _ in range(3)]
    for channel in channels:
        await layer.group_add("table-1", channel)
    await subscribed(redis, f"{layer.prefix}__group__table-1")
    await layer.group_send("table-1", {"type": "move", "n": 1})
    for channel in channels:
        assert await receive(layer, channel) == {"type": "move", "n": 1}
    await layer.group_discard("table-1", channels[0])
    await layer.group_send("table-1", {"type": "move", "n": 2})
    for channel in channels[1:]:
        assert await receive(layer, channel) == {"type": "move", "n": 2}
    await nothing_more(layer, channels[0])


async def test_discarding_a_channel_not_in_the_group_does_nothing(layers):
    layer = layers()
    channel = await layer.new_channel()
    await layer.group_discard("nobody-here", channel)


async def test_a_message_nobody_listens_to_is_dropped_without_blocking(layers, redis):
    layer = layers()
    await asyncio.wait_for(layer.send(f"{layer.prefix}specific.gone", {"type": "x"}), WAIT)
    await asyncio.wait_for(layer.group_send("empty", {"type": "x", "n": 1}), WAIT)
    # Who joins the group afterwards does not get it: nothing waited in Redis.
    channel = await layer.new_channel()
    await layer.group_add("empty", channel)
    await subscribed(redis, f"{layer.prefix}__group__empty")
    await nothing_more(layer, channel)


async def test_one_senders_messages_arrive_in_order(layers, redis):
    layer = layers()
    channel = await layer.new_channel()
    await subscribed(redis, redis_name(channel))
    for n in range(30):
        await layer.send(channel, {"type": "n", "n": n})
    assert [(await receive(layer, channel))["n"] for _ in range(30)] == list(range(30))
    await layer.group_add("ordered", channel)
    await subscribed(redis, f"{layer.prefix}__group__ordered")
    for n in range(30):
        await layer.group_send("ordered", {"type": "n", "n": n})
    assert [(await receive(layer, channel))["n"] for _ in range(30)] == list(range(30))


async def test_two_processes_exchange_group_messages_each_once(layers, redis):
    here, there = layers(), layers()
    mine, theirs = await here.new_channel(), await there.new_channel()
    await here.group_add("shared", mine)
    await there.group_add("shared", theirs)
    await subscribed(redis, f"{here.prefix}__group__shared", 2)
    await here.group_send("shared", {"type": "from", "who": "here"})
    await there.group_send("shared", {"type": "from", "who": "there"})
    for layer, channel in ((here, mine), (there, theirs)):
        got = [(await receive(layer, channel))["who"] for _ in range(2)]
        assert sorted(got) == ["here", "there"]
        await nothing_more(layer, channel)


async def test_flush_forgets_waiting_messages_and_the_layer_works_after(layers, redis):
    layer = layers()
    channel = await layer.new_channel()
    await subscribed(redis, redis_name(channel))
    await layer.send(channel, {"type": "old"})
    await layer.flush()
    await unsubscribed(redis, redis_name(channel))
    receiving = asyncio.ensure_future(receive(layer, channel))
    await subscribed(redis, redis_name(channel))
    await layer.send(channel, {"type": "new"})
    assert await receiving == {"type": "new"}
    fresh = await layer.new_channel()
    await layer.send(fresh, {"type": "fresh"})
    assert await receive(layer, fresh) == {"type": "fresh"}


async def test_text_beyond_ascii_and_bytes_arrive_intact(layers, redis):
    layer = layers()
    channel = await layer.new_channel()
    await layer.group_add("unicode", channel)
    await subscribed(redis, f"{layer.prefix}__group__unicode")
    message = {
        "type": "chat",
        "text": "Zażółć gęślą jaźń ♠♥♦♣ 🂡",
        "raw": b"\x00\xc1\xff pan",
        "nested": {"list": [1, 2.5, None, True, "ą"]},
    }
    await layer.send(channel, message)
    assert await receive(layer, channel) == message
    await layer.group_send("unicode", message)
    assert await receive(layer, channel) == message


@pytest.mark.parametrize(
    "name", ["has space", "ąę", "x" * 100, 7, "", "group!"], ids=lambda name: repr(name)[:12]
)
async def test_invalid_names_are_refused_as_channels_validation_does(layers, name):
    if layers.kind == "channels_redis":
        pytest.skip("channels_redis's pub/sub layer does not validate names (documented)")
    layer = layers()
    channel = await layer.new_channel()
    with pytest.raises(TypeError):
        NAMES.require_valid_group_name(name)
    with pytest.raises(TypeError):
        await layer.group_add(name, channel)
    with pytest.raises(TypeError):
        await layer.group_send(name, {"type": "x"})
    with pytest.raises(TypeError):
        await layer.group_discard(name, channel)
    if name != "group!":  # a process-local channel name ("...!") is a valid channel name
        with pytest.raises(TypeError):
            NAMES.require_valid_channel_name(name)
        with pytest.raises(TypeError):
            await layer.send(name, {"type": "x"})
        with pytest.raises(TypeError):
            await layer.receive(name)


async def test_the_layer_offers_groups_and_flush(layers):
    assert {"groups", "flush"} <= set(layers().extensions)


# The project layer's own methods


async def test_group_add_returns_once_redis_has_the_subscription(project, redis):
    layer = project()
    channel = await layer.new_channel()
    assert (await redis.pubsub_numsub(redis_name(channel)))[0][1] == 1
    await layer.group_add("confirmed", channel)
    assert (await redis.pubsub_numsub(f"{layer.prefix}__group__confirmed"))[0][1] == 1


async def test_a_loops_channels_share_one_subscription_and_each_gets_its_own(project, redis):
    """A daphne opens a channel per socket: it costs no trip to Redis once the loop has
    subscribed, Redis holds one subscription for them all, and a message to one channel
    reaches that channel only, from this process or another."""
    here, there = project(), project()
    channels = [await here.new_channel() for _ in range(50)]
    assert len({redis_name(channel) for channel in channels}) == 1
    assert (await redis.pubsub_numsub(redis_name(channels[0])))[0][1] == 1
    for n, channel in enumerate(channels):
        await there.send(channel, {"type": "n", "n": n})
    for n, channel in enumerate(channels):
        assert (await receive(here, channel))["n"] == n
        await nothing_more(here, channel)
    elsewhere = await there.new_channel()
    assert redis_name(elsewhere) != redis_name(channels[0])
    await here.send(elsewhere, {"type": "back"})
    assert (await receive(there, elsewhere))["type"] == "back"


async def test_a_channel_receives_the_loops_own_message_as_sent_then_anothers_decoded(
    project, redis
):
    layer, other = project(), project()
    channel = await layer.new_channel()
    await layer.group_add("as-they-came", channel)
    before = layer.decodings
    await layer.group_send("as-they-came", {"type": "a", "n": 1})  # the loop's own: as sent
    await other.group_send("as-they-came", {"type": "a", "n": 2})  # from Redis: encoded
    assert await receive(layer, channel) == {"type": "a", "n": 1}
    assert layer.decodings == before
    assert await receive(layer, channel) == {"type": "a", "n": 2}
    assert layer.decodings == before + 1


async def test_drop_channel_forgets_it_and_unsubscribes_in_the_background(project, redis):
    layer = project()
    channel, other = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("left", channel)
    await layer.group_add("kept", channel)
    await layer.group_add("kept", other)
    layer.drop_channel(channel)
    # The channels of a loop share one subscription, which stays for the others.
    assert (await redis.pubsub_numsub(redis_name(other)))[0][1] == 1
    await layer.send(channel, {"type": "for-the-dropped"})
    await layer.send(other, {"type": "for-the-other"})  # after it, on the same subscription
    assert (await receive(layer, other))["type"] == "for-the-other"
    await unsubscribed(redis, f"{layer.prefix}__group__left")  # nobody here in it any more
    assert (await redis.pubsub_numsub(f"{layer.prefix}__group__kept"))[0][1] == 1
    await layer.group_send("kept", {"type": "a"})
    assert await receive(layer, other) == {"type": "a"}
    await nothing_more(layer, other)
    layer.drop_channel(channel)  # twice: nothing
    # Nothing was kept for the dropped channel: neither the message sent to it nor the
    # group's (a ``receive`` now opens it anew, empty).
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(channel), 0.2)


async def test_announce_delivers_here_at_once_and_there_through_redis(project):
    here, there = project(), project()
    mine, theirs = await here.new_channel(), await there.new_channel()
    await here.group_add("announced", mine)
    await there.group_add("announced", theirs)
    async with here.publishes_held():  # Redis takes nothing from here until the block ends
        for n in range(20):
            here.announce("announced", {"type": "a", "n": n})
        assert [(await receive(here, mine))["n"] for _ in range(20)] == list(range(20))
    assert [(await receive(there, theirs))["n"] for _ in range(20)] == list(range(20))
    await nothing_more(here, mine)  # its own copy from Redis was skipped


async def test_a_failed_announced_publish_is_logged_not_raised(project, caplog):
    layer = project(hosts=["redis://127.0.0.1:1/0"])  # nothing listens on port 1
    caplog.set_level(logging.ERROR, logger="live.layer")
    layer.announce("nowhere", {"type": "a"})
    async with asyncio.timeout(WAIT):
        while not any("announced" in r.getMessage() for r in caplog.records):
            await asyncio.sleep(0.01)


async def test_a_group_message_is_decoded_at_most_once_for_the_loops_channels(project):
    here, there = project(), project()
    channels = [await here.new_channel() for _ in range(4)]
    for channel in channels:
        await here.group_add("decoded", channel)
    sender = await there.new_channel()
    await there.group_add("decoded", sender)
    event = {"type": "table.changed", "state": {"history": list(range(50))}}
    # Sent in the loop: not decoded at all; through Redis: once for the four.
    for layer, decodings in ((here, 0), (there, 1)):
        before = here.decodings
        await layer.group_send("decoded", event)
        received = [await receive(here, channel) for channel in channels]
        assert received == [event] * 4
        assert here.decodings - before == decodings
        received[0]["seen"] = True  # each channel has its own top-level dict
        assert "seen" not in received[1]


async def test_a_message_for_the_senders_own_members_is_each_ones_own(project):
    """Not encoded for the sending loop's members, a message still reaches each as its
    own dict, as it was when it was sent."""
    layer = project()
    first, second = await layer.new_channel(), await layer.new_channel()
    for channel in (first, second):
        await layer.group_add("own", channel)
    event = {"type": "a", "n": 1}
    layer.announce("own", event)
    event["n"] = 2  # the sender's dict, changed after it was sent
    got = await receive(layer, first)
    got["n"] = 3
    assert await receive(layer, second) == {"type": "a", "n": 1}


async def test_a_group_message_reaches_the_senders_own_member_once(project):
    here, there = project(), project()
    mine, theirs = await here.new_channel(), await there.new_channel()
    await here.group_add("once", mine)
    await there.group_add("once", theirs)
    async with here.publishes_held():  # the send waits for Redis until the block ends
        sending = asyncio.ensure_future(here.group_send("once", {"type": "a"}))
        assert await receive(here, mine) == {"type": "a"}  # delivered before Redis took it
        assert not sending.done()
    await sending
    assert await receive(there, theirs) == {"type": "a"}
    await nothing_more(here, mine)
    await nothing_more(there, theirs)


async def test_a_storm_of_publishes_waits_for_connections_rather_than_failing(project):
    here, there = project(), project()
    channel = await there.new_channel()
    await there.group_add("storm", channel)
    await asyncio.gather(*(here.group_send("storm", {"type": "a", "n": n}) for n in range(400)))
    received = [await receive(there, channel) for _ in range(400)]
    assert sorted(m["n"] for m in received) == list(range(400))


async def test_a_burst_of_announcements_leaves_in_order_on_one_connection(project, redis):
    here, there = project(), project()
    channel = await there.new_channel()
    await there.group_add("burst", channel)
    for n in range(1000):  # a busy loop's moves, announced without waiting
        here.announce("burst", {"type": "a", "n": n})
    assert [(await receive(there, channel))["n"] for _ in range(1000)] == list(range(1000))
    publishers = [c for c in await redis.client_list() if c["name"] == here.prefix]
    assert len(publishers) == 1  # one connection carried them all


async def test_a_publish_after_redis_dropped_the_publisher_connection_still_arrives(project, redis):
    here, there = project(), project()
    channel = await there.new_channel()
    await there.group_add("dropped", channel)
    await here.group_send("dropped", {"type": "a", "n": 1})
    killed = [c["id"] for c in await redis.client_list() if c["name"] == here.prefix]
    assert len(killed) == 1
    await redis.execute_command("CLIENT", "KILL", "ID", killed[0])
    await here.group_send("dropped", {"type": "a", "n": 2})  # written again on a new one
    here.announce("dropped", {"type": "a", "n": 3})
    assert [(await receive(there, channel))["n"] for _ in range(3)] == [1, 2, 3]
    ids = [c["id"] for c in await redis.client_list() if c["name"] == here.prefix]
    assert len(ids) == 1 and ids != killed


async def test_the_subscriber_reconnects_and_subscribes_again_after_redis_dropped_it(
    project, redis
):
    here, there = project(), project()
    channel = await here.new_channel()
    await here.group_add("survives", channel)
    subscriber = f"{here.prefix}subscriber"
    killed = [c["id"] for c in await redis.client_list() if c["name"] == subscriber]
    assert len(killed) == 1
    await redis.execute_command("CLIENT", "KILL", "ID", killed[0])
    # One ``receive`` waits throughout (one that timed out would forget the channel).
    receiving = asyncio.ensure_future(here.receive(channel))
    async with asyncio.timeout(WAIT):
        while not receiving.done():  # a message published while the subscriber is away is lost
            await there.group_send("survives", {"type": "a"})
            await asyncio.wait([receiving], timeout=0.2)
    assert receiving.result() == {"type": "a"}
    ids = [c["id"] for c in await redis.client_list() if c["name"] == subscriber]
    assert ids and killed[0] not in ids
    await subscribed(redis, redis_name(channel))  # the channel itself, too
    await nothing_more(here, channel)


async def test_a_short_lived_loop_gets_its_own_connections_and_closes_them(project, redis):
    """Sync code calls the layer through async_to_sync, from other threads, on loops that
    end with the call: their connections end with them, and the server's loop goes on."""
    layer = project()
    channel = await layer.new_channel()
    await layer.group_add("from-sync", channel)

    def from_sync() -> None:
        async_to_sync(layer.group_send)("from-sync", {"type": "a", "n": 1})
        async_to_sync(layer.group_send)("from-sync", {"type": "a", "n": 2})

    thread = threading.Thread(target=from_sync)
    thread.start()
    await asyncio.get_running_loop().run_in_executor(None, thread.join)
    assert [(await receive(layer, channel))["n"] for _ in range(2)] == [1, 2]
    # This loop's own publishing connections: none (it only subscribed); the thread's loops
    # closed theirs (Redis notices within moments).
    async with asyncio.timeout(WAIT):
        while layer.prefix in [c["name"] for c in await redis.client_list()]:
            await asyncio.sleep(0.01)
    names = [c["name"] for c in await redis.client_list()]
    assert names.count(f"{layer.prefix}subscriber") == 1


async def test_senders_without_a_loop_share_one_kept_connection_in_order(project, redis):
    """A Celery worker's threads and the clock ticker run no event loop: what they send
    leaves on the process's sending loop, on one connection that stays open, each
    thread's messages in order (``async_to_sync`` would open a loop and a connection for
    each message and close them after it)."""
    here, there = project(), project()
    channel = await there.new_channel()
    await there.group_add("from-threads", channel)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(
        None, lambda: here.group_send_blocking("from-threads", {"type": "a", "n": -1})
    )
    assert (await receive(there, channel))["n"] == -1
    kept = [c["id"] for c in await redis.client_list() if c["name"] == here.prefix]
    assert len(kept) == 1

    def send(first: int) -> None:
        for n in range(first, first + 50):
            here.group_send_blocking("from-threads", {"type": "a", "n": n})

    threads = [threading.Thread(target=send, args=(50 * k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        await loop.run_in_executor(None, thread.join)
    received = [(await receive(there, channel))["n"] for _ in range(150)]
    assert sorted(received) == list(range(150))
    for k in range(3):
        mine = [n for n in received if 50 * k <= n < 50 * (k + 1)]
        assert mine == sorted(mine)
    assert [c["id"] for c in await redis.client_list() if c["name"] == here.prefix] == kept
    await nothing_more(there, channel)


async def test_a_sender_without_a_loop_gets_the_error_when_redis_is_unreachable(project):
    layer = project(hosts=["redis://127.0.0.1:9/0"])  # nothing listens on port 9
    loop = asyncio.get_running_loop()
    with pytest.raises(RedisConnectionError):
        await loop.run_in_executor(
            None, lambda: layer.group_send_blocking("nowhere", {"type": "a"}, timeout=WAIT)
        )


# Two processes (two layers, each with its own subscriber and origin), as two daphnes


async def test_each_member_here_and_there_gets_each_event_once_in_the_order_sent(project, redis):
    """A table's sockets in the sender's process take its events straight from the
    sender, those in another process through Redis: each event once, in the order the
    sender made them, whether it awaited Redis (``group_send``) or not (``announce``)."""
    here, there = project(), project()
    local = [await here.new_channel() for _ in range(2)]
    remote = await there.new_channel()
    for channel in local:
        await here.group_add("table-7", channel)
    await there.group_add("table-7", remote)
    await subscribed(redis, f"{here.prefix}__group__table-7", 2)
    for n in range(40):
        if n % 3:
            here.announce("table-7", {"type": "move", "n": n})
        else:
            await here.group_send("table-7", {"type": "move", "n": n})
    for layer, channel in ((here, local[0]), (here, local[1]), (there, remote)):
        assert [(await receive(layer, channel))["n"] for _ in range(40)] == list(range(40))
        await nothing_more(layer, channel)  # the sender's own copy from Redis was skipped


async def test_events_of_another_process_keep_their_order_beside_the_local_ones(project, redis):
    """Two processes send to one group: every member, wherever it is, sees each sender's
    events in that sender's order, and every event once."""
    here, there = project(), project()
    mine, theirs = await here.new_channel(), await there.new_channel()
    await here.group_add("table-8", mine)
    await there.group_add("table-8", theirs)
    await subscribed(redis, f"{here.prefix}__group__table-8", 2)
    for n in range(30):
        here.announce("table-8", {"type": "move", "who": "here", "n": n})
        there.announce("table-8", {"type": "move", "who": "there", "n": n})
    for layer, channel in ((here, mine), (there, theirs)):
        got = [await receive(layer, channel) for _ in range(60)]
        for who in ("here", "there"):
            assert [m["n"] for m in got if m["who"] == who] == list(range(30))
        await nothing_more(layer, channel)


async def test_a_member_that_left_gets_nothing_from_this_process_or_another(project, redis):
    here, there = project(), project()
    gone, staying = await here.new_channel(), await here.new_channel()
    remote = await there.new_channel()
    for channel in (gone, staying):
        await here.group_add("table-9", channel)
    await there.group_add("table-9", remote)
    await subscribed(redis, f"{here.prefix}__group__table-9", 2)
    await here.group_discard("table-9", gone)
    await here.group_send("table-9", {"type": "move", "n": 1})
    await there.group_send("table-9", {"type": "move", "n": 2})
    for layer, channel in ((here, staying), (there, remote)):
        assert sorted([(await receive(layer, channel))["n"] for _ in range(2)]) == [1, 2]
    await nothing_more(here, gone)
    await nothing_more(here, staying)


async def test_a_receiver_cancelled_at_its_consumers_end_leaves_its_groups(project, redis):
    """Channels' consumer loop cancels its ``receive`` when the consumer ends: the
    channel leaves its groups here, and a group nobody here is in any more is
    unsubscribed, without a ``group_discard``."""
    here, there = project(), project()
    channel = await here.new_channel()
    await here.group_add("table-10", channel)
    name = f"{here.prefix}__group__table-10"
    await subscribed(redis, name)
    receiving = asyncio.ensure_future(here.receive(channel))
    await asyncio.sleep(0)
    receiving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await receiving
    await unsubscribed(redis, name)
    await there.group_send("table-10", {"type": "move"})  # to nobody: dropped
    await here.group_send("table-10", {"type": "move"})
    # The channel was forgotten: nothing kept for it (a ``receive`` now opens it anew).
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(here.receive(channel), 0.2)
