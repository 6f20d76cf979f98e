"""seed_demo: the demo accounts of `make run`, in development only, never a failure."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from accounts.models import User

pytestmark = pytest.mark.django_db


def seed() -> str:
    out = StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


def test_with_debug_off_it_creates_nothing_and_does_not_fail(settings, tmp_path):
    """`make run` with DEBUG=false (the real-services path) calls it too."""
    settings.DEBUG, settings.VAR_DIR = False, tmp_path
    assert "no demo accounts" in seed()
    assert not User.objects.exists()
    assert not (tmp_path / "demo_passwords.json").exists()


def test_in_development_it_creates_the_admin_and_two_players_once(settings, tmp_path):
    settings.DEBUG, settings.VAR_DIR = True, tmp_path
    out = seed()
    passwords = json.loads((tmp_path / "demo_passwords.json").read_text())
    assert set(passwords) == {"admin", "ola", "janek"}
    assert all(passwords[name] in out for name in passwords)
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.check_password(passwords["admin"])
    assert not User.objects.get(username="ola").is_staff

    seed()  # again: the same accounts, the same passwords
    assert json.loads((tmp_path / "demo_passwords.json").read_text()) == passwords
    assert User.objects.count() == 3
