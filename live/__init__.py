"""The live room: what every socket of the site stands on, in one daphne process.

- ``sockets.LiveSocket``: the one base of every socket (table, lobby, tournament, the
  "Play now" panel): who may open one, the limits on sockets and frames, the user's
  group and what moderation sends there, one dispatch loop on one queue.
- ``budgets``: sockets per user and per address, connections per minute, frames per
  socket.
- ``tables.LIVE``: the tables this process shows: the last snapshot of each, kept up to
  date from the moves' events without reading the database, renders shared by the
  viewers who see a table alike. A snapshot is the games app's, connected in its
  ``ready()`` (``tables.TableSource``): the live room never looks inside one.
- ``presence.PONGS``: presence and lag from the pongs, written in batches.
- The event loop's two ways to the database: ``db.in_pool`` (Django's ORM in the thread
  pool: every service and selector a socket calls) and ``adb`` (psycopg's async
  connections, a few per loop, opened with Django's parameters: a player's move, read
  and written by ``games.rows`` without a thread).
- ``layer.PubSubChannelLayer``: the project's own channel layer, Redis pub/sub.

The live room stands on core and accounts and imports no app above them
(``tests/floors``). The way of a move through it is told in docs/architecture.md.
"""

from live.budgets import (
    COMMAND_BURST,
    FLOOD_CLOSE,
    MAX_FRAME,
    SOCKETS_PER_USER,
    connection_allowed,
)
from live.db import in_pool
from live.presence import PING_EVERY, PONGS
from live.sockets import (
    CLOSE_BANNED,
    CLOSE_LIMITED,
    LOG_IN,
    UNREADABLE,
    LiveSocket,
    socket_language,
    user_is_banned,
)
from live.tables import LIVE

__all__ = [
    "CLOSE_BANNED",
    "CLOSE_LIMITED",
    "COMMAND_BURST",
    "FLOOD_CLOSE",
    "LIVE",
    "LOG_IN",
    "MAX_FRAME",
    "PING_EVERY",
    "PONGS",
    "SOCKETS_PER_USER",
    "UNREADABLE",
    "LiveSocket",
    "connection_allowed",
    "in_pool",
    "socket_language",
    "user_is_banned",
]
