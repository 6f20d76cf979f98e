"""What a move costs with an audience (`make bench-spectators`).

Opens ``--spectators`` websockets on one table of ``--seats`` (the real ASGI stack and
Redis channel layer, in this process), plays moves through the service and measures the
time from the move until every spectator has received it: with visitors who are not
signed in and with signed-in spectators (one render of each event serves all of a
kind), then with moderators, whose tools make each render their own, as every
spectator's was before. Prints the median per move, the characters a spectator reads
per move, and the ratio.
Uses its own database (``pan_bench``) unless DATABASE_URL says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from bench import start_django, use_services

use_services(database="pan_bench", queue="pan-bench-spectators")


async def watchers(path: str, cookies: list[bytes | None]) -> list[object]:
    """Open one websocket per cookie (None: a visitor), each from its own address."""
    from channels.testing import WebsocketCommunicator

    from pan_site.asgi import application

    sockets = []
    for i, cookie in enumerate(cookies):
        headers = [(b"origin", b"http://127.0.0.1:8000")]
        if cookie is not None:
            headers.append((b"cookie", cookie))
        socket = WebsocketCommunicator(application, path, headers=headers)
        socket.scope["client"] = (f"10.1.{i // 200}.{i % 200 + 1}", 40000 + i)
        connected, _ = await socket.connect(timeout=30)
        if not connected:
            raise SystemExit(f"spectator {i} was refused")
        sockets.append(socket)
    return sockets


async def until_version(socket: object, version: int) -> int:
    """Read frames until the one of ``version``; the characters read."""
    mark, read = f'data-version="{version}"', 0
    while True:
        frame = await socket.receive_from(timeout=60)
        read += len(frame)
        if mark in frame:
            return read


async def drain(socket: object) -> None:
    while not await socket.receive_nothing(timeout=0.05):
        await socket.receive_from()


def players(seats: int) -> list[object]:
    from accounts.models import User

    stamp = time.time_ns()
    return User.objects.bulk_create(
        User(username=f"play{stamp}_{i}", email=f"p{stamp}_{i}@example.com") for i in range(seats)
    )


async def audience(label: str, cookies: list[bytes | None], moves: int, seats: int) -> float:
    from channels.db import database_sync_to_async

    from games import services
    from games.engine import Rules, move_to_json
    from games.models import Hand

    owner, *guests = await database_sync_to_async(players)(seats)
    table = await database_sync_to_async(services.table_create)(
        owner=owner, name="bench", rules=Rules(), seats=seats, base_seconds=3600
    )
    for guest in guests:
        await database_sync_to_async(services.table_sit)(table_id=table.pk, user=guest)
    await database_sync_to_async(services.match_start)(table_id=table.pk, by=owner)
    sockets = await watchers(f"/ws/tables/{table.pk}/", cookies)
    await asyncio.gather(*(drain(s) for s in sockets))
    timings, characters = [], []
    for _ in range(moves):
        hand = await database_sync_to_async(Hand.objects.get)(match__table=table)
        if hand.is_over:
            break
        state = hand.engine_state
        seated = await database_sync_to_async(
            lambda h=hand: {p.seat: p.user for p in h.match.players.select_related("user")}
        )()
        move = move_to_json(state.legal_moves()[0])
        started = time.perf_counter()
        action = services.move_action(
            move, hand_id=hand.pk, version=hand.version, user=seated[state.to_move]
        )
        await database_sync_to_async(services.execute)(action)
        read = await asyncio.gather(*(until_version(s, hand.version + 1) for s in sockets))
        timings.append((time.perf_counter() - started) * 1000)
        characters.append(statistics.median(read))
    for socket in sockets:
        await socket.disconnect()
    median = statistics.median(timings)
    print(
        f"{label}: {len(cookies)} spectators at a table of {seats}, median {median:.1f} ms"
        f" a move ({len(timings)}), {statistics.median(characters) / 1000:.1f}k characters"
        " a spectator"
    )
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--moves", type=int, default=15)
    parser.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    options = parser.parse_args()

    start_django()
    from django.conf import settings
    from django.contrib.auth.models import Group
    from django.test import Client

    from accounts.models import User

    stamp = int(time.time() * 1000)
    moderators = Group.objects.get(name="Moderators")

    def signed_in(kind: str) -> list[bytes | None]:
        cookies: list[bytes | None] = []
        for user in User.objects.bulk_create(
            User(username=f"{kind}{stamp}_{i}", email=f"{kind}{stamp}_{i}@example.com")
            for i in range(options.spectators)
        ):
            if kind == "mod":
                user.groups.add(moderators)
            client = Client()
            client.force_login(user)
            session = client.cookies[settings.SESSION_COOKIE_NAME].value
            cookies.append(f"{settings.SESSION_COOKIE_NAME}={session}".encode())
        return cookies

    watchers, mods = signed_in("watch"), signed_in("mod")

    play = (options.moves, options.seats)

    async def run() -> None:
        visitors = await audience("visitors", [None] * options.spectators, *play)
        signed = await audience("signed-in spectators", watchers, *play)
        own = await audience("moderators (each his own render)", mods, *play)
        print(
            f"own renders / shared: {own / visitors:.1f}x (visitors), {own / signed:.1f}x"
            " (signed-in)"
        )

    asyncio.run(run())


if __name__ == "__main__":
    main()
