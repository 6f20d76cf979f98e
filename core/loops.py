"""What an event loop holds of its own (connections that belong to it), closed with it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable


def until_loop_shutdown(close: Callable[[], Awaitable[None]]) -> AsyncGenerator[None, None]:
    """An async generator, started in the running loop, that awaits ``close()`` when the
    loop shuts down (``loop.shutdown_asyncgens()``: ``asyncio.run`` and daphne's server
    call it) or when it is closed (``aclose()``). The loop keeps only a weak reference:
    the caller keeps the generator as long as what it closes."""

    async def lifetime() -> AsyncGenerator[None, None]:
        try:
            yield
        finally:
            await close()

    generator = lifetime()
    # Run it to its ``yield`` now: the loop registers it (to close at shutdown) on its
    # first step, which completes without awaiting anything.
    with contextlib.suppress(StopIteration):
        generator.asend(None).send(None)
    return generator
