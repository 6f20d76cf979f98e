"""Production settings pass Django's deployment checks with no warning at all."""

from __future__ import annotations

import subprocess
import sys

from tests.processes import ROOT, base_env


def run_manage(*args: str, **env: str | None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=base_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION = {
    "DEBUG": "false",
    "HTTPS": None,
    "SECRET_KEY": "a-production-secret-" + "x7Qp" * 12,
    "ALLOWED_HOSTS": "pan.example.com",
}


def test_check_deploy_reports_zero_warnings_with_production_values():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_debug_must_be_a_clear_boolean():
    result = run_manage("check", DEBUG="maybe")
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr


def test_a_database_pooler_other_than_transaction_is_refused_up_front():
    result = run_manage("check", DATABASE_POOLER="session")
    assert result.returncode != 0
    assert "DATABASE_POOLER must be empty or 'transaction'" in result.stderr
