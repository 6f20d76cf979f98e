"""What one move costs on the server (`make bench-move`): queries and milliseconds.

Plays two-player hands through ``games.services.execute`` on PostgreSQL and, for each
move, also renders the table for one viewer the way a websocket consumer does after
the broadcast. Prints medians of the query counts and of the wall time of each part.
Uses its own database (``pan_bench``) unless DATABASE_URL says otherwise.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench import start_django, use_services

use_services(database="pan_bench", queue="pan-bench-move")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=400)
    options = parser.parse_args()

    start_django()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from accounts.models import User
    from games import renderers, selectors, services
    from games.engine import Rules, move_to_json
    from games.models import Hand, Table

    stamp = int(time.time() * 1000)
    act_queries, act_ms, render_queries, render_ms = [], [], [], []
    snap_queries, snap_ms, shared_ms, own_ms = [], [], [], []
    moves = 0
    game = 0
    while moves < options.moves:
        owner, guest = User.objects.bulk_create(
            User(username=f"move{stamp}_{game}_{i}", email=f"m{stamp}_{game}_{i}@example.com")
            for i in range(2)
        )
        game += 1
        table = services.table_create(
            owner=owner, name="bench", rules=Rules(), seats=2, base_seconds=3600
        )
        services.table_sit(table_id=table.pk, user=guest)
        services.match_start(table_id=table.pk, by=owner)
        hand = Hand.objects.get(match__table=table)
        users = {p.seat: p.user for p in hand.match.players.all()}
        while not hand.is_over and moves < options.moves:
            state = hand.engine_state
            move = move_to_json(state.legal_moves()[moves % len(state.legal_moves())])
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                services.execute(
                    services.move_action(
                        move, hand_id=hand.pk, version=hand.version, user=users[state.to_move]
                    )
                )
                act_ms.append((time.perf_counter() - started) * 1000)
            act_queries.append(len(queries))
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                view = selectors.table_view(table=Table.objects.get(pk=table.pk), viewer=users[0])
                renderers.table_fragments(view)
                render_ms.append((time.perf_counter() - started) * 1000)
            render_queries.append(len(queries))
            # The way the consumers fan a move out: one snapshot and one render of the
            # shared parts per process, then each player's own hand.
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                snapshot = selectors.table_snapshot(table_id=table.pk)
                snap_ms.append((time.perf_counter() - started) * 1000)
            snap_queries.append(len(queries))
            started = time.perf_counter()
            renderers.hand_fragments(selectors.table_view(snapshot=snapshot, viewer=None))
            shared_ms.append((time.perf_counter() - started) * 1000)
            for user in users.values():
                started = time.perf_counter()
                own = selectors.table_view(snapshot=snapshot, viewer=user, with_chat=False)
                renderers.my_hand_fragment(own)
                own_ms.append((time.perf_counter() - started) * 1000)
            hand.refresh_from_db()
            moves += 1
    print(f"moves measured: {moves} over {game} hands (PostgreSQL, 2 players)")
    print(
        f"hand_act (lock, checks, engine, save, log): median {statistics.median(act_queries):.0f}"
        f" queries, {statistics.median(act_ms):.2f} ms"
    )
    print(
        f"render for one viewer (selector + partials): median"
        f" {statistics.median(render_queries):.0f} queries, {statistics.median(render_ms):.2f} ms"
    )
    print(
        f"fan-out per process: snapshot median {statistics.median(snap_queries):.0f} queries,"
        f" {statistics.median(snap_ms):.2f} ms; shared hand parts"
        f" {statistics.median(shared_ms):.2f} ms; one player's own view and hand"
        f" {statistics.median(own_ms):.2f} ms"
    )


if __name__ == "__main__":
    main()
