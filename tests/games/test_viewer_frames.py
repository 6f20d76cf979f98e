"""games.viewer_frames: what one viewer of a table is sent. The seats are drawn once for
every viewer of a kind, and each viewer still gets exactly the seats his own render
shows: the report buttons at others' seats, the owner's tools, a moderator's."""

from __future__ import annotations

import itertools

import pytest
from django.utils import translation

from games import renderers, selectors, services
from games.models import Table
from games.viewer_frames import ViewerFrames
from tests.factories import make_moderator, make_table, make_user, seated_users
from tests.games.test_snapshots import tables_in_every_state

pytestmark = [pytest.mark.django_db]

_events = itertools.count()


def with_bots() -> Table:
    """A table waiting for its first match: its owner, a bot account, a bot, a free seat."""
    table = make_table(players=1, seats=4)
    make_user("robo_frames", is_bot_account=True)
    services.table_seat_bot_account(
        table_id=table.pk, by=table.owner, position=1, username="robo_frames"
    )
    services.table_add_bot(table_id=table.pk, by=table.owner, position=2, level="greedy")
    return table


def viewers_of(table: Table) -> dict[str, object]:
    seated = seated_users(table)
    owner = table.owner
    others = [user for user in seated if user.pk != owner.pk and not user.is_bot_account]
    kinds = {
        "owner": owner,
        "visitor": None,
        "spectator": make_user(),
        "other spectator": make_user(),
        "moderator": make_moderator(),
    }
    kinds.update({f"seated {n}": user for n, user in enumerate(others)})
    return kinds


@pytest.mark.parametrize("language", ["en", "pl"])
def test_every_viewer_gets_the_seats_his_own_render_shows(language):
    for table in [*tables_in_every_state(), with_bots()]:
        snapshot = selectors.table_snapshot(table_id=table.pk)
        event = f"e{next(_events)}"
        for kind, user in viewers_of(table).items():
            frames = ViewerFrames(table.pk, language, user).frames(snapshot, True, event)
            with translation.override(language):
                view = selectors.table_view(snapshot=snapshot, viewer=user, with_chat=False)
                own = renderers.seats_fragment(view)
            assert frames.endswith(own), (table.status, kind)


def test_the_seats_are_drawn_once_for_the_players_and_the_spectators_of_a_table_in_play(
    monkeypatch,
):
    table = make_table(players=4, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    players = seated_users(table)
    spectators = [make_user(), make_user()]
    drawn: list[object] = []
    of_kind = renderers.seats_of_kind
    monkeypatch.setattr(
        renderers, "seats_of_kind", lambda view: drawn.append(view.viewer) or of_kind(view)
    )
    snapshot = selectors.table_snapshot(table_id=table.pk)
    shown = {
        user.pk: ViewerFrames(table.pk, "en", user).frames(snapshot, True, "in play")
        for user in [*players, *spectators]
    }
    assert len(drawn) == 2  # one for the seated players, one for the spectators
    for user in players:
        # His own seat offers no report, every other player's does.
        reports = [p.pk for p in players if f"?user={p.pk}&amp;table" in shown[user.pk]]
        assert reports == [p.pk for p in players if p.pk != user.pk]
        assert 'data-testid="leave"' in shown[user.pk]
    for user in spectators:
        assert all(f"?user={p.pk}&amp;table" in shown[user.pk] for p in players)
        assert 'data-testid="leave"' not in shown[user.pk]
