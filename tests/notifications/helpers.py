from __future__ import annotations

from datetime import datetime

from games.signals import correspondence_turn


def send_turn(table, user, *, hand_id: int, deadline: datetime) -> None:
    """The turn of ``table``'s correspondence game passes to ``user``, as the games tell it."""
    correspondence_turn.send(
        sender=None, table_id=table.pk, hand_id=hand_id, user_id=user.pk, deadline=deadline
    )
