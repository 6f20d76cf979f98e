"""Which real services this test run can reach: PostgreSQL and Redis, and nginx to put in
front of the servers (tests/deploy).

Outside CI a missing service skips only the tests that need it, with a loud reason;
with CI=true it fails the run (DEVELOPERS.md: in CI a missing service is a failure).
"""

from __future__ import annotations

import functools
import os

import psycopg
import redis

DB_FIXTURES = {"db", "transactional_db", "django_db_setup", "live_server", "django_user_model"}


def running_in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@functools.cache
def postgres_problem() -> str | None:
    """None when the configured database is a reachable PostgreSQL, else why not."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        return "DATABASE_URL is not a PostgreSQL URL (make test sets one)"
    try:
        psycopg.connect(
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            dbname="postgres",
            connect_timeout=3,
        ).close()
    except psycopg.Error as exc:
        return f"PostgreSQL is not reachable at {db.get('HOST')}:{db.get('PORT')}: {exc}"
    return None


@functools.cache
def redis_problem() -> str | None:
    """None when REDIS_URL names a reachable Redis, else why not."""
    from django.conf import settings

    if not settings.REDIS_URL:
        return "REDIS_URL is not set (make test sets one)"
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_timeout=3).ping()
    except redis.RedisError as exc:
        return f"Redis is not reachable at {settings.REDIS_URL}: {exc}"
    return None


@functools.cache
def nginx_problem() -> str | None:
    """None when Debian's nginx is installed (tests/deploy runs it), else why not."""
    from deploy.nginx import NginxMissing, nginx_binary

    try:
        nginx_binary()
    except NginxMissing as missing:
        return str(missing)
    return None


def pgbouncer_problem() -> str | None:
    """None when Debian's PgBouncer and psql are installed (tests/deploy runs its own)."""
    import shutil
    from pathlib import Path

    if not Path("/usr/sbin/pgbouncer").exists():
        return "/usr/sbin/pgbouncer is missing (apt-get install pgbouncer)"
    if shutil.which("psql") is None:
        return "psql is missing"
    return None
