"""nginx in front of the daphne processes, from the one site file ``deploy/nginx-site.conf``.

Two uses of the same file. For a server, ``python -m deploy.nginx site`` prints the site
with TLS on 443 and plain HTTP on 80 (the health check, certbot's challenges and a
redirect), to be put into ``/etc/nginx/sites-available/`` (docs/deploy.md). On this
machine (``make run-prod``, ``tests/deploy``, ``bench.bench_load --proxy nginx``,
``bench.bench_faults``), ``write_local`` renders the same site as plain HTTP on one port
into a folder of its own, with a main configuration (``deploy/nginx-local.conf``) that
keeps the pid, the logs and the temporary files there: a non-system instance, started
in the foreground with ``LocalNginx.command()`` beside the system's nginx, if any.

The templates are Django templates (no settings needed), whose ``{{ }}`` and ``{% %}``
never meet nginx's own syntax.
"""

from __future__ import annotations

import argparse
import os
import pwd
import resource
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.template import Context, Engine

DEPLOY_DIR = Path(__file__).resolve().parent
SITE_TEMPLATE = DEPLOY_DIR / "nginx-site.conf"
LOCAL_TEMPLATE = DEPLOY_DIR / "nginx-local.conf"
DEBIAN_NGINX = Path("/usr/sbin/nginx")  # not on a normal user's PATH
INSTALL = "apt-get update && apt-get install -y nginx"

# Where the certificate goes on a server: placeholders, named as such in the site file.
PLACEHOLDER_CERTIFICATE = "/etc/ssl/pan/fullchain.pem"
PLACEHOLDER_CERTIFICATE_KEY = "/etc/ssl/pan/privkey.pem"
ACME_ROOT = "/var/www/letsencrypt"
# Debian's nginx keeps its logs here; a local instance writes under its own prefix.
SYSTEM_ACCESS_LOG = "/var/log/nginx/access.log"


class NginxMissing(RuntimeError):
    """Debian's nginx is not installed."""


def nginx_binary() -> str:
    """The path of nginx: on the PATH, else Debian's /usr/sbin/nginx; NginxMissing if none."""
    found = shutil.which("nginx")
    if found:
        return found
    if os.access(DEBIAN_NGINX, os.X_OK):
        return str(DEBIAN_NGINX)
    raise NginxMissing(f"nginx is not installed; install Debian's: {INSTALL}")


@dataclass(frozen=True)
class ServerBlock:
    """One ``server`` of the site: where it listens, whether it speaks TLS, and whether it
    only redirects to HTTPS (answering the health check and certbot's challenges)."""

    listen: tuple[str, ...]
    tls: bool = False
    redirect: bool = False


def render(template: Path, context: dict[str, object]) -> str:
    """``template`` filled in; every value a string (a number would ask the settings how
    to localise it, and the renderer needs none)."""
    return Engine(autoescape=False).from_string(template.read_text()).render(Context(context))


def site_config(
    *,
    daphnes: Sequence[str],
    static_root: Path | str,
    servers: Sequence[ServerBlock],
    server_name: str = "_",
    certificate: str = PLACEHOLDER_CERTIFICATE,
    certificate_key: str = PLACEHOLDER_CERTIFICATE_KEY,
    upstream_header: bool = False,
    access_log: str = SYSTEM_ACCESS_LOG,
) -> str:
    """The site file: upstreams of ``daphnes`` (``host:port``), then ``servers``, whose
    requests are logged to ``access_log`` with any token in a query string hidden.

    ``upstream_header`` adds ``X-Upstream`` (the daphne that answered) to responses, for
    tests and benchmarks only. Refuses an empty daphne list and a relative static root
    (nginx would read it relative to its own prefix)."""
    if not daphnes:
        raise ValueError("nginx needs at least one daphne (host:port)")
    for daphne in daphnes:
        host, _, port = daphne.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a daphne is host:port, not {daphne!r}")
    root = Path(static_root)
    if not root.is_absolute():
        raise ValueError(f"the static root must be an absolute path, not {str(root)!r}")
    return render(
        SITE_TEMPLATE,
        {
            "daphnes": [
                {"number": str(number), "address": address}
                for number, address in enumerate(daphnes, start=1)
            ],
            "static_root": str(root).rstrip("/"),
            "servers": list(servers),
            "server_name": server_name,
            "certificate": certificate,
            "certificate_key": certificate_key,
            "acme_root": ACME_ROOT,
            "upstream_header": upstream_header,
            "access_log": access_log,
        },
    )


