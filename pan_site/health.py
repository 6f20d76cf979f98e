"""Round trips to the services the site depends on, for /healthz."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any, TypedDict

from asgiref.sync import async_to_sync
from channels import DEFAULT_CHANNEL_LAYER
from channels.layers import channel_layers, get_channel_layer
from django.db import connection

from pan_site.celery import app

CHECK_TIMEOUT = 3.0


class CheckResult(TypedDict, total=False):
    ok: bool
    ms: float
    backend: str
    error: str


def check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        if cursor.fetchone() != (1,):
            raise RuntimeError("SELECT 1 returned something else")
    return connection.vendor


def check_channel_layer() -> str:
    """A message through the channel layer and back, on a layer of its own: the process's
    shared layer belongs to its websockets, whose receive loop a check must not join."""
    if get_channel_layer() is None:
        raise RuntimeError("no channel layer configured")
    layer = channel_layers.make_backend(DEFAULT_CHANNEL_LAYER)

    async def round_trip() -> None:
        try:
            channel = await layer.new_channel("healthz.")
            token = uuid.uuid4().hex
            message = await asyncio.wait_for(_until_received(layer, channel, token), CHECK_TIMEOUT)
            if message.get("token") != token:
                raise RuntimeError("the channel layer returned another message")
        finally:
            close = getattr(layer, "close_pools", None) or getattr(layer, "flush", None)
            if close is not None:
                await close()

    async_to_sync(round_trip)()
    return type(layer).__name__


async def _until_received(layer: Any, channel: str, token: str) -> dict:
    """Send until the message comes back: on Redis pub/sub a message published before the
    channel's subscription took effect is gone, not late."""
    receiving = asyncio.ensure_future(layer.receive(channel))
    try:
        while True:
            await layer.send(channel, {"type": "healthz", "token": token})
            done, _pending = await asyncio.wait({receiving}, timeout=0.25)
            if done:
                return receiving.result()
    finally:
        receiving.cancel()


def check_broker() -> str:
    token = uuid.uuid4().hex
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=CHECK_TIMEOUT)
        queue = conn.SimpleQueue(f"healthz.{token}", serializer="json")
        try:
            queue.put({"token": token})
            message = queue.get(timeout=CHECK_TIMEOUT)
            message.ack()
            if message.payload.get("token") != token:
                raise RuntimeError("the broker returned another message")
        finally:
            queue.queue.delete()
            queue.close()
        return conn.transport_cls if isinstance(conn.transport_cls, str) else "custom"


CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "channel_layer": check_channel_layer,
    "broker": check_broker,
}


def run_checks() -> dict[str, CheckResult]:
    """Run every check; each reports ok, its time in ms and the backend, or the error."""
    results: dict[str, CheckResult] = {}
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            backend = check()
        except Exception as exc:  # a health check reports failures, it does not raise them
            results[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        else:
            results[name] = {"ok": True, "backend": backend}
        results[name]["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return results
