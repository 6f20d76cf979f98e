"""Write the site's VAPID key pair for Web Push into var/, once (`make run` calls it)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from notifications.push import generate_private_key_pem


class Command(BaseCommand):
    help = (
        "Write a VAPID private key to var/vapid_private.pem unless one is there or set in "
        "VAPID_PRIVATE_KEY (development: production sets VAPID_PRIVATE_KEY)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        path = settings.VAPID_KEY_FILE
        if settings.VAPID_PRIVATE_KEY:
            if options["verbosity"]:
                self.stdout.write("A VAPID key is set already: nothing written.")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(generate_private_key_pem())
        path.chmod(0o600)
        if options["verbosity"]:
            self.stdout.write(f"Wrote a new VAPID key to {path}.")
