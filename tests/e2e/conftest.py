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
    """The browser tests' own test database (``test_<name>_e2e``, and ``…_e2e<k>`` for
    part k of ``PAN_E2E_PART``): `make test` runs them beside the rest of the suite,
    which uses ``test_<name>``."""
    from django.conf import settings

    part = _part()
    suffix = f"_e2e{part[0]}" if part else "_e2e"
    for db in settings.DATABASES.values():
        if db["ENGINE"] == "django.db.backends.sqlite3":
            continue
        test = db.setdefault("TEST", {})
        test["NAME"] = f"{test.get('NAME') or 'test_' + db['NAME']}{suffix}"


def _part() -> tuple[int, int] | None:
    """``PAN_E2E_PART=k/n``: this process runs the k-th of n parts of the browser tests
    (`make test` runs two side by side, each with its own site, database, queue and key
    prefix: a browser test mostly waits, and one process left a core idle once the rest
    of the suite was done)."""
    value = os.environ.get("PAN_E2E_PART", "")
    if not value:
        return None
    k, n = (int(x) for x in value.split("/"))
    if not 1 <= k <= n:
        raise pytest.UsageError(f"PAN_E2E_PART={value}: k must be between 1 and n")
    return k, n


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``PAN_E2E_PART=k/n`` keep the tests of every n-th file, from the k-th on (by
    file name: the same split on every machine)."""
    part = _part()
    if part is None:
        return
    k, n = part
    files = sorted({item.path for item in items})
    mine = {path for index, path in enumerate(files) if index % n == k - 1}
    kept = [item for item in items if item.path in mine]
    config.hook.pytest_deselected(items=[item for item in items if item.path not in mine])
    items[:] = kept


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
        # It starts with this process's own, which the teardown forgets the cache under.
        CHANNELS_PREFIX=f"{os.environ.get('CHANNELS_PREFIX', 'pan-e2e')}-{uuid.uuid4().hex[:8]}",
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
            _forget_what_the_site_cached()
            return
        except CommandError:
            if attempt == 5:
                raise


def _forget_what_the_site_cached() -> None:
    """flush resets the sequences, so the next test's users and tables have this one's
    ids: whatever the site keeps in its cache under an id (a socket budget, the count of
    games waiting for a player's move, whether he is online, a table's presence) starts
    afresh with them, as a new account's would; and so do allauth's limits on logins
    from one address, which the whole run's browsers share (30 a minute). Only the
    beat's heartbeat stays. The site's key prefix is this process's followed by the
    run's own (conftest ``site``); Django's cache keys are ``<prefix>:<version>:<key>``,
    the channel layer's names have no version."""
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
            for key in client.scan_iter(match=f"{prefix}*:1:*", count=1000)
            if b":1:heartbeat:" not in key
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
