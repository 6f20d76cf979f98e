"""Benchmarks: commands that print figures (``make bench-*``) and assert nothing."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from deploy.database import ensure_database

ROOT = Path(__file__).resolve().parent.parent


def use_services(*, database: str, queue: str) -> None:
    """Point a benchmark at its own PostgreSQL database, Redis database 3 and Celery queue,
    unless the environment says otherwise. Call it before Django is set up."""
    os.environ.setdefault("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{database}")
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/3")
    os.environ.setdefault("CELERY_QUEUE", queue)
    os.environ.setdefault("CHANNELS_PREFIX", "pan-bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")
    os.environ.setdefault("HTTPS", "false")
    sys.path.insert(0, str(ROOT))


def start_django(*, fresh: bool = False) -> None:
    """Set Django up on the benchmark's database, created (``fresh``: anew) and migrated."""
    ensure_database(os.environ["DATABASE_URL"], fresh=fresh)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def production_site(name: str) -> None:
    """Production settings for the site a benchmark starts (``name``, e.g. "bench-load":
    its own key prefix, a throwaway secret key). Call it before Django is set up."""
    os.environ.setdefault("CHANNELS_PREFIX", f"pan-{name}")
    os.environ.setdefault("DEBUG", "false")
    os.environ.setdefault("SECRET_KEY", f"{name}-not-secret-" + "k" * 40)
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
