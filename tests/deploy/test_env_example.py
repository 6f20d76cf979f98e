"""deploy/pan.env.example names every variable the settings read, and nothing else."""

from __future__ import annotations

import re

from bench.processes import ROOT

READ = re.compile(
    r"""(?:os\.environ\.get|os\.environ\[|env_bool|env_list)\(?\s*["']([A-Z_]+)["']"""
)
ASSIGNED = re.compile(r"^([A-Z_]+)=", re.M)


def test_the_env_file_template_lists_every_variable_the_settings_read():
    read = set(READ.findall((ROOT / "pan_site" / "settings.py").read_text()))
    listed = ASSIGNED.findall((ROOT / "deploy" / "pan.env.example").read_text())
    assert len(listed) == len(set(listed)), "a variable is listed twice"
    assert "SECRET_KEY" in read and "DATABASE_URL" in read  # the reader finds them
    assert set(listed) == read
