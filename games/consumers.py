"""Websocket edge of the games app: the table's socket and its commands.

``TableConsumer`` speaks htmx's ws extension: the browser sends form values as JSON
(``ws-send``), the server answers with HTML fragments that htmx swaps in by id
(out-of-band). Every command is checked for who is asking; a refused one gets a
refusal fragment and changes nothing. A move goes to ``services.execute_async`` (the
one move pipeline, ``games.services.moves``); every other command is one service call
in the pool.

What every socket shares (limits, the user's group, the dispatch loop, the table
memory and its shared renders) is the live room's (``live``). On a group event the
sockets of one process read the table once (``LIVE``, on the games' snapshots,
``selectors.SnapshotSource``); what each viewer is sent of it is
``games.viewer_frames``. The lobby's socket is ``games.consumers_lobby``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _

from accounts import selectors as accounts_selectors
from games import commands, events, renderers, selectors, services
from games.commands import (
    AddBot,
    Asker,
    Chat,
    Command,
    Leave,
    PickUp,
    Play,
    Pong,
    Rematch,
    RemoveBot,
    Resync,
    Sit,
    Start,
)
from games.consumers_moderation import MODERATOR_HANDLERS
from games.viewer_frames import ViewerFrames, overdue
from live import LIVE, LOG_IN, MAX_FRAME, PING_EVERY, PONGS, LiveSocket, in_pool
from live.presence import PONG_RECORD_EVERY, mark_absent, mark_present
from live.tables import NoSuchTable


class TableConsumer(LiveSocket):
    """One viewer of one table: a seated player or a spectator."""

    table_id: int
    viewer: ViewerFrames  # what this socket's page shows
    pong_recorded: float = float("-inf")
    joined_at: float = float("-inf")  # when it joined the table's group
    pinger: asyncio.Task | None = None

    async def admission(self) -> int | None:
        """May this viewer watch the table? Judged on the table's fresh read, which the
        page needs anyway and which the sockets opening together share (``LIVE.fresh``):
        the group is joined first, so the read misses no change. Only a viewer the read
        does not show in (a private table) costs a query of his own."""
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.viewer = ViewerFrames(self.table_id, self.language, self.user)
        await self.join(self.listen())
        self.joined_at = time.monotonic()  # every change after this reaches the socket
        try:
            snapshot = await LIVE.fresh(self.table_id, since=self.joined_at)
        except NoSuchTable:
            return self.refused_code
        invited = (self.scope.get("session") or {}).get("invited_tables", [])
        if selectors.sees_table(snapshot, self.user, invited):
            return None
        if await in_pool(selectors.can_view_table)(snapshot.table, self.user, invited):
            return None
        return self.refused_code

    def listen(self) -> list[str]:
        return [events.table_group(self.table_id)]

    async def opened(self) -> None:
        if self._is_user():
            await mark_present(self.table_id, self.user.pk)
        await self._send_table(full=True, since=self.joined_at)
        if self._has_presence_mark():
            await events.presence_changed(self.table_id, self.user.pk, connected=True)
        self.pinger = asyncio.create_task(self._ping_forever())

    async def closing(self) -> None:
        if self.pinger is not None:
            # Let go of it: cancelled, it keeps its CancelledError, whose traceback holds
            # its frame and so this socket, a cycle that only a complete collection
            # would free (core.collector).
            self.pinger, pinger = None, self.pinger
            pinger.cancel()
            if self._is_user():
                PONGS.forget(self.table_id, self.user.pk)
                await mark_absent(self.table_id, self.user.pk)
                if self._has_presence_mark():
                    await events.presence_changed(self.table_id, self.user.pk, connected=False)

    # --- presence and lag ---------------------------------------------------------------

    def _is_user(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    def _has_presence_mark(self) -> bool:
        """Only a player of the hand has a mark on the table's pages: the comings and
        goings of anyone else (a spectator) would be fragments with no place to go."""
        return self._is_user() and LIVE.shows_presence(self.table_id, self.user.pk)

    async def _ping_forever(self) -> None:
        while True:
            await self.send(text_data=renderers.ping_fragment(time.monotonic()))
            await asyncio.sleep(PING_EVERY)

    async def presence_changed(self, event: dict[str, Any]) -> None:
        LIVE.presence_seen(self.table_id, int(event["user"]), connected=bool(event["on"]))
        with translation.override(self.language):
            html = renderers.presence_fragment(int(event["user"]), connected=bool(event["on"]))
        await self.send(text_data=html)

    # --- commands from the browser ----------------------------------------------------------

    async def command(self, text: str) -> None:
        try:
            command = commands.read(text, max_length=MAX_FRAME)
        except commands.BadCommand as bad:
            if not bad.quiet:
                visitor = bad.needs_login and not self._is_user()
                await self.refuse(LOG_IN if visitor else bad.message)
            return
        if command.anyone:
            await LOOP_HANDLERS[type(command)](self, command)
            return
        if not self._is_user():
            await self.refuse(LOG_IN)
            return
        try:
            if isinstance(command, MOVE_COMMANDS):
                await self._move(command)
            else:
                await in_pool(self._run)(command)
        except services.Refused as refusal:
            await self.refuse(refusal.message)
            if refusal.resync:
                await self._send_table(full=True)

    async def _on_pong(self, command: Pong) -> None:
        now = time.monotonic()
        lag_ms = max(0, int((now - command.t) * 1000))
        if self._is_user() and lag_ms < 60_000 and now - self.pong_recorded >= PONG_RECORD_EVERY:
            self.pong_recorded = now
            PONGS.record(self.table_id, self.user.pk, lag_ms)

    async def _on_resync(self, command: Resync) -> None:
        await self._send_table(full=True)

    async def _move(self, command: Play | PickUp) -> None:
        """A move, on the hand this page shows, through the one move pipeline. It runs in
        the consumer's own task: a task of its own would cost two turns of the event loop
        (its start, then waking the consumer). A socket that closes does not cut it: the
        consumer takes the close after the move."""
        hand_id, user = self.viewer.position[0], self.user
        if hand_id <= 0:
            raise services.Refused(_("No hand is being played here."))
        if isinstance(command, Play):
            action = services.Play(hand_id, command.version, command.cards, user)
        else:
            action = services.PickUp(hand_id, command.version, command.count, user)
        with translation.override(self.language):
            await services.execute_async(action, known=LIVE.known(self.table_id))

    def _run(self, command: Command) -> None:
        """One signed-in user's command as one service call (every check of who may do
        it, his seat and his turn lives in the service), in the pool."""
        with translation.override(self.language):
            asker = Asker(user=self.user, table_id=self.table_id, hand_id=self.viewer.position[0])
            SERVICE_HANDLERS[type(command)](asker, command)

    async def refuse(self, message: str | Promise) -> None:
        """Show a refusal, translated in the viewer's language (``message`` may be lazy)."""
        with translation.override(self.language):
            html = renderers.notice_fragment(str(message))
        await self.send(text_data=html)

    # --- events from the group -----------------------------------------------------------------

    async def table_changed(self, event: dict[str, Any]) -> None:
        hand, version = event.get("hand"), event.get("version")
        full = hand is None or version is None
        if not full and (hand, version) <= self.viewer.position:
            return  # an older event overtaken by a newer render: nothing new to show
        await self._send_table(
            full=full,
            event=event.get("id"),
            hand_id=hand,
            version=version,
            change=event.get("change"),
        )

    async def user_mute_changed(self, event: dict[str, Any]) -> None:
        """Muted or unmuted: the page shows (or drops) the notice by its chat form."""
        html = await in_pool(self._render_mute_notice)()
        await self.send(text_data=html)

    def _render_mute_notice(self) -> str:
        user = self.signed_in_user()
        if user is not None:
            user = accounts_selectors.user_with_mute(user)
        with translation.override(self.language):
            return render_to_string(
                "games/table.html#mute-notice", {"v": {"viewer": user}, "oob": True}
            )

    async def chat_changed(self, event: dict[str, Any]) -> None:
        html = await in_pool(self._render_chat)()
        await self.send(text_data=html)

    async def _send_table(
        self,
        *,
        full: bool,
        event: str | None = None,
        hand_id: int | None = None,
        version: int | None = None,
        change: dict[str, Any] | None = None,
        since: float | None = None,
    ) -> None:
        """Send this viewer the table at ``event`` (None: as a fresh read shows it, after
        ``since``)."""
        snapshot = await LIVE.snapshot(
            self.table_id,
            event=event,
            hand_id=hand_id,
            version=version,
            change=change,
            since=since,
        )
        if self.viewer.behind(snapshot) and not full:
            return
        if not full or not self._needs_pool(snapshot, event):
            # From the snapshot alone, here in the event loop: a move, or a whole table
            # whose viewer's rights are known (read with his session, ``pan_site.auth``).
            html = self.viewer.frames(snapshot, full, event)
        else:
            html = await in_pool(self._render_full)(snapshot, event)
        await self.send(text_data=html)

    def _needs_pool(self, snapshot: selectors.TableSnapshot, event: str | None) -> bool:
        """Whether the whole table needs the database before it is drawn: the viewer's
        rights (the seats' moderator tools) not read yet or held (which ones is a
        query), or a fresh read that shows a clock run out (layer 1 applies the timeout
        first)."""
        user = self.signed_in_user()
        return (user is not None and user.rights_held is not False) or (
            event is None and overdue(snapshot)
        )

    def _render_full(self, snapshot: selectors.TableSnapshot, event: str | None) -> str:
        """Everything of the table for this viewer, in a thread of the pool: on a fresh
        read the clock's layer 1 first (an overdue timeout is applied before the table
        is shown)."""
        timed_out = event is None and overdue(snapshot)
        if timed_out and services.execute(services.Timeout(snapshot.hand.pk)):
            snapshot = selectors.table_snapshot(table_id=self.table_id)
        return self.viewer.frames(snapshot, True, event)

    def _render_chat(self) -> str:
        with translation.override(self.language):
            return renderers.chat_fragment(self.table_id, viewer=self.user)


