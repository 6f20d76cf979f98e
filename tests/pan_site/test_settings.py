"""The settings: production values pass Django's deployment checks with no warning at all,
every variable read is in the README's table, and `make run` hands the address it serves
to the e-mails' links."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

from bench.processes import ROOT, base_env

README = ROOT / "README.md"


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


def readme_settings_table() -> set[str]:
    """The names in the first column of the README's table of settings."""
    rows = [line for line in README.read_text().splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z_]+)`", row.split("|")[1])}


def test_every_variable_the_settings_read_is_in_the_readme_table():
    tree = ast.parse((ROOT / "pan_site" / "settings.py").read_text())
    read = {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and ast.unparse(node.func) in {"os.environ.get", "env_bool", "env_list"}
        and isinstance(node.args[0], ast.Constant)
    }
    assert {"SITE_URL", "DEBUG", "REDIS_URL"} <= read
    assert read - readme_settings_table() == set()


def test_the_email_links_of_make_run_on_another_port_lead_to_that_port():
    dry = subprocess.run(
        ["make", "-n", "run", "PORT=8301"],
        cwd=ROOT,
        env=base_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert dry.returncode == 0, dry.stderr
    # The lines that start the site, daphne alone or the Procfile's processes (with
    # REDIS_URL), each with the address it hands them.
    starts = [line for line in dry.stdout.splitlines() if re.search(r"serve --host|honcho", line)]
    assert len(starts) == 2
    for start in starts:
        assert dict(re.findall(r"\b(HOST|PORT)=(\S+)", start)) == {
            "HOST": "127.0.0.1",
            "PORT": "8301",
        }
    show = "from django.conf import settings; print(settings.SITE_URL)"
    served = run_manage("shell", "-c", show, SITE_URL=None, HOST="127.0.0.1", PORT="8301")
    assert served.stdout.splitlines()[-1] == "http://127.0.0.1:8301", served.stderr
    chosen = run_manage("shell", "-c", show, SITE_URL="https://pan.example.com/", PORT="8301")
    assert chosen.stdout.splitlines()[-1] == "https://pan.example.com", chosen.stderr
