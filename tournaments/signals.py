"""What tournaments publish for the floors above them (notifications).

Sent inside the transaction of the change, so a receiver's writes commit or roll back
with it.
"""

from __future__ import annotations

from django.dispatch import Signal

# A registered player was told where the tournament put him, or that it starts in a
# minute (``tournaments.events.FOLLOW_*``). Keyword arguments: ``user_id``,
# ``tournament_id``, ``kind``.
player_followed = Signal()
