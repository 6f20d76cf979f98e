"""What leaves after a change of a challenge: to every socket of both players.

``challenge.changed`` is for the browser: the ``/ws/me/`` socket of every page renders it
(``social.consumers``); the other sockets of a user ignore it. ``api.event`` carries the
line the API's event stream forwards as it is (``challenge``, ``challengeCanceled``,
``challengeDeclined``, as lichess names them).
"""

from __future__ import annotations

from core.broadcast import user_event_on_commit
from social.models import Challenge
from social.selectors import challenge_json

CHANGED = "challenge.changed"
API_EVENT = "api.event"

# The stream's line for each status (an acceptance shows on the stream as the game that
# starts; an expired challenge is over as a canceled one is).
API_LINE = {
    Challenge.Status.CREATED: "challenge",
    Challenge.Status.CANCELED: "challengeCanceled",
    Challenge.Status.EXPIRED: "challengeCanceled",
    Challenge.Status.DECLINED: "challengeDeclined",
}


def challenge_changed_on_commit(challenge: Challenge) -> None:
    """Tell both players' sockets, once the transaction commits, that ``challenge`` changed."""
    roles = ((challenge.challenged_id, "challenged"), (challenge.challenger_id, "challenger"))
    for user_id, role in roles:
        user_event_on_commit(
            user_id,
            {
                "type": CHANGED,
                "challenge": challenge.pk,
                "status": challenge.status,
                "role": role,
            },
        )
    line = API_LINE.get(challenge.status)
    if line is not None:
        payload = {"type": line, "challenge": challenge_json(challenge)}
        for user_id, _role in roles:
            user_event_on_commit(user_id, {"type": API_EVENT, "line": payload})