# --- the table of commands ------------------------------------------------------------------

# Answered in the event loop, for anyone (visitors too).
LOOP_HANDLERS: dict[type[Command], Callable[[TableConsumer, Any], Any]] = {
    Pong: TableConsumer._on_pong,
    Resync: TableConsumer._on_resync,
}


def _sit(asker: Asker, command: Sit) -> None:
    services.table_sit(table_id=asker.table_id, user=asker.user, position=command.position)


def _leave(asker: Asker, command: Leave) -> None:
    services.table_leave(table_id=asker.table_id, user=asker.user)


def _add_bot(asker: Asker, command: AddBot) -> None:
    services.table_add_bot(
        table_id=asker.table_id, by=asker.user, position=command.position, level=command.level
    )


def _remove_bot(asker: Asker, command: RemoveBot) -> None:
    services.table_remove_bot(table_id=asker.table_id, by=asker.user, position=command.position)


def _start(asker: Asker, command: Start) -> None:
    services.match_start(table_id=asker.table_id, by=asker.user)


def _rematch(asker: Asker, command: Rematch) -> None:
    services.match_rematch(table_id=asker.table_id, by=asker.user)


def _chat(asker: Asker, command: Chat) -> None:
    services.chat_post(table_id=asker.table_id, user=asker.user, text=command.text)


# A signed-in user's moves: through the one move pipeline (TableConsumer._move).
MOVE_COMMANDS = (Play, PickUp)

# A signed-in user's other commands: each one service call, run in the pool
# (TableConsumer._run).
SERVICE_HANDLERS: dict[type[Command], Callable[[Asker, Any], None]] = {
    Sit: _sit,
    Leave: _leave,
    AddBot: _add_bot,
    RemoveBot: _remove_bot,
    Start: _start,
    Rematch: _rematch,
    Chat: _chat,
    **MODERATOR_HANDLERS,
}
