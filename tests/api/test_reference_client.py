"""The reference client (``python -m pan_bot``) plays a whole match through the HTTP API
against a built-in bot, on the real stack: daphne, a Celery worker (the built-in bot's
moves, the next hands), PostgreSQL and Redis; it says what it does, and why it stops."""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path

import pytest

from api import services as api_services
from api.models import AccessToken
from bench.processes import running, wait_for_log
from games import services
from games.engine import Rules
from games.models import Action, Match, MatchPlayer
from pan_bot.client import main
from tests.api.conftest import Site
from tests.api.helpers import bot_account, token_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.redis]

MATCH_SECONDS = 600  # an upper bound; a match of these short hands takes about a minute
# Hands end at their tenth action (most cards lose): a match is a few hands long, not the
# many minutes of full hands at the built-in bot's human-like pace.
SHORT_HANDS = Rules(max_actions=10, max_actions_result="most_cards")


def test_the_reference_client_plays_a_whole_match_against_a_built_in_bot(site: Site):
    bot = bot_account("refbot")
    token = token_for(bot)
    table = services.table_create(
        owner=bot, name="", rules=SHORT_HANDS, seats=2, base_seconds=300, increment_seconds=5
    )
    services.table_add_bot(table_id=table.pk, by=bot, position=1, level="greedy")

    client_log = site.logs / "pan_bot.log"
    command = [
        sys.executable,
        "-m",
        "pan_bot",
        *("--token", token, "--url", site.url, "--strategy", "greedy", "--games", "1"),
    ]
    with running(command, env=site.env, log=client_log) as client:
        wait_for_log(client_log, "playing as refbot", proc=client)
        services.match_start(table_id=table.pk, by=bot)
        client.wait(MATCH_SECONDS)
    log = client_log.read_text()
    assert client.returncode == 0, log[-3000:]

    match = Match.objects.get(table=table)
    assert match.status == Match.Status.FINISHED, log[-3000:]
    seat = MatchPlayer.objects.get(match=match, user=bot).seat
    moves = Action.objects.filter(hand__match=match, seat=seat)
    # The client made every move of its seat: it never ran out of time.
    assert moves.exists()
    assert not moves.filter(move__type="timeout").exists()
    assert "moves played, 1 matches over" in log
    # The API's docs and schema are served by the same server.
    with urllib.request.urlopen(f"{site.url}/api/openapi.json", timeout=10) as response:
        assert b"/api/bot/game/{table_id}/move" in response.read()


def test_the_help_says_what_it_does_and_where_it_connects_by_default(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"], environ={})
    shown = " ".join(capsys.readouterr().out.split())
    assert done.value.code == 0
    assert "Play the games of a Pan online account" in shown
    assert "PAN_URL, else http://127.0.0.1:8000" in shown and "PAN_TOKEN" in shown


def test_a_revoked_token_ends_the_client_with_the_servers_reason_and_status_1(
    web_site: Site, tmp_path: Path
):
    bot = bot_account()
    token = token_for(bot)
    api_services.token_revoke(owner=bot, token_id=AccessToken.objects.get(owner=bot).pk)
    log = tmp_path / "pan_bot.log"
    env = {**web_site.env, "PAN_URL": web_site.url, "PAN_TOKEN": token}
    with running([sys.executable, "-m", "pan_bot"], env=env, log=log) as client:
        client.wait(30)
    output = log.read_text()
    assert client.returncode == 1, output
    assert "python -m pan_bot: This token has been revoked. (token_revoked)" in output
    assert "Traceback" not in output
