"""A real Celery worker whose bots answer at once.

The human-like pause before a bot acts (``games.events.BOT_DELAY``) is for people
watching; a test of a whole tournament between bots has nobody watching. Everything
else is the production worker: ``python tests/tournaments/fast_worker.py worker ...``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")

import django

django.setup()

from games import events  # noqa: E402
from pan_site.celery import app  # noqa: E402

events.BOT_DELAY = (0.0, 0.0)
app.worker_main(sys.argv[1:])
