"""The bell over ``/ws/me/`` on the real ASGI stack and Redis layer: a new notice reaches
its owner's every page at once, in his language, and nobody else's socket."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from notifications import services
from tests.factories import make_table, make_user
from tests.games.ws import connect, frames_until
from tests.notifications.helpers import send_turn

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True), pytest.mark.redis]


async def test_the_turn_notice_reaches_its_owners_bell_live_and_nobody_elses():
    ola = await database_sync_to_async(make_user)("ola_bell", language="pl")
    bob = await database_sync_to_async(make_user)("bob_bell")
    table = await database_sync_to_async(make_table)(ola, name="Listy")
    ola_socket = await connect("/ws/me/", ola)
    bob_socket = await connect("/ws/me/", bob)

    await database_sync_to_async(send_turn)(
        table, ola, hand_id=1, deadline=timezone.now() + timedelta(days=1)
    )
    frames = await frames_until(ola_socket, 'id="bell-panel"')
    frame = "".join(frames)
    assert 'id="bell-count" class="bell-label" hx-swap-oob="true"' in frame
    assert 'data-testid="bell-count" aria-hidden="true">1<' in frame
    assert "Twój ruch przy stole Listy." in frame
    assert await bob_socket.receive_nothing(timeout=0.5)

    # Marked read on another page: the bell of this one empties.
    await database_sync_to_async(services.notifications_mark_read)(user=ola)
    frames = await frames_until(ola_socket, 'id="bell-panel"')
    assert 'data-testid="bell-count"' not in "".join(frames)
    assert await bob_socket.receive_nothing(timeout=0.5)
    await ola_socket.disconnect()
    await bob_socket.disconnect()
