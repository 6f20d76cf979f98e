"""What games publishes for the floors above it (tournaments, moderation) and beside it
(ratings).

Games never imports its subscribers: they connect in their ``AppConfig.ready()``. The
hand and match signals are sent inside the transaction that finished the hand, with the
hand and its match locked, so a receiver's writes commit or roll back with the hand; a
receiver that raises undoes the hand's end too.
"""

from __future__ import annotations

from django.dispatch import Signal

# A hand ended with a result. Keyword arguments: ``hand`` (saved, with ``hand.match``
# locked and saved), ``now``, ``managed`` (the table is a tournament's, Table.managed).
# The match may have ended with it (``hand.match.status``).
hand_finished = Signal()

# A match ended (someone completed P-A-N). Keyword arguments: ``match``, ``now``.
match_finished = Signal()

# A user wrote in the chat faster than CHAT_RATE allows; his message is refused. Keyword
# arguments: ``user_id``, ``now``. Sent outside any transaction of games', so what a
# receiver does (moderation mutes a repeated flooder) stays although the message is refused.
chat_flooded = Signal()

# A correspondence hand changed (a move, a timeout, a deal, its end, a clock's stop or
# start): every turn of it but the one that stands now is over. Sent after the commit,
# before the ``correspondence_turn`` of a turn that begins. Keyword arguments:
# ``hand_id``, ``user_ids`` (the people who play it), ``turn`` (``(user_id, deadline)`` of
# the person to move now, or None: a bot is, the hand is over, the clocks are stopped).
correspondence_changed = Signal()

# A correspondence table's turn passed to a seated person (a move, a timeout's next hand, a
# deal). Sent after the commit, once per turn. Keyword arguments: ``table_id``,
# ``hand_id``, ``user_id`` (whose turn it is), ``deadline`` (an aware datetime: when his
# time for this move runs out).
correspondence_turn = Signal()
