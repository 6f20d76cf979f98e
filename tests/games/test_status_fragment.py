"""The hand's status line, drawn once per hand and look and kept (renderers.status_fragment):
at every move of a hand, in both languages and for the owner, it is what the template
draws for that very move."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import renderers, selectors, services
from games.engine import move_to_json
from games.models import Hand
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def test_the_kept_status_is_the_drawn_one_at_every_move():
    table = make_table(players=3, base_seconds=600)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    users = {p.seat: p.user for p in hand.match.players.select_related("user")}
    versions = set()
    for turn in range(12):
        snapshot = selectors.table_snapshot(table_id=table.pk)
        for language in ("en", "pl"):
            for viewer in (None, table.owner):
                with translation.override(language):
                    view = selectors.table_view(snapshot=snapshot, viewer=viewer, with_chat=False)
                    kept = renderers.status_fragment(view)
                    assert kept == renderers._partials(view, ("status",))
                    assert f'data-version="{view.version}"' in kept
        versions.add(view.version)
        state = hand.engine_state
        moves = state.legal_moves()
        services.execute(
            services.move_action(
                move_to_json(moves[turn % len(moves)]),
                hand_id=hand.pk,
                version=hand.version,
                user=users[state.to_move],
            )
        )
        hand.refresh_from_db()
        if hand.is_over:
            break
    assert len(versions) > 3
