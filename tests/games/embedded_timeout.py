"""Run in a subprocess with no REDIS_URL: the embedded worker applies a clock timeout,
and the embedded analysis worker (its own queue) analyses the hand.

Prints one JSON line: whether the site is embedded, the hand's outcome, how late the
timeout came and the status of the analysis. Used by tests/games/test_clocks.py.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pan_site.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from games import services  # noqa: E402
from games.engine import Rules  # noqa: E402
from games.models import Hand, HandAnalysis  # noqa: E402
from pan_site.embedded import start_embedded_worker  # noqa: E402
from tests.factories import make_user  # noqa: E402

call_command("migrate", verbosity=0)
start_embedded_worker()
owner, guest = make_user(), make_user()
table = services.table_create(owner=owner, name="t", rules=Rules(), seats=2, base_seconds=5)
services.table_sit(table_id=table.pk, user=guest)
services.match_start(table_id=table.pk, by=owner)
hand = Hand.objects.get(match__table=table)
deadline = hand.deadline
give_up = time.monotonic() + 30
while time.monotonic() < give_up:
    hand.refresh_from_db()
    if hand.outcome:
        break
    time.sleep(0.1)
analysis = services.analysis_request(hand_id=hand.pk, user=owner) if hand.outcome else None
while analysis is not None and time.monotonic() < give_up:
    analysis = HandAnalysis.objects.get(pk=analysis.pk)
    if analysis.status not in ("queued", "running"):
        break
    time.sleep(0.1)
print(
    json.dumps(
        {
            "embedded": settings.EMBEDDED,
            "outcome": hand.outcome,
            "late_s": (hand.finished_at - deadline).total_seconds() if hand.finished_at else None,
            "analysis": analysis.status if analysis else None,
        }
    )
)
