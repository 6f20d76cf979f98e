"""Serve the whole site with daphne (HTTP and websockets) on one port.

In embedded mode (no ``REDIS_URL``) this process also runs the Celery workers (the
main queue's and the analysis queue's) and beat as threads, so clocks, bots and hand
analyses work with nothing else running.
"""

from __future__ import annotations

from typing import Any

from daphne.cli import CommandLineInterface
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from pan_site.embedded import start_embedded_worker
from pan_site.redaction import RedactingServer

# daphne as the site runs it (make bench-load starts its servers with these too).
DAPHNE_OPTIONS = [
    # A storm of connects may queue handshakes for a few seconds; dropping them at
    # daphne's 5 s default only brings the same sockets back.
    "--websocket_connect_timeout",
    "20",
    # Leaving sockets clean up their groups and presence; under a close storm daphne's
    # 10 s default cut those handlers short.
    "--application-close-timeout",
    "30",
]


class SiteCommandLine(CommandLineInterface):
    """daphne's command line with an access log that never shows a token."""

    server_class = RedactingServer


class Command(BaseCommand):
    help = "Serve the site with daphne; in embedded mode also run the Celery worker and beat."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args: Any, host: str, port: int, **options: Any) -> None:
        if settings.EMBEDDED:
            start_embedded_worker()
            self.stdout.write("Embedded mode: Celery workers and beat run inside this process.")
        else:
            self.stdout.write(
                "Real services: run the Celery workers (main and analysis queues) and beat"
                " separately (Procfile)."
            )
        self.stdout.write(f"Serving on http://{host}:{port}/")
        SiteCommandLine().run(
            [
                "--bind",
                host,
                "--port",
                str(port),
                *DAPHNE_OPTIONS,
                settings.ASGI_APPLICATION.replace(".application", ":application"),
            ]
        )
