"""What a group message costs a sender with no event loop (`python -m bench.bench_publish`).

A Celery worker's threads (bots' moves, hands' ends and deals), the clock ticker and beat
send their group messages from sync code, through ``core.broadcast.group_send``, which
hands them to the process's sending loop (``PubSubChannelLayer.group_send_blocking``).
From one such thread, after 20 to warm up, sends ``--messages`` messages that way and
as ``async_to_sync`` sends them (a thread, an event loop and a Redis connection for each
message, as the code did before the sending loop), alternating in rounds, and prints the
median wall and CPU time per message of each. Uses Redis database 3 and its own channel
prefix; nobody listens to the group (a PUBLISH to nobody costs Redis the same).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

from bench import use_services

use_services(database="pan_bench", queue="pan-bench-publish")
os.environ["CHANNELS_PREFIX"] = "pan-bench-publish"

GROUP = "bench-publish"


def timed(send: Callable[[], None], count: int) -> tuple[float, float]:
    """Milliseconds of wall and of this process's CPU per call of ``send``."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(count):
        send()
    return (
        1000 * (time.perf_counter() - wall) / count,
        1000 * (time.process_time() - cpu) / count,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200, help="per way and round")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()

    import django

    django.setup()
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from core import broadcast

    layer = get_channel_layer()
    event = {"type": "table.changed", "hand": 1, "version": 2, "id": "x" * 32}
    ways: dict[str, Callable[[], None]] = {
        "sending loop (core.broadcast.group_send)": lambda: broadcast.group_send(GROUP, event),
        "async_to_sync (a loop per message)": lambda: async_to_sync(layer.group_send)(GROUP, event),
    }
    for send in ways.values():
        timed(send, 20)
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for _ in range(options.rounds):
        for name, send in ways.items():
            figures[name].append(timed(send, options.messages))
    print(
        f"bench-publish: {options.rounds} rounds of {options.messages} messages per way, "
        f"one thread with no event loop, layer {type(layer).__name__}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for name, runs in figures.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"{name}: median {wall:.2f} ms wall, {cpu:.2f} ms CPU per message")


if __name__ == "__main__":
    main()
