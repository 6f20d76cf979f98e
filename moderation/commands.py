"""The moderator commands of the table page, as calls of moderation's services.

Games parses a command on its socket (``games.consumers_moderation``) and runs the handler
registered here for its action (in ``ModerationConfig.ready()``); the services hold every
rule, the permission checks too.
"""

from __future__ import annotations

from collections.abc import Callable

from accounts.models import User
from moderation import services


def hide_chat(*, by: User, table_id: int, reason: str, message_id: int) -> None:
    services.chat_hide(by=by, message_id=message_id, reason=reason)


def abort_hand(*, by: User, table_id: int, reason: str) -> None:
    services.hand_abort(by=by, table_id=table_id, reason=reason)


def annul_match(*, by: User, table_id: int, reason: str, match_id: int) -> None:
    services.match_annul(by=by, match_id=match_id, reason=reason)


def remove_player(*, by: User, table_id: int, reason: str, user_id: int) -> None:
    services.table_remove_player(by=by, table_id=table_id, user_id=user_id, reason=reason)


MODERATOR_COMMANDS: dict[str, Callable[..., None]] = {
    "hide_chat": hide_chat,
    "abort_hand": abort_hand,
    "annul_match": annul_match,
    "remove_player": remove_player,
}
