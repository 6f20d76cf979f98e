"""How many notice e-mails one worker sends an hour (`make bench-mail`).

Makes ``--users`` players, each with ``--games`` correspondence games waiting for his
move (the notices raised through ``games.signals.correspondence_turn``, as a turn raises
them), then runs the e-mail task's body (``notifications.tasks.notifications_mail``, one
call per player, as one worker process with one thread runs them) against a real SMTP
server on localhost (``bench.smtp_sink``: aiosmtpd, which keeps the messages in memory):
each e-mail gathers the player's games, is rendered in his language, signed, and sent
over its own SMTP connection, and its notices are written as mailed. Prints the e-mails
an hour and the milliseconds and queries per e-mail. Database pan_bench_mail (fresh).
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import timedelta

from bench import start_django, use_services

use_services(database="pan_bench_mail", queue="pan-bench-mail")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=300)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    start_django(fresh=True)

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from accounts.models import User
    from bench.smtp_sink import SmtpSink
    from games import services
    from games.engine import Rules
    from games.signals import correspondence_turn
    from notifications import tasks

    tables = [
        services.table_create(
            owner=User.objects.create(username=f"bench_owner_{n}"), name=f"Game {n}", rules=Rules()
        )
        for n in range(args.games)
    ]
    users = []
    deadline = timezone.now() + timedelta(days=3)
    for n in range(args.users):
        user = User.objects.create(
            username=f"bench_mail_{n}", email=f"p{n}@example.com", language="pl" if n % 2 else "en"
        )
        users.append(user)
        for hand_id, table in enumerate(tables, 1):
            correspondence_turn.send(
                sender=None, table_id=table.pk, hand_id=hand_id, user_id=user.pk, deadline=deadline
            )

    with SmtpSink() as sink, sink.settings():
        took, queries = [], []
        started = time.perf_counter()
        for user in users:
            with CaptureQueriesContext(connection) as captured:
                t0 = time.perf_counter()
                tasks.notifications_mail.run(user.pk)
                took.append(1000 * (time.perf_counter() - t0))
            queries.append(len(captured))
        wall = time.perf_counter() - started
    assert len(sink.messages) == len(users), (len(sink.messages), len(users))
    print(
        f"{len(users)} e-mails of {args.games} games each in {wall:.2f} s: "
        f"{3600 * len(users) / wall:,.0f} e-mails an hour from one worker thread; "
        f"per e-mail median {statistics.median(took):.1f} ms, "
        f"p95 {sorted(took)[int(0.95 * len(took)) - 1]:.1f} ms, "
        f"{statistics.median(queries):.0f} queries"
    )


if __name__ == "__main__":
    main()
