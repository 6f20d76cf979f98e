"""The production shape on this machine, for trying it out (`make run-prod`).

nginx (a non-system instance under ``PAN_VAR_DIR/nginx``, plain HTTP on ``--port``) in
front of two daphnes, the Celery worker, the analysis and correspondence workers and beat,
with ``DEBUG`` off, on PostgreSQL and Redis: the site as ``deploy/`` runs it on a server,
but without TLS, on ports of this machine. First it creates the database when missing, migrates,
compiles the translations and collects the static files (nginx serves them); then honcho
runs ``deploy/Procfile.prod`` in its place, and Ctrl-C stops every process it started.

The environment decides the rest, with these defaults: the database ``pan_prod`` on the
local PostgreSQL, Redis database 0 with the key prefix and queue ``pan-prod``, and
``127.0.0.1`` as the trusted proxy (nginx). ``DEBUG`` is always off here.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROCFILE = ROOT / "deploy" / "Procfile.prod"

DEFAULTS = {
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/pan_prod",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "CHANNELS_PREFIX": "pan-prod",
    "CELERY_QUEUE": "pan-prod",
    # Plain HTTP on this machine: on a server nginx terminates TLS and HTTPS is on.
    "HTTPS": "false",
    "TRUSTED_PROXIES": "127.0.0.1",
    "DJANGO_SETTINGS_MODULE": "pan_site.settings",
}


def parse_options(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.run_prod", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--host", default="127.0.0.1", help="nginx's address")
    parser.add_argument("--port", type=int, default=8080, help="nginx's port")
    parser.add_argument(
        "--daphne-ports",
        default="8001,8002",
        help="the two daphnes' ports, comma-separated (they listen on 127.0.0.1)",
    )
    options = parser.parse_args(argv)
    try:
        ports = [int(port) for port in options.daphne_ports.split(",")]
    except ValueError:
        parser.error(f"--daphne-ports takes two port numbers, not {options.daphne_ports!r}")
    if len(ports) != 2 or len(set(ports)) != 2 or options.port in ports:
        parser.error("--daphne-ports takes two different ports, neither of them --port")
    options.daphne_ports = ports
    return options


def environment() -> dict[str, str]:
    """This process's environment over the defaults, ``DEBUG`` off, the venv on the PATH."""
    env = {**DEFAULTS, **os.environ, "DEBUG": "false"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def check_services(env: dict[str, str]) -> None:
    """PostgreSQL (the database created when missing) and Redis answer, or a clear exit."""
    import psycopg
    import redis

    from deploy.database import ensure_database

    url = env["DATABASE_URL"]
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit(f"run-prod: DATABASE_URL must name a PostgreSQL database, not {url!r}")
    try:
        ensure_database(url)
    except psycopg.Error as error:
        raise SystemExit(f"run-prod: PostgreSQL does not answer at {url}: {error}") from None
    try:
        redis.Redis.from_url(env["REDIS_URL"], socket_timeout=3).ping()
    except redis.RedisError as error:
        raise SystemExit(
            f"run-prod: Redis does not answer at {env['REDIS_URL']}: {error}"
        ) from None


def prepare(env: dict[str, str]) -> None:
    """What a deployment does before it starts the processes."""
    for command in (
        ["migrate", "--noinput"],
        ["compile_translations", "-v0"],
        ["collectstatic", "--noinput", "-v0"],
    ):
        print(f"run-prod: manage.py {' '.join(command)}", flush=True)
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True)


def main(argv: Sequence[str] | None = None) -> None:
    options = parse_options(argv)
    from deploy.nginx import NginxMissing, nginx_binary, write_local

    try:
        nginx_binary()
    except NginxMissing as missing:
        raise SystemExit(f"run-prod: {missing} (make run-prod installs it)") from None
    env = environment()
    check_services(env)
    try:
        prepare(env)
    except subprocess.CalledProcessError as failed:
        raise SystemExit(f"run-prod: {shlex.join(map(str, failed.cmd))} failed") from None

    os.environ.update(env)
    import django

    django.setup()
    from django.conf import settings

    daphnes = [f"127.0.0.1:{port}" for port in options.daphne_ports]
    nginx = write_local(
        settings.VAR_DIR / "nginx",
        host=options.host,
        port=options.port,
        daphnes=daphnes,
        static_root=settings.STATIC_ROOT,
    )
    env.update(
        PAN_NGINX=shlex.join(nginx.command()),
        PAN_DAPHNE_PORT_1=str(options.daphne_ports[0]),
        PAN_DAPHNE_PORT_2=str(options.daphne_ports[1]),
        DAPHNE_UPSTREAMS=",".join(daphnes),
        PAN_VAR_DIR=str(settings.VAR_DIR),
    )
    print(
        f"run-prod: {nginx.url}/ (nginx, logs in {nginx.prefix / 'logs'}) in front of the "
        f"daphnes on {', '.join(daphnes)}; database {settings.DATABASES['default']['NAME']}, "
        f"Redis {settings.REDIS_URL} (prefix {os.environ['CHANNELS_PREFIX']}, queue "
        f"{settings.CELERY_TASK_DEFAULT_QUEUE}); Ctrl-C stops them all",
        flush=True,
    )
    honcho = shutil.which("honcho", path=env["PATH"]) or "honcho"
    os.execve(honcho, [honcho, "-f", str(PROCFILE), "-d", str(ROOT), "start"], env)


if __name__ == "__main__":
    main()
