"""The per-token limits of the API, counted in the site's cache (Redis on real services,
so every daphne process shares them):

- one request at a time per token (``request_slot``): a program waits for an answer
  before it asks again, as lichess asks of its API's users. The streams do not count:
  a bot holds its streams open while it posts its moves;
- the event stream opened at most ``STREAM_OPENS`` times per ``STREAM_WINDOW`` per token
  (``stream_open_refused``): a client that reconnects in a loop is slowed down, not the
  site.

A refusal says when to ask again (``Retry-After``)."""

from __future__ import annotations

import math
import time

from django.core.cache import cache

# A request's slot is freed when it ends; this bounds how long a crashed process holds it.
SLOT_SECONDS = 60
BUSY_RETRY_AFTER = 1  # seconds: the request in flight is a short one
STREAM_OPENS, STREAM_WINDOW = 30, 10 * 60


def _slot_key(token_id: int) -> str:
    return f"api:busy:{token_id}"


def request_slot_take(token_id: int) -> bool:
    """Take the token's one request slot; False if a request of it is in flight."""
    return cache.add(_slot_key(token_id), 1, timeout=SLOT_SECONDS)


def request_slot_free(token_id: int) -> None:
    cache.delete(_slot_key(token_id))


def request_in_flight(token_id: int) -> bool:
    """Whether a request of the token holds its slot now."""
    return cache.get(_slot_key(token_id)) is not None


def stream_open_refused(token_id: int, *, now: float | None = None) -> int | None:
    """Count an opening of the token's event stream: None while it is within the limit,
    else the seconds until the window that counts it ends. The window starts at the
    first opening the counter holds and lasts ``STREAM_WINDOW``."""
    now = time.time() if now is None else now
    count_key, since_key = f"api:opens:{token_id}", f"api:opens-since:{token_id}"
    cache.add(since_key, now, timeout=STREAM_WINDOW)
    cache.add(count_key, 0, timeout=STREAM_WINDOW)
    try:
        count = cache.incr(count_key)
    except ValueError:  # the window ended between the two calls: this opening starts one
        cache.set(since_key, now, timeout=STREAM_WINDOW)
        cache.set(count_key, 1, timeout=STREAM_WINDOW)
        return None
    if count <= STREAM_OPENS:
        return None
    since = cache.get(since_key, now)
    return max(1, math.ceil(since + STREAM_WINDOW - now))
