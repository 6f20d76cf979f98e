"""The README's "Write your own Pan bot" example stays a program of this API: it compiles,
asks for the API's own paths, and run as written (outside the repository, the standard
library only) against a real site it says why a move was refused and ends with status 1
once its token is refused for good."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from django.urls import resolve

from api import services as api_services
from api.models import AccessToken
from bench.processes import base_env, running, wait_for_log
from games.models import Hand
from tests.api.conftest import Site
from tests.api.helpers import bot_account, bot_game, bots_turn, token_for

README = Path(__file__).resolve().parents[2] / "README.md"


def example() -> str:
    section = README.read_text().split("## Write your own Pan bot", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_compiles_and_asks_for_the_apis_own_paths():
    code = example()
    assert len([line for line in code.splitlines() if line.strip()]) <= 25
    ast.parse(code)
    assert "import games" not in code and "from games" not in code
    paths = re.findall(r'f?"(/api/[^"]*)"', code)
    assert len(paths) == 3
    for path in paths:
        match = resolve(re.sub(r"\{[^}]*\}", "7", path))
        assert match.url_name != "api-not-found", path


def run_example(tmp_path: Path, *args: str, **env: str | None):
    """The example saved as a newcomer would, in a directory of his own, run by an
    isolated interpreter (no repository on its path); the process and its output's file."""
    home = tmp_path / "newcomer"
    home.mkdir()
    (home / "mybot.py").write_text(example())
    log = home / "output.txt"
    environment = base_env(**{"PYTHONPATH": None, "PAN_URL": None, **env})
    command = [sys.executable, "-I", "mybot.py", *args]
    return running(command, env=environment, log=log, cwd=home), log


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_the_example_says_why_a_move_was_refused_and_plays_on(web_site: Site, tmp_path: Path):
    _bot, token, hand, seat, opponent = bot_game()
    hand = bots_turn(hand, seat, opponent)
    Hand.objects.filter(pk=hand.pk).update(deadline=None)  # paused: every move is refused
    program, log = run_example(tmp_path, token, web_site.url)
    with program as bot:
        wait_for_log(log, "Play is paused: the clocks are stopped.", proc=bot)
        assert bot.poll() is None, log.read_text()  # still waiting for the hand to go on
    assert "Traceback" not in log.read_text()
    assert Hand.objects.get(pk=hand.pk).version == hand.version


@pytest.mark.django_db(transaction=True)
@pytest.mark.redis
def test_the_example_ends_with_status_1_and_the_reason_once_its_token_is_revoked(
    web_site: Site, tmp_path: Path
):
    bot = bot_account()
    token = token_for(bot)
    api_services.token_revoke(owner=bot, token_id=AccessToken.objects.get(owner=bot).pk)
    program, log = run_example(tmp_path, token, PAN_URL=web_site.url)  # the site from PAN_URL
    with program as client:
        client.wait(30)
    output = log.read_text()
    assert client.returncode == 1, output
    assert output.strip() == "This token has been revoked."
