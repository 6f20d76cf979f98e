"""``/ws/me/``: the socket every page of a signed-in user holds (``templates/social/bar.html``).

It shows the challenges to its user as they come and go, on any page: on each
``challenge.changed`` event of the user's group it sends the list of his open incoming
challenges as an out-of-band fragment (Accept and Decline forms with a CSRF token for
the socket's own cookie). To a challenger it sends the news of his challenge: accepted
(the page goes to the table) or declined (with the reason). On ``my_games.changed`` it
sends the header's count of the correspondence games waiting for the user's move. While
open it counts as its user being online (``social.presence``).

The page usually holds another socket too (a table, the lobby, a tournament), which
shows what moderation and the tournaments send to the user; this one leaves those to
it, so that nothing shows twice, and only closes on a kick.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import User
from core.csrf import socket_csrf_token
from games import selectors as games_selectors
from live import CLOSE_BANNED, LiveSocket, in_pool
from social import selectors
from social.models import Challenge
from social.presence import SEEN, SEEN_EVERY

# What the floors above show on this socket (the notifications' bell): an event type of
# the user's group -> the fragment it draws for the socket's own user, in the socket's
# language, given the socket's CSRF token for its forms ("" draws nothing). The event
# carries no content of its own: whatever it says, a user is only ever drawn his own.
MeFragment = Callable[[User, str], str]
ME_FRAGMENTS: dict[str, MeFragment] = {}


def register_me_fragment(event_type: str, draw: MeFragment) -> None:
    ME_FRAGMENTS[event_type] = draw


class MeConsumer(LiveSocket):
    """The user's own socket: it only listens."""

    signed_in_only = True
    alive: asyncio.Task | None = None

    async def dispatch(self, message: dict[str, Any]) -> None:
        draw = ME_FRAGMENTS.get(message.get("type", ""))
        if draw is None:
            await super().dispatch(message)
            return
        html = await in_pool(self._draw)(draw)
        if html:
            await self.send(text_data=html)

    def _draw(self, draw: MeFragment) -> str:
        with translation.override(self.language):
            return draw(self.user, socket_csrf_token(self.scope))

    async def opened(self) -> None:
        await in_pool(SEEN.seen)(self.user.pk, now=time.time())
        self.alive = asyncio.ensure_future(self._seen_while_open())
        html = await in_pool(self._render_incoming)(only_if_any=True)
        if html:
            await self.send(text_data=html)

    async def closing(self) -> None:
        if self.alive is not None:
            self.alive.cancel()

    async def _seen_while_open(self) -> None:
        """Seen now and every half ``SEEN_EVERY`` (the book writes at most once in one),
        so that an open page never lets its user look offline."""
        user_id = self.user.pk
        while True:
            await asyncio.sleep(SEEN_EVERY / 2)
            await in_pool(SEEN.seen)(user_id, now=time.time())

    # --- challenges ------------------------------------------------------------------------

    async def challenge_changed(self, event: dict[str, Any]) -> None:
        if event.get("role") == "challenged":
            html = await in_pool(self._render_incoming)(only_if_any=False)
        else:
            html = await in_pool(self._render_news)(int(event["challenge"]))
        if html:
            await self.send(text_data=html)

    def _render_incoming(self, *, only_if_any: bool) -> str:
        challenges = selectors.incoming_challenges(user=self.user)
        if only_if_any and not challenges:
            return ""
        with translation.override(self.language):
            return render_to_string(
                "social/bar.html#incoming",
                {
                    "bar_challenges": challenges,
                    "oob": True,
                    "csrf_token": socket_csrf_token(self.scope),
                },
            )

    def _render_news(self, challenge_id: int) -> str:
        """The challenger's news: accepted (take the page to the table) or declined."""
        challenge = selectors.challenge_for(challenge_id=challenge_id, user=self.user)
        if challenge is None or challenge.challenger_id != self.user.pk:
            return ""
        part = {
            Challenge.Status.ACCEPTED: "accepted",
            Challenge.Status.DECLINED: "declined",
        }.get(challenge.status)
        if part is None:
            return ""
        with translation.override(self.language):
            return render_to_string(f"social/bar.html#{part}", {"c": challenge})

    # --- my games: the header's count of games waiting for his move -----------------------

    async def my_games_changed(self, event: dict[str, Any]) -> None:
        """A turn of one of his correspondence games passed (``games.events``)."""
        await self.send(text_data=await in_pool(self._render_waiting_count)())

    def _render_waiting_count(self) -> str:
        count = games_selectors.waiting_count(user=self.user)
        with translation.override(self.language):
            return render_to_string(
                "games/_my_games_link.html#count", {"count": count, "oob": True}
            )

    # --- the user's group: what the page's other socket shows ----------------------------

    async def user_kick(self, event: dict[str, Any]) -> None:
        """Banned or logged out everywhere: close (the page's other socket, if any, says why)."""
        await self.leave_groups()
        await self.close(code=CLOSE_BANNED)

    async def user_follow(self, event: dict[str, Any]) -> None:
        """A tournament's move of its player: the page's own socket takes him there."""

    async def user_notice(self, event: dict[str, Any]) -> None:
        """Shown by the page's own socket."""
