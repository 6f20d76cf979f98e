"""PostgreSQL through PgBouncer in transaction mode (``DATABASE_POOLER=transaction``,
docs/deploy.md): the one move pipeline's tests pass through it, on both paths to the
database (the live room's own asyncio connections, live.adb, and Django's in threads),
with PgBouncer carrying their transactions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bench.processes import ROOT, base_env, free_port, running, wait_for_port

pytestmark = pytest.mark.pgbouncer

PGBOUNCER = "/usr/sbin/pgbouncer"
LIVE_TESTS = "tests/games/test_live_moves.py"


def pgbouncer_config(folder: Path, *, port: int, postgres: tuple[str, int], user: str) -> Path:
    host, pg_port = postgres
    (folder / "users.txt").write_text(f'"{user}" ""\n')
    ini = folder / "pgbouncer.ini"
    ini.write_text(
        "[databases]\n"
        f"* = host={host} port={pg_port}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {folder / 'users.txt'}\n"
        "pool_mode = transaction\ndefault_pool_size = 20\nmax_client_conn = 500\n"
        "server_idle_timeout = 2\n"
        # SHOW STATS counts what was carried up to its last period (60 s by default): a
        # run of the live tests shorter than that would read as none carried.
        "stats_period = 1\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
        f"admin_users = {user}\n"
    )
    return ini


def transactions_seen(port: int, user: str, database: str) -> int:
    """How many transactions PgBouncer carried to ``database`` (its admin console)."""
    psql = ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", user, "-At", "-F", "|"]
    out = subprocess.run(
        [*psql, "-c", "SHOW STATS", "pgbouncer"],
        capture_output=True,
        text=True,
        check=True,
        timeout=20,
    ).stdout
    for line in out.splitlines():
        fields = line.split("|")
        if fields[0] == database:
            return int(fields[1])  # total_xact_count
    return 0


def test_the_live_moves_pass_through_pgbouncer_in_transaction_mode():
    url = urlsplit(os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/pan")
    user = url.username or "postgres"
    # PgBouncer refuses to run as root; it drops to the PostgreSQL user, who must read
    # its files (pytest's own temporary folders are root's alone).
    folder = Path(tempfile.mkdtemp(prefix="pan-pgbouncer-"))
    try:
        folder.chmod(0o755)
        port = free_port()
        ini = pgbouncer_config(
            folder, port=port, postgres=(url.hostname or "127.0.0.1", url.port or 5432), user=user
        )
        args = [PGBOUNCER, *(["-u", "postgres"] if os.geteuid() == 0 else []), str(ini)]
        log = folder / "pgbouncer.log"
        with running(args, env=base_env(), log=log) as proc:
            wait_for_port(port, proc=proc, log=log)
            env = base_env(
                DATABASE_URL=f"postgres://{user}@127.0.0.1:{port}/pan_pgbouncer",
                DATABASE_POOLER="transaction",
                CELERY_QUEUE="pan-pgbouncer",
                CHANNELS_PREFIX="pan-pgbouncer",
                PAN_TEST_SHARD=None,  # its own test database, by the name read below
            )
            result = subprocess.run(
                [sys.executable, "-m", "pytest", LIVE_TESTS, "-q", "-p", "no:cacheprovider"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            carried = transactions_seen(port, user, "test_pan_pgbouncer")
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
        assert " passed" in result.stdout and " skipped" not in result.stdout
        assert carried > 100, f"PgBouncer carried only {carried} transactions"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
