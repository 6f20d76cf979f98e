"""The PostgreSQL database a deployment (``run_prod``) or a benchmark runs on."""

from __future__ import annotations


def ensure_database(url: str, *, fresh: bool = False) -> None:
    """Create the database ``url`` names if missing (``fresh``: drop it first, so that
    nothing left over from an earlier run, e.g. a benchmark's matches still dealing
    hands, loads the new one)."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
