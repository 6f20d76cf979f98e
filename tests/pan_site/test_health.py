"""/healthz makes a real round trip to the database, the channel layer and the broker."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.processes import ROOT, base_env, database_url_for_processes, free_port

pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def test_healthz_is_green_on_postgres_and_redis(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True
    assert body["checks"]["database"]["backend"] == "postgresql"
    assert body["checks"]["channel_layer"]["backend"] == "RedisChannelLayer"
    assert body["checks"]["broker"]["backend"] == "redis"


def test_healthz_reports_an_unreachable_redis_as_503():
    """With Redis pointed at a closed port, the layer and broker checks fail, the DB stays ok."""
    script = (
        "import django, json; django.setup();"
        "from django.test import Client;"
        "r = Client(HTTP_HOST='127.0.0.1').get('/healthz');"
        "print(json.dumps({'status': r.status_code, 'body': r.json()}))"
    )
    env = base_env(
        DATABASE_URL=database_url_for_processes(),
        REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
        DJANGO_SETTINGS_MODULE="pan_site.settings",
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, timeout=60
    )
    result = json.loads(out.stdout.decode().strip().splitlines()[-1])
    assert result["status"] == 503
    checks = result["body"]["checks"]
    assert checks["database"]["ok"] is True
    assert checks["channel_layer"]["ok"] is False
    assert checks["broker"]["ok"] is False
