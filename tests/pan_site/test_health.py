"""/healthz makes a real round trip to the database, the channel layer and the broker, and
shows the details (backends, errors) only to the staff and to the machine itself."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from django.test import Client, override_settings

from bench.processes import ROOT, base_env, database_url_for_processes, free_port
from tests.factories import client_for, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.redis]


def test_healthz_is_green_on_postgres_and_redis(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True
    assert body["checks"]["database"]["backend"] == "postgresql"
    assert body["checks"]["channel_layer"]["backend"] == "PubSubChannelLayer"
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


def test_a_visitor_from_outside_sees_only_what_is_ok():
    """Backends and errors name internal hosts: a visitor sees each check's ok, no more."""
    response = Client(REMOTE_ADDR="203.0.113.5").get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "checks": {"database": {"ok": True}, "channel_layer": {"ok": True}, "broker": {"ok": True}},
    }


def test_a_local_peer_forwarding_for_someone_else_is_not_local():
    """A proxy on this machine, left out of TRUSTED_PROXIES, must not pass on the details."""
    body = Client(REMOTE_ADDR="127.0.0.1").get("/healthz", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert "backend" not in body.json()["checks"]["database"]


@override_settings(TRUSTED_PROXIES=["10.0.0.7"])
def test_behind_the_proxy_only_the_staff_and_the_machine_itself_see_details():
    def details(client: Client, **headers: str) -> bool:
        return "backend" in client.get("/healthz", **headers).json()["checks"]["database"]

    outside = {"HTTP_X_FORWARDED_FOR": "203.0.113.5"}
    assert not details(Client(REMOTE_ADDR="10.0.0.7"), **outside)
    assert not details(client_for(make_user()), REMOTE_ADDR="10.0.0.7", **outside)
    assert details(client_for(make_user(is_staff=True)), REMOTE_ADDR="10.0.0.7", **outside)
    assert details(Client(REMOTE_ADDR="10.0.0.7"), HTTP_X_FORWARDED_FOR="127.0.0.1")
    assert details(Client(REMOTE_ADDR="::1"))


@override_settings(SECURE_SSL_REDIRECT=True)
def test_the_health_check_answers_plain_http_while_pages_redirect_to_https():
    client = Client(REMOTE_ADDR="203.0.113.5")
    assert client.get("/healthz").status_code == 200
    home = client.get("/rules/")
    assert home.status_code == 301 and home["Location"].startswith("https://")
