"""Test-wide setup: real services checked once, HTTPS redirects off for the test client."""

from __future__ import annotations

import os

import pytest

from tests import services


def pytest_configure(config: pytest.Config) -> None:
    try:
        from django.conf import settings

        if settings.configured:
            # The test client speaks plain HTTP; production settings would redirect it.
            settings.SECURE_SSL_REDIRECT = False
            # The site speaks Polish by default; tests read English unless they ask for Polish.
            settings.LANGUAGE_CODE = "en"
            # The consumers' pool threads would keep their connections open past a test
            # (and the test database could not be dropped); the servers that the
            # integration tests start as processes keep the persistent connections.
            settings.DATABASES["default"]["CONN_MAX_AGE"] = 0
            # whitenoise looks for the collected files (the browser tests collect their own).
            settings.STATIC_ROOT.mkdir(parents=True, exist_ok=True)
            # Pages render without a collectstatic run; the browser tests serve the
            # collected, hashed files through a real server instead.
            settings.STORAGES = {
                **settings.STORAGES,
                "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
            }
    except ImportError:  # engine tests may run without Django at all
        pass


def _needs_postgres(item: pytest.Item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(
        item.get_closest_marker("django_db")
        or item.get_closest_marker("postgres")
        or fixtures & services.DB_FIXTURES
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    needs = {
        "PostgreSQL": ([i for i in items if _needs_postgres(i)], services.postgres_problem),
        "Redis": ([i for i in items if i.get_closest_marker("redis")], services.redis_problem),
        "nginx": ([i for i in items if i.get_closest_marker("nginx")], services.nginx_problem),
        "PgBouncer": (
            [i for i in items if i.get_closest_marker("pgbouncer")],
            services.pgbouncer_problem,
        ),
    }
    for name, (needing, problem_of) in needs.items():
        if not needing:
            continue
        problem = problem_of()
        if problem is None:
            continue
        if services.running_in_ci():
            pytest.exit(f"CI: {name} is required and missing: {problem}", returncode=3)
        banner = f"SKIPPING {len(needing)} TEST(S) THAT NEED {name.upper()}: {problem}"
        config.issue_config_time_warning(pytest.PytestWarning(banner), stacklevel=2)
        print(f"\n{'!' * 78}\n{banner}\n{'!' * 78}")
        for item in needing:
            item.add_marker(pytest.mark.skip(reason=banner))


@pytest.fixture(autouse=True)
def _fresh_channel_layer():
    """Each async test runs on its own event loop; so must the channel layer's connections."""
    yield
    try:
        from channels.layers import channel_layers
    except ImportError:  # engine tests may run without Django
        return
    channel_layers.backends.clear()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """`make test` runs the suite in two pytest processes side by side (``PAN_TEST_SHARD``
    names the second), each on its own test database (``test_<name>_<shard>``), queue
    and key prefix: most of a test's time is waiting (for a socket, a worker, a clock),
    and one process left the machine's cores mostly idle."""
    shard = os.environ.get("PAN_TEST_SHARD")
    if not shard:
        return
    from django.conf import settings

    for db in settings.DATABASES.values():
        if db["ENGINE"] == "django.db.backends.sqlite3":
            continue
        test = db.setdefault("TEST", {})
        test["NAME"] = f"{test.get('NAME') or 'test_' + db['NAME']}_{shard}"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database, dropped at the end even while a thread of a closed event loop
    (the websocket consumers' pool) still holds an idle connection to it."""
    yield
    from django.db import connection

    from live import adb

    adb.CONNECTIONS.close_all()  # the moves made in event loops (services.moves)
    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(scope="session", autouse=True)
def _no_cache_keys_from_an_earlier_run():
    """The test database starts again at user id 1 on every run, but the Redis cache
    outlives it: a chat flood counted for user 3 by the run before would mute this run's
    user 3. Drop this run's cache keys (``<KEY_PREFIX>:<version>:*``, the cache's alone:
    the channel layer and Celery keep theirs under other names) before the first test."""
    try:
        from django.conf import settings
        from django.core.cache import cache
    except ImportError:  # engine tests may run without Django
        return
    location = settings.CACHES["default"].get("LOCATION")
    if not location or services.redis_problem() is not None:
        return
    client = cache._cache.get_client(write=True)
    for key in client.scan_iter(match=cache.make_key("*"), count=1000):
        client.delete(key)