def production_site(
    *,
    server_name: str,
    daphnes: Sequence[str],
    static_root: Path | str,
    certificate: str = PLACEHOLDER_CERTIFICATE,
    certificate_key: str = PLACEHOLDER_CERTIFICATE_KEY,
) -> str:
    """The site for a server: HTTPS on 443, and plain HTTP on 80 for the health check,
    certbot's challenges and a redirect to HTTPS."""
    return site_config(
        daphnes=daphnes,
        static_root=static_root,
        server_name=server_name,
        certificate=certificate,
        certificate_key=certificate_key,
        servers=[
            ServerBlock(listen=("80", "[::]:80"), redirect=True),
            ServerBlock(listen=("443 ssl http2", "[::]:443 ssl http2"), tls=True),
        ],
    )


@dataclass(frozen=True)
class LocalNginx:
    """A non-system nginx whose configuration, pid, logs and temporary files live in
    ``prefix``, serving the site on ``host:port``."""

    prefix: Path
    host: str
    port: int

    @property
    def config(self) -> Path:
        return self.prefix / "nginx.conf"

    @property
    def site(self) -> Path:
        return self.prefix / "site.conf"

    @property
    def error_log(self) -> Path:
        return self.prefix / "logs" / "error.log"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def command(self, *extra: str) -> list[str]:
        """The command line that runs it in the foreground (``-t``: only test the
        configuration); ``-e`` keeps even the errors before it is read out of /var/log."""
        return [
            nginx_binary(),
            "-p",
            str(self.prefix),
            "-c",
            str(self.config),
            "-e",
            str(self.error_log),
            *extra,
        ]

    def check(self) -> None:
        """``nginx -t`` on the configuration; RuntimeError with nginx's words if it fails."""
        result = subprocess.run(self.command("-t", "-q"), capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"nginx rejects {self.config}:\n{result.stderr or result.stdout}")


def write_local(
    prefix: Path,
    *,
    port: int,
    daphnes: Sequence[str],
    static_root: Path | str,
    host: str = "127.0.0.1",
    worker_processes: str = "auto",
    worker_connections: int = 4096,
    upstream_header: bool = True,
) -> LocalNginx:
    """Write a non-system nginx serving the site in plain HTTP on ``host:port`` into
    ``prefix`` (created), check it with ``nginx -t`` and return it; nothing is started.

    Each proxied websocket holds two connections of a worker (the client's and the
    daphne's). Run by root, its workers run as root too, as they would under the user
    who starts it otherwise (they read the static files and write under ``prefix``)."""
    prefix = Path(prefix).resolve()
    site = site_config(
        daphnes=daphnes,
        static_root=static_root,
        servers=[ServerBlock(listen=(f"{host}:{port}",))],
        upstream_header=upstream_header,
        access_log=str(prefix / "logs" / "access.log"),
    )
    for folder in ("logs", "tmp"):
        (prefix / folder).mkdir(parents=True, exist_ok=True)
    instance = LocalNginx(prefix=prefix, host=host, port=port)
    instance.site.write_text(site)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2 * worker_connections + 64
    open_files = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    instance.config.write_text(
        render(
            LOCAL_TEMPLATE,
            {
                "user": pwd.getpwuid(0).pw_name if os.geteuid() == 0 else "",
                "prefix": str(prefix),
                "site": str(instance.site),
                "worker_processes": worker_processes,
                "worker_connections": str(worker_connections),
                "open_files": str(open_files),
            },
        )
    )
    instance.check()
    return instance


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m deploy.nginx",
        description="Print the nginx site of Pan online for a server (HTTPS on 443, plain "
        "HTTP on 80 for the health check and the redirect).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    site = commands.add_parser("site", help="print the site file")
    site.add_argument("--server-name", required=True, help="e.g. pan.example.com")
    site.add_argument(
        "--daphne",
        action="append",
        required=True,
        help="host:port of a daphne, once per daphne (e.g. 127.0.0.1:8001)",
    )
    site.add_argument("--static-root", required=True, help="STATIC_ROOT: PAN_VAR_DIR/static")
    site.add_argument("--certificate", default=PLACEHOLDER_CERTIFICATE)
    site.add_argument("--certificate-key", default=PLACEHOLDER_CERTIFICATE_KEY)
    options = parser.parse_args(argv)
    try:
        text = production_site(
            server_name=options.server_name,
            daphnes=options.daphne,
            static_root=options.static_root,
            certificate=options.certificate,
            certificate_key=options.certificate_key,
        )
    except ValueError as error:
        parser.error(str(error))
    print(text, end="")


if __name__ == "__main__":
    main()
