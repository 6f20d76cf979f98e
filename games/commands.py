"""The table page's websocket commands, read into typed values at the edge.

The page (htmx's ws extension, ``static/js/table.js``) sends each command as one JSON
object whose ``action`` names it; form values arrive as strings, and htmx adds keys of
its own (``HEADERS``), which are ignored. ``read`` turns one frame into one of the
frozen dataclasses below, every field checked for its type, or raises ``BadCommand``
with the refusal the page shows. Nothing here decides who may do what: the consumer's
handlers (``games.consumers``) and the services check who is asking, his seat and his
turn.

Cheap on purpose (a move is parsed hundreds of times a second under load): one
``json.loads``, one dict look-up for the action, plain slotted dataclasses.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from core import text
from live.sockets import UNREADABLE

if TYPE_CHECKING:
    from accounts.models import User

# Refusals, translated when shown (in the viewer's language, see TableConsumer._refuse).
UNKNOWN = _("Unknown command.")
NO_CARD = _("Choose a card to play.")

# The range of a database integer: ids, positions and versions all fit in it.
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
PICKUP_COUNT = 3  # a pick-up that names no count takes the usual three cards


class BadCommand(Exception):
    """A frame that is no command of ours; nothing was done.

    ``message`` is what the page shows (lazy: translated when shown). ``quiet``: drop
    the frame without an answer. ``needs_login``: the frame named (or may have meant)
    a command only a signed-in user sends, so a visitor is told to log in instead.
    """

    def __init__(
        self, message: str | Promise, *, quiet: bool = False, needs_login: bool = True
    ) -> None:
        super().__init__(message)
        self.message = message
        self.quiet = quiet
        self.needs_login = needs_login


@dataclass(frozen=True, slots=True)
class Asker:
    """Who sends a command, as his socket knows him: the handlers check his rights."""

    user: User
    table_id: int
    hand_id: int  # the hand his page shows (0 or less: none)


class Command:
    """One command of the table page. ``anyone``: a visitor may send it too."""

    __slots__ = ()
    action: ClassVar[str]
    anyone: ClassVar[bool] = False

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> Command:
        return cls()


# --- what anyone may send (answered in the event loop) ------------------------------------


@dataclass(frozen=True, slots=True)
class Pong(Command):
    """The page's answer to a ping: ``t`` is the ping's own (server monotonic) time."""

    action: ClassVar[str] = "pong"
    anyone: ClassVar[bool] = True
    t: float

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> Pong:
        value = content.get("t")
        try:
            t = float(value) if isinstance(value, str | int | float) else math.nan
        except ValueError:
            t = math.nan
        if not math.isfinite(t):  # an unreadable pong measures nothing: dropped unanswered
            raise BadCommand(UNREADABLE, quiet=True)
        return cls(t)


@dataclass(frozen=True, slots=True)
class Resync(Command):
    """Send me the whole table again."""

    action: ClassVar[str] = "resync"
    anyone: ClassVar[bool] = True


# --- a player's commands ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Play(Command):
    """Play ``cards`` on the hand the page shows, at its ``version``."""

    action: ClassVar[str] = "play"
    cards: tuple[str, ...]
    version: int

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> Play:
        cards = content.get("cards", "")
        if isinstance(cards, str):  # one form field: "9H" or "9H,9D,9S"
            cards = [c for c in cards.split(",") if c]
        elif not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise BadCommand(UNREADABLE)
        if not cards:
            raise BadCommand(NO_CARD)
        return cls(tuple(cards), _int(content, "version"))


@dataclass(frozen=True, slots=True)
class PickUp(Command):
    """Pick up ``count`` cards from the pile, at the page's ``version``."""

    action: ClassVar[str] = "pickup"
    count: int
    version: int

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> PickUp:
        return cls(_int(content, "count", PICKUP_COUNT), _int(content, "version"))


@dataclass(frozen=True, slots=True)
class Sit(Command):
    """Sit at ``position``, or at the first free seat (None)."""

    action: ClassVar[str] = "sit"
    position: int | None

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> Sit:
        if content.get("position") in (None, ""):
            return cls(None)
        return cls(_int(content, "position"))


