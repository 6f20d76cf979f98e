"""Browser tests: Playwright drives Debian's Chromium against a real daphne server.

The server runs as a separate process on the pytest-django test database, with the
real Redis channel layer and a real Celery worker, exactly as in production.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from channels.layers import channel_layers
from playwright.sync_api import Browser, Page, sync_playwright

from bench.processes import (
    ROOT,
    base_env,
    celery_worker_args,
    database_url_for_processes,
    free_port,
    running,
    wait_for_log,
    wait_for_port,
)
from notifications.push import generate_private_key_pem
from tests.e2e.pages import new_page

# Playwright's sync API keeps an event loop in the main thread; Django would then refuse
# the ORM calls the tests make between browser steps (the documented Playwright setting).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass(frozen=True)
class Site:
    url: str
    var_dir: Path
    env: dict[str, str]

    def mail_texts(self) -> list[str]:
        """Every message the site has sent, oldest first (the development mail files)."""
        mail_dir = self.var_dir / "mail"
        files = (
            sorted(mail_dir.glob("*"), key=lambda p: p.stat().st_mtime) if mail_dir.exists() else []
        )
        return [f.read_text(errors="replace") for f in files]


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """The browser tests' own test database (``test_<name>_e2e``): `make test` runs them
    beside the rest of the suite, which uses ``test_<name>``."""
    from django.conf import settings

    for db in settings.DATABASES.values():
        if db["ENGINE"] == "django.db.backends.sqlite3":
            continue
        test = db.setdefault("TEST", {})
        test["NAME"] = f"{test.get('NAME') or 'test_' + db['NAME']}_e2e"


@pytest.fixture(scope="session")
def site(django_db_setup, tmp_path_factory) -> Iterator[Site]:
    """daphne (HTTP + websockets) and a Celery worker on the test database."""

    var_dir = tmp_path_factory.mktemp("site")
    port = free_port()
    env = base_env(
        DATABASE_URL=database_url_for_processes(),
        PAN_VAR_DIR=str(var_dir),
        DEBUG="false",
        HTTPS="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        # A fresh Redis key prefix: rate-limit counters of earlier runs must not leak in.
        CHANNELS_PREFIX=f"pan-e2e-{uuid.uuid4().hex[:8]}",
        # "Play now" may offer bots after a second: a test fills a table with bots.
        PAIRING_WAITS="1,10,30,60,120",
        # A VAPID key: the notification settings offer pushes (tests/e2e/test_app_e2e.py).
        VAPID_PRIVATE_KEY=generate_private_key_pem(),
    )
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    server_log, worker_log = var_dir / "server.log", var_dir / "worker.log"
    serve = [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with (
        running(serve, env=env, log=server_log) as server,
        running(celery_worker_args(), env=env, log=worker_log) as worker,
    ):
        wait_for_port(port, proc=server, log=server_log)
        wait_for_log(worker_log, "ready.", proc=worker)
        yield Site(url=f"http://127.0.0.1:{port}", var_dir=var_dir, env=env)


@pytest.fixture(scope="session")
def second_server(site: Site) -> Iterator[str]:
    """Another daphne process sharing the site's database and Redis: a second machine."""
    port = free_port()
    log = site.var_dir / "server-2.log"
    serve = [sys.executable, "manage.py", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with running(serve, env=site.env, log=log) as server:
        wait_for_port(port, proc=server, log=log)
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def site_channel_layer(site, settings) -> Iterator[None]:
    """The services a test runs broadcast on the site's channel layer and use its cache
    (their Redis key prefix is the site's own), so the pages the site serves hear them,
    the values the site keeps for its pages (a user's bell) are forgotten when a
    service changes them, and the test reads what the site writes there (who has a
    page open)."""
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"].setdefault("CONFIG", {})["prefix"] = site.env["CHANNELS_PREFIX"]
    settings.CHANNEL_LAYERS = layers
    caches = copy.deepcopy(settings.CACHES)
    caches["default"]["KEY_PREFIX"] = site.env["CHANNELS_PREFIX"]
    settings.CACHES = caches
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser context (its own cookies) in English, at a phone's width."""
    context, page = new_page(browser)
    yield page
    context.close()


@pytest.fixture(autouse=True)
def _empty_the_database_once_the_site_is_quiet(transactional_db) -> Iterator[None]:
    """The site's server and worker outlive each test, and may still be at work when it
    ends (a bot's move, a clock running out at a table the browsers left). pytest-django
    then empties the database with one TRUNCATE, which can deadlock with such a task's
    transaction. So, before it, wait until the other sessions on the database are idle
    and empty it here, trying again if PostgreSQL picked the TRUNCATE as the victim.
    (Requesting ``transactional_db`` makes this teardown run before pytest-django's.)"""
    from django.core.management import call_command
    from django.core.management.base import CommandError

    yield
    for attempt in range(1, 6):
        _wait_until_other_sessions_are_idle(seconds=5.0)
        try:
            call_command("flush", interactive=False, verbosity=0, inhibit_post_migrate=True)
            _forget_socket_budgets()
            return
        except CommandError:
            if attempt == 5:
                raise


def _forget_socket_budgets() -> None:
    """flush resets the sequences, so the next test's users have this one's ids: their
    sockets-per-minute budgets (live.budgets, in the cache) start afresh with them,
    as a new account's would; and so do allauth's limits on logins from one address,
    which the whole run's browsers share (30 a minute). The site's key prefix is this
    process's followed by the run's own (conftest ``site``)."""
    import redis
    from django.conf import settings

    cache = settings.CACHES["default"]
    if "redis" not in cache["BACKEND"].lower():
        return
    client = redis.Redis.from_url(cache["LOCATION"])
    try:
        prefix = cache.get("KEY_PREFIX", "")
        keys = [
            key
            for pattern in (f"{prefix}*:*:ws-connects:*", f"{prefix}*:*:allauth:rl:*")
            for key in client.scan_iter(match=pattern)
        ]
        if keys:
            client.delete(*keys)
    finally:
        client.close()


def _wait_until_other_sessions_are_idle(*, seconds: float) -> None:
    """Poll until no other session on this database is running a statement or holding a
    transaction open three polls in a row (at most ``seconds``)."""
    from django.db import connection

    quiet, deadline = 0, time.monotonic() + seconds
    while quiet < 3 and time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
            )
            busy = cursor.fetchone()[0]
        quiet = 0 if busy else quiet + 1
        time.sleep(0.05)
