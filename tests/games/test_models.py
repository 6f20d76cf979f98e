"""The hand's clock between its fields and the engine's ``Clock`` (no database needed), and
the names of tables and players in each reader's language."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import translation

from games import services
from games.engine import Clock, Rules
from games.models import Hand, MatchPlayer, to_instant, to_moment
from tests.factories import make_table, make_user

WARSAW = ZoneInfo("Europe/Warsaw")


def test_instants_are_exact_microseconds_either_way():
    moment = datetime(2025, 6, 15, 12, 30, 45, 123_457, tzinfo=UTC)
    assert to_instant(moment) == 1_749_990_645_123_457
    assert to_moment(to_instant(moment)) == moment
    assert to_instant(moment.astimezone(WARSAW)) == to_instant(moment)  # any zone, one instant
    assert to_instant(moment + timedelta(milliseconds=4_350)) - to_instant(moment) == 4_350_000


def test_a_running_hand_reads_and_writes_its_clock():
    started = datetime(2025, 6, 15, 12, 0, tzinfo=UTC)
    hand = Hand(state={"to_move": 1}, clock_ms=[50_000, 40_000], increment_ms=2_000)
    hand.turn_started_at = started
    hand.deadline = started + timedelta(seconds=40)
    clock = hand.clock
    assert clock == Clock(
        left_ms=(50_000, 40_000), increment_ms=2_000, running=1, since=to_instant(started)
    )
    hand.clock = clock.stop(to_instant(started + timedelta(seconds=15)))
    assert hand.clock_ms == [50_000, 25_000]
    assert hand.turn_started_at is None and hand.deadline is None
    hand.clock = hand.clock.start(1, to_instant(started + timedelta(minutes=1)))
    assert hand.turn_started_at == started + timedelta(minutes=1)
    assert hand.deadline == started + timedelta(minutes=1, seconds=25)


def test_only_the_player_to_move_can_have_his_time_running():
    hand = Hand(state={"to_move": 0}, clock_ms=[1_000, 1_000])
    with pytest.raises(ValueError, match="player to move"):
        hand.clock = Clock(left_ms=(1_000, 1_000)).start(1, 0)


# --- names in the reader's language ---------------------------------------------------------


@pytest.mark.django_db
def test_a_table_nobody_named_is_its_owners_in_each_readers_language():
    ola = make_user("ola", language="pl")
    with translation.override("pl"):  # made in Polish: nothing Polish is stored
        table = services.table_create(owner=ola, name="  ", rules=Rules())
    assert table.name == ""
    with translation.override("en"):
        assert (table.title, str(table)) == ("ola's table", "ola's table")
    with translation.override("pl"):
        assert table.title == "Stół gracza ola"
    named = services.table_create(owner=ola, name="U Oli", rules=Rules())
    with translation.override("en"):
        assert named.title == "U Oli"


@pytest.mark.django_db
def test_a_bot_of_the_site_is_named_in_each_readers_language():
    table = make_table(players=1, seats=2)
    with translation.override("en"):  # started in English: nothing English is stored
        services.table_add_bot(table_id=table.pk, by=table.owner, position=1, level="greedy")
        match = services.match_start(table_id=table.pk, by=table.owner)
    bot = match.players.get(user=None)
    assert (bot.display_name, bot.bot_level) == ("", "greedy")
    with translation.override("pl"):
        assert (bot.name, str(bot)) == ("Bot: zachłanny", "Bot: zachłanny")
    with translation.override("en"):
        assert bot.name == "Bot: greedy"
        assert match.players.get(user=table.owner).name == table.owner.username
        # A tournament's bots have names of their own; a person a bot plays for keeps his.
        assert MatchPlayer(bot_level="greedy", display_name="Bot 3").name == "Bot 3"
        assert MatchPlayer(bot_level="greedy", display_name="ola").name == "ola"