@dataclass(frozen=True, slots=True)
class Leave(Command):
    action: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class AddBot(Command):
    """The owner seats a bot of ``level`` (the service knows the levels)."""

    action: ClassVar[str] = "add_bot"
    position: int
    level: str

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> AddBot:
        return cls(_int(content, "position"), _str(content, "level"))


@dataclass(frozen=True, slots=True)
class RemoveBot(Command):
    action: ClassVar[str] = "remove_bot"
    position: int

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> RemoveBot:
        return cls(_int(content, "position"))


@dataclass(frozen=True, slots=True)
class Start(Command):
    action: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True)
class Rematch(Command):
    action: ClassVar[str] = "rematch"


@dataclass(frozen=True, slots=True)
class Chat(Command):
    """A chat line (the service trims it and judges its length)."""

    action: ClassVar[str] = "chat"
    text: str

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> Chat:
        return cls(_str(content, "text"))


# --- a moderator's commands (moderation.services checks the permission) -----------------


@dataclass(frozen=True, slots=True)
class HideChat(Command):
    action: ClassVar[str] = "hide_chat"
    message: int
    reason: str

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> HideChat:
        return cls(_int(content, "message"), _str(content, "reason"))


@dataclass(frozen=True, slots=True)
class AbortHand(Command):
    action: ClassVar[str] = "abort_hand"
    reason: str

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> AbortHand:
        return cls(_str(content, "reason"))


@dataclass(frozen=True, slots=True)
class AnnulMatch(Command):
    action: ClassVar[str] = "annul_match"
    reason: str

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> AnnulMatch:
        return cls(_str(content, "reason"))


@dataclass(frozen=True, slots=True)
class RemovePlayer(Command):
    action: ClassVar[str] = "remove_player"
    user: int
    reason: str

    @classmethod
    def from_json(cls, content: dict[str, Any]) -> RemovePlayer:
        return cls(_int(content, "user"), _str(content, "reason"))


COMMANDS: dict[str, type[Command]] = {
    cls.action: cls
    for cls in (
        Pong,
        Resync,
        Play,
        PickUp,
        Sit,
        Leave,
        AddBot,
        RemoveBot,
        Start,
        Rematch,
        Chat,
        HideChat,
        AbortHand,
        AnnulMatch,
        RemovePlayer,
    )
}


def read(text: str | None, *, max_length: int) -> Command:
    """One websocket text frame as a command."""
    if text is None or len(text) > max_length:
        raise BadCommand(UNREADABLE, needs_login=False)
    try:
        content = json.loads(text)
    except ValueError:
        raise BadCommand(UNREADABLE, needs_login=False) from None
    return parse(content)


def parse(content: Any) -> Command:
    """A decoded JSON frame as a command; ``BadCommand`` says what is wrong with it."""
    if not isinstance(content, dict):
        raise BadCommand(UNREADABLE, needs_login=False)
    action = content.get("action")
    cls = COMMANDS.get(action) if isinstance(action, str) else None
    if cls is None:
        raise BadCommand(UNKNOWN)
    try:
        return cls.from_json(content)
    except BadCommand as bad:
        bad.needs_login = not cls.anyone
        raise


def _int(content: dict[str, Any], key: str, default: int | None = None) -> int:
    """A whole number, as a form sends it (a string) or as JSON does."""
    value = content.get(key, default)
    if type(value) is not int:  # bool is no number here; nor is 1.5
        if not isinstance(value, str):
            raise BadCommand(UNREADABLE)
        try:
            value = int(value)
        except ValueError:
            raise BadCommand(UNREADABLE) from None
    if not INT_MIN <= value <= INT_MAX:
        raise BadCommand(UNREADABLE)
    return value


def _str(content: dict[str, Any], key: str) -> str:
    """Text, empty when the form left it out (the service says what is missing)."""
    value = content.get(key, "")
    if not isinstance(value, str):
        raise BadCommand(UNREADABLE)
    if not text.is_storable(value):
        raise BadCommand(text.BAD_TEXT)
    return value
