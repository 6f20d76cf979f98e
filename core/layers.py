"""The channel layer: channels_redis's pub/sub layer, each message decoded once.

The pub/sub layer hands a group's message to every socket of the group in the process
as the same bytes, and each socket's ``receive`` decoded them again: a move's event
(the hand's whole state, a few kilobytes of msgpack for a long hand) was decoded four
times at a table of four, and more with spectators. Here the sockets of a process
that take the same message share one decoding; each gets its own top-level dict
(the values inside are shared: a handler reads an event, never edits it).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer

RECENT = 64  # messages whose decoding is kept: every socket takes one within moments


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """``RedisPubSubChannelLayer`` decoding the same message once for all its sockets."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # id of the bytes -> (the bytes, kept so that the id is not reused; decoded)
        self._decoded: OrderedDict[int, tuple[bytes, dict[str, Any]]] = OrderedDict()
        self.decodings = 0

    def deserialize(self, message: bytes) -> dict[str, Any]:
        known = self._decoded.get(id(message))
        if known is not None and known[0] is message:
            return dict(known[1])
        data = super().deserialize(message)
        self.decodings += 1
        self._decoded[id(message)] = (message, data)
        while len(self._decoded) > RECENT:
            self._decoded.popitem(last=False)
        return dict(data)
