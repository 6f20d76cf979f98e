"""How many pushes one worker thread sends, and the CPU of each (`make bench-push`).

Makes ``--users`` players, each subscribed in one browser (``bench.push_service.Subscriber``:
a key pair and auth secret of its own) and each with ``--pushes / --users`` correspondence
games waiting for his move, one pending push each; then runs the push task's body
(``notifications.tasks.notifications_push``, one call per notice, in this one thread, as a
worker thread runs them) against a local push service (``bench.push_service``) in a
process of its own, so that its work is not counted: each push is judged (the notice
locked, the player's presence read from Redis, the rate per game), its text drawn in the
player's language, encrypted to his browser's keys (aes128gcm, a new ECDH key each),
signed (a VAPID JWT), posted over a kept HTTP connection, and written as sent. Prints the
pushes per second, the CPU per push (this process: the sending thread and Django), the
share of it that is encryption and signing, and the queries per push. Database
pan_bench_push (fresh), Redis database 3.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import time

from bench import start_django, use_services

use_services(database="pan_bench_push", queue="pan-bench-push")


def _serve(port: int) -> None:
    from bench.push_service import PushService

    PushService(port=port, keep=False).serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pushes", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=1_000)
    args = parser.parse_args()
    per_player = max(1, args.pushes // args.users)

    from notifications.push import generate_private_key_pem

    os.environ.setdefault("VAPID_PRIVATE_KEY", generate_private_key_pem())
    start_django(fresh=True)

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone
    from pywebpush import WebPusher

    from accounts.models import User
    from bench.push_service import Subscriber
    from bench.smtp_sink import free_port
    from games import services as games
    from games.engine import Rules
    from notifications import push, tasks
    from notifications.models import Kind, Notification, PushSubscription

    port = free_port()
    service = multiprocessing.get_context("fork").Process(target=_serve, args=(port,), daemon=True)
    service.start()
    tables = [  # an owner each: one may create only a few tables in a few minutes
        games.table_create(
            owner=User.objects.create(username=f"bench_push_owner_{n}"),
            name=f"Game {n}",
            rules=Rules(),
        )
        for n in range(per_player)
    ]
    users = User.objects.bulk_create(
        User(username=f"bench_push_{n}", language="pl" if n % 2 else "en")
        for n in range(args.users)
    )
    PushSubscription.objects.bulk_create(
        PushSubscription(
            user=user,
            endpoint=(browser := Subscriber(f"http://127.0.0.1:{port}/push/{user.pk}")).endpoint,
            p256dh=browser.p256dh,
            auth=browser.auth,
            device="bench",
            created_at=timezone.now(),
        )
        for user in users
    )
    now = timezone.now()
    notices = Notification.objects.bulk_create(
        Notification(
            owner=user,
            kind=Kind.YOUR_TURN,
            key=f"turn:{table.pk}:{user.pk}",
            params={"table_name": table.name, "owner": table.owner.username},
            link=table.get_absolute_url(),
            subject=f"table:{table.pk}",
            created_at=now,
            push=Notification.Push.PENDING,
        )
        for table in tables
        for user in users
    )
    ids = [n.pk for n in notices]

    # The part of a push that is cryptography alone: the payload's encryption (an ECDH
    # key pair, ECDH, HKDF, AES-GCM) and the JWT's ES256 signature.
    sample = Subscriber("http://127.0.0.1/push/sample")
    pusher = WebPusher(
        {"endpoint": sample.endpoint, "keys": {"p256dh": sample.p256dh, "auth": sample.auth}}
    )
    claims = {"sub": "mailto:bench@localhost", "aud": "http://127.0.0.1", "exp": 2**31}
    t0 = time.process_time()
    for _ in range(500):
        pusher.encode(b'{"title":"Pan online","body":"Your move at the table Game 1."}')
        push.vapid().sign(claims)
    crypto_ms = 1000 * (time.process_time() - t0) / 500

    delivered = 0
    with CaptureQueriesContext(connection) as captured:
        delivered += tasks.notifications_push.run(ids[0])
    queries = len(captured)
    took = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for notification_id in ids[1:]:
        t0 = time.perf_counter()
        delivered += tasks.notifications_push.run(notification_id)
        took.append(1000 * (time.perf_counter() - t0))
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    service.terminate()
    sent = Notification.objects.filter(push=Notification.Push.SENT).count()
    assert delivered == sent == len(ids), (delivered, sent, len(ids))
    n = len(ids) - 1
    print(
        f"{len(ids):,} pushes ({args.users:,} players × {per_player} games), "
        "one worker thread: "
        f"{n / wall:,.0f} pushes/s; per push {1000 * cpu / n:.2f} ms of CPU "
        f"(of which encryption and signing {crypto_ms:.2f} ms), "
        f"wall median {statistics.median(took):.2f} ms, "
        f"p95 {sorted(took)[int(0.95 * len(took)) - 1]:.2f} ms, {queries} queries"
    )


if __name__ == "__main__":
    main()
