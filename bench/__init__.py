"""Benchmarks: commands that print figures (``make bench-*``) and assert nothing."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
