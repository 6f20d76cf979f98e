"""Group events that leave after a commit (Zulip's ``send_event_on_commit``).

Called inside a service's transaction; nothing is sent until the transaction commits,
so a rolled-back change is never seen. A failed send is logged, never raised: it must
not undo what was committed.

The layer is Channels' (``get_channel_layer``); the project's own (``live.layer``), which
stands above core, is known by what it offers besides (``group_send_blocking``,
``announce``), not by its class.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

logger = logging.getLogger(__name__)


# Set in the tasks of the server's event loop (each socket's, each request's): the sync
# code they run in threads (sync_to_async copies the context) sends through that loop.
_SERVED: ContextVar[bool] = ContextVar("served", default=False)


def served_here() -> None:
    """Mark the running task as the server's (a socket's or a request's): a send from the
    sync code it runs in threads goes through its loop, where the loop's own sockets of
    the group have it at once, in order with what the loop itself sends."""
    _SERVED.set(True)


def user_group(user_id: int) -> str:
    """Every open socket (table, lobby or tournament) of one signed-in user."""
    return f"user-{user_id}"


def send_on_commit(group: str, event: dict) -> None:
    """Send ``event`` to ``group`` once the current transaction commits (now, outside one)."""
    transaction.on_commit(lambda: group_send(group, event))


def user_event_on_commit(user_id: int, event: dict) -> None:
    """Send ``event`` to every open socket of a user once the transaction commits."""
    send_on_commit(user_group(user_id), event)


def _offers(layer: object, method: str) -> bool:
    """Whether the layer's class has ``method``: asked of the class, because a layer that
    keeps its state per event loop (channels_redis's pub/sub layer) raises on any
    attribute asked of it from a thread without one."""
    return callable(getattr(type(layer), method, None))


def group_send(group: str, event: dict) -> None:
    """Send now, from sync code (a service after its commit, a worker, a test)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        if _offers(layer, "group_send_blocking") and not _SERVED.get():
            # No server's loop behind this thread (a Celery worker's, the clock ticker's, a
            # command's, a test's): the process's sending loop and its one connection.
            layer.group_send_blocking(group, event)
        elif _loop_runs_here():
            # A sync caller inside a running loop (a test driving a browser): asgiref
            # refuses to block that loop's thread, so the send gets a thread of its own.
            with ThreadPoolExecutor(max_workers=1) as pool:
                pool.submit(async_to_sync(layer.group_send), group, event).result()
        else:
            async_to_sync(layer.group_send)(group, event)
    except Exception:  # a broadcast failure must not undo a committed change
        logger.exception("group_send to %s failed", group)


_SENDING: set[asyncio.Future] = set()  # sends from the loop nobody awaits, kept alive


def publish_from_loop(group: str, event: dict) -> None:
    """Send ``event`` to ``group`` from the event loop without waiting for it (the caller
    has committed what it announces). The project's layer publishes it in the order of
    the calls (``live.layer.PubSubChannelLayer.announce``); another layer gets a task of
    its own."""
    layer = get_channel_layer()
    if layer is None:
        return
    if _offers(layer, "announce"):
        layer.announce(group, event)
        return
    sending = asyncio.ensure_future(layer.group_send(group, event))
    _SENDING.add(sending)
    sending.add_done_callback(_sent)


def _sent(sending: asyncio.Future) -> None:
    _SENDING.discard(sending)
    if not sending.cancelled() and sending.exception() is not None:
        logger.error("group_send failed", exc_info=sending.exception())


def _loop_runs_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
