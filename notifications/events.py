"""What leaves a notifications service after its commit: the bell's news to the owner's
sockets, the e-mail task and the push task."""

from __future__ import annotations

from core.broadcast import user_event_on_commit
from core.cached import forget_on_commit
from core.tasks import task_on_commit
from notifications.selectors import bell_key
from social.presence import ONLINE_WINDOW

CHANGED = "notification.changed"
TASK_MAIL = "notifications.mail"
# The e-mail waits this long (seconds) after a notice, so that the notices of the next few
# minutes leave in the same e-mail, and a player who opens a page meanwhile gets none.
MAIL_DELAY = 180.0
TASK_PUSH = "notifications.push"
# A page seen this recently may be open (its bell shows the notice) or may have just
# closed: the push looks once more after this long (seconds).
PUSH_LOOK_AGAIN = ONLINE_WINDOW


def changed_on_commit(user_id: int) -> None:
    """The bell kept for the user is forgotten, and every page of his redraws its bell
    (``social.consumers`` renders it for the socket's own user: the event carries
    nothing of the notice), once the change commits."""
    forget_on_commit([bell_key(user_id)])
    user_event_on_commit(user_id, {"type": CHANGED})


def mail_on_commit(user_id: int, *, countdown: float = MAIL_DELAY) -> None:
    """The user's pending notices go out in one e-mail ``countdown`` seconds from now."""
    task_on_commit(TASK_MAIL, (user_id,), countdown=countdown)


def push_on_commit(
    notification_id: int, *, first_look: bool = True, countdown: float | None = None
) -> None:
    """The notice's push is judged and sent (``countdown`` seconds from now, or at once)."""
    task_on_commit(TASK_PUSH, (notification_id, None, first_look), countdown=countdown)
