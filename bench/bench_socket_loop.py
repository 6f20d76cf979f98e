"""The consumer loop's own cost: CPU per group message delivered to a socket.

``--sockets`` sockets of one table in this process join a group; the loop announces
``--messages`` group messages (as a move's event is), each taken by every socket's
consumer, whose handler sends one small frame. Prints the process's CPU time per
message per socket. Needs Redis (the project's channel layer), no database.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bench import use_services

use_services(database="pan_bench", queue="pan-bench-loop")


async def run(sockets: int, messages: int) -> float:
    from channels.layers import get_channel_layer

    from live.sockets import LiveSocket

    layer = get_channel_layer()
    done = asyncio.Event()
    counted = [0]
    total = sockets * messages

    class Probe(LiveSocket):
        async def connect(self) -> None:
            await self.channel_layer.group_add("loop-bench", self.channel_name)
            await self.accept()

        async def bench_event(self, event: dict) -> None:
            await self.send(text_data="x")
            counted[0] += 1
            if counted[0] >= total:
                done.set()

    async def sent(message: dict) -> None:
        pass

    inputs = []
    tasks = []
    app = Probe.as_asgi()
    for _ in range(sockets):
        frames: asyncio.Queue = asyncio.Queue()
        frames.put_nowait({"type": "websocket.connect"})
        inputs.append(frames)
        scope = {"type": "websocket", "path": "/", "headers": [], "url_route": {"kwargs": {}}}
        tasks.append(asyncio.ensure_future(app(scope, frames.get, sent)))
    await asyncio.sleep(1)
    start = time.process_time()
    for n in range(messages):
        layer.announce("loop-bench", {"type": "bench.event", "n": n})
        if n % 50 == 49:
            await asyncio.sleep(0)
    await asyncio.wait_for(done.wait(), 60)
    spent = time.process_time() - start
    for frames in inputs:
        frames.put_nowait({"type": "websocket.disconnect", "code": 1000})
    await asyncio.wait(tasks, timeout=10)
    return spent / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=4)
    parser.add_argument("--messages", type=int, default=5000)
    options = parser.parse_args()
    import django

    django.setup()
    per = asyncio.run(run(options.sockets, options.messages))
    print(f"socket-loop: {per * 1e6:.1f} us of CPU per message per socket")


if __name__ == "__main__":
    main()
