"""The moderator commands of the table page (read by ``games.commands``), each handled
by the function moderation registers for it in its ``ready()``
(``register_moderator_command``); moderation's services hold every rule. Games never
imports moderation.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _

from accounts.models import User
from games import selectors, services
from games.commands import AbortHand, AnnulMatch, Asker, Command, HideChat, RemovePlayer
from games.models import Table

# The moderator commands of the table page, each run by the floor that holds its rules
# (moderation registers them in its ready()): ``run(by=, table_id=, reason=, **fields)``.
_moderator_commands: dict[str, Callable[..., object]] = {}


def register_moderator_command(action: str, run: Callable[..., object]) -> None:
    """``run`` answers the table page's moderator command ``action`` (a command's
    ``action``: hide_chat, abort_hand, annul_match, remove_player). Besides ``by``,
    ``table_id`` and ``reason``, hide_chat gets ``message_id``, annul_match ``match_id``
    (the table's current match) and remove_player ``user_id``."""
    known = _moderator_commands.get(action)
    if known is not None and known is not run:
        raise ValueError(f"{action!r} already has a handler: {known!r}")
    _moderator_commands[action] = run


def _as_moderator(
    fields: Callable[[Asker, Any], dict[str, int]],
) -> Callable[[Asker, Any], None]:
    """A moderator command's handler: it gets the asking user fresh from the database
    (the socket's user, and his cached permissions, may be older than a change of his
    rights or a ban), runs the registered command with the command's ``fields``, and a
    refused permission becomes a refusal the page shows."""

    @wraps(fields)
    def run(asker: Asker, command: Any) -> None:
        handler = _moderator_commands.get(command.action)
        if handler is None:
            raise services.Refused(_("You do not have permission to do that."))
        user = User.objects.get(pk=asker.user.pk)
        values = fields(asker, command)
        try:
            handler(by=user, table_id=asker.table_id, reason=command.reason, **values)
        except PermissionDenied as denied:
            raise services.Refused(
                str(denied) or _("You do not have permission to do that.")
            ) from None

    return run


@_as_moderator
def _hide_chat(asker: Asker, command: HideChat) -> dict[str, int]:
    return {"message_id": command.message}


@_as_moderator
def _abort_hand(asker: Asker, command: AbortHand) -> dict[str, int]:
    return {}


@_as_moderator
def _annul_match(asker: Asker, command: AnnulMatch) -> dict[str, int]:
    match = selectors.current_match(Table.objects.get(pk=asker.table_id))
    if match is None:
        raise services.Refused(_("No match has been played at this table."))
    return {"match_id": match.pk}


@_as_moderator
def _remove_player(asker: Asker, command: RemovePlayer) -> dict[str, int]:
    return {"user_id": command.user}


# The moderator commands of the table page, each run by moderation (which holds every
# rule, the permission first); TableConsumer's table includes them.
MODERATOR_HANDLERS: dict[type[Command], Callable[[Asker, Any], None]] = {
    HideChat: _hide_chat,
    AbortHand: _abort_hand,
    AnnulMatch: _annul_match,
    RemovePlayer: _remove_player,
}
