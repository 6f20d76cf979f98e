"""The live room's connection pool under contention (`python -m bench.bench_pool`).

``--tasks`` asyncio tasks in one event loop each take a connection from
``live.adb.AsyncConnections`` ``--loans`` times and run one short statement on it in
pipeline mode, as a move does; printed: the wall time, this process's CPU per loan, the
errors and the pool's ``stats()`` where it has them. ``--check``: each connection
checked before it is lent (one round trip more), for a pool that takes ``check`` (the
psycopg_pool one measured in docs/performance-log.md, run from a worktree of its code).
Uses its own database (``pan_bench_pool``) unless DATABASE_URL says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter

from bench import start_django, use_services

use_services(database="pan_bench_pool", queue="pan-bench-pool")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--loans", type=int, default=50, help="per task")
    parser.add_argument("--check", action="store_true")
    options = parser.parse_args()
    start_django()
    from live.adb import AsyncConnections

    pool = AsyncConnections(check=True) if options.check else AsyncConnections()
    errors: Counter[str] = Counter()

    async def task() -> None:
        for _ in range(options.loans):
            try:
                async with pool.connection(pipeline=True) as conn, conn.cursor() as cursor:
                    await cursor.execute("SELECT pg_sleep(0.005)")
                    await cursor.fetchone()
            except Exception as exc:  # counted and printed
                errors[type(exc).__name__] += 1

    async def run() -> dict[str, int]:
        await asyncio.gather(*(task() for _ in range(options.tasks)))
        stats = pool.stats() if hasattr(pool, "stats") else {}
        pool.close_all()
        return stats

    wall, cpu = time.perf_counter(), time.process_time()
    stats = asyncio.run(run())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    loans = options.tasks * options.loans
    print(
        f"bench-pool: check={options.check} tasks={options.tasks} loans={loans}"
        f" wall={wall:.1f} s cpu/loan={cpu * 1000 / loans:.3f} ms errors={dict(errors)}"
    )
    print(f"pool: {stats}")


if __name__ == "__main__":
    main()
