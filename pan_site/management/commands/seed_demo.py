"""Development only: a demo admin and two demo players, with their passwords printed.

With DEBUG off (real services, production) it creates no accounts and says so, without
failing: ``make run`` calls it on every path, and a site with real users must not get
an admin whose password is printed on the console. On every path it loads the puzzles
kept in the repository (``manage.py make_puzzles``'s data file) that are not there yet,
so the puzzle pages are never empty: inserts only, a fraction of a second.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User
from puzzles.services import puzzles_load

DEMO_USERS = [
    ("admin", "admin@example.com", True),
    ("ola", "ola@example.com", False),
    ("janek", "janek@example.com", False),
]


class Command(BaseCommand):
    help = "Create the demo admin and players and print their passwords (with DEBUG only)."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"seed_demo: {puzzles_load()} puzzles loaded.")
        if not settings.DEBUG:
            self.stdout.write("seed_demo: DEBUG is off, so no demo accounts are created.")
            return
        password_file = settings.VAR_DIR / "demo_passwords.json"
        passwords: dict[str, str] = (
            json.loads(password_file.read_text()) if password_file.exists() else {}
        )
        for username, email, is_admin in DEMO_USERS:
            user = User.objects.filter(username=username).first()
            if user is None or username not in passwords:
                passwords[username] = secrets.token_urlsafe(9)
                user = user or User(username=username, email=email)
                user.is_staff = user.is_superuser = is_admin
                user.set_password(passwords[username])
                user.save()
                EmailAddress.objects.update_or_create(
                    user=user, email=email, defaults={"verified": True, "primary": True}
                )
        password_file.write_text(json.dumps(passwords))
        password_file.chmod(0o600)
        self.stdout.write("Demo accounts (development only):")
        for username, _email, is_admin in DEMO_USERS:
            role = "admin" if is_admin else "player"
            self.stdout.write(f"  {username:<6} {passwords[username]:<14} ({role})")
