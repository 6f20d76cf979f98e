"""What one viewer of a table is sent: the parts of the hand every viewer of a kind sees
alike (built once per process and event, ``LIVE.shared_at``), of which a move sends only
what changed since the render his page shows, his own hand (built only when it changed,
and then too only what changed sent), and on a whole table the seats.

``ViewerFrames`` is one socket's memory of what its page shows; the table's socket
(``games.consumers.TableConsumer``) asks it for the frames of each table it reads. It
renders from a snapshot alone (in the event loop) and reads nothing from the database.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from django.utils import timezone, translation

from accounts.models import User
from games import renderers, selectors
from games.models import Table, to_instant
from live import LIVE


@dataclass
class ViewerFrames:
    """One viewer (``user``: None or anonymous for a visitor) of ``table_id`` in
    ``language``, and what his page shows: ``position`` (hand id, hand version) of the
    last table sent, the key of the last own hand sent and that hand as drawn
    (``my_hand``), and the shared render whose parts it shows (``shown``: what they
    show is kept by ``LIVE.keep_shown`` under it)."""

    table_id: int
    language: str
    user: User | None
    position: tuple[int, int] = (-1, -1)
    my_hand_key: tuple | None = None
    my_hand: renderers.HandShown | None = None
    shown: Hashable | None = None

    def signed_in(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    def behind(self, snapshot: selectors.TableSnapshot) -> bool:
        """Whether ``snapshot`` is older than what the page shows."""
        return snapshot.position < self.position

    def frames(self, snapshot: selectors.TableSnapshot, full: bool, event: str | None) -> str:
        """This viewer's fragments of the table at an event: the hand's parts shared by
        kind of view, the own hand when it changed, and on a full render the seats.

        A move at a table in play shows every viewer the same shared parts (nobody has a
        start or rematch button then); a page that shows a shared render still kept is
        sent only what changed since (one render for all the pages that show the same
        one). A viewer's own view is built only when his own hand's fragment changes
        (``own_key``): at a table of four, for the player who moved and the one whose
        turn it is; then too only what changed in it is sent."""
        own_key = own_hand_key(snapshot, self.user if self.signed_in() else None)
        if not full and snapshot.table.status == Table.Status.PLAYING:
            # Translated only where something is drawn: most sockets take the shared
            # parts another socket drew, and their own hand has not changed.
            shown, drawn = self.shown, ("hand", event)
            changes = lambda: self._changes(snapshot, drawn, shown)  # noqa: E731
            shared = self._shared(("moved", event, shown), changes)
            self.shown = drawn
            if own_key == self.my_hand_key:
                self.position = snapshot.position
                return shared
            with translation.override(self.language):
                view = selectors.table_view(snapshot=snapshot, viewer=self.user, with_chat=False)
                mine = renderers.my_hand(view)
                page = None if shown is None else LIVE.shown(self.table_id, self.language, shown)
                came, rest = renderers.my_hand_changes(
                    self.my_hand, mine, on_pile=page.pile if page is not None else ()
                )
                shared = renderers.faces_from_hand(shared, self.my_hand, mine)
            self.my_hand, self.my_hand_key = mine, own_key
            self.position = snapshot.position
            return came + shared + rest
        # A fresh read's render is shared by the sockets that took the same read (a page
        # load's, a restart's four seats), by the moment of the read.
        drawn = event if event is not None else f"read@{snapshot.taken_at.isoformat()}"
        with translation.override(self.language):
            view = selectors.table_view(snapshot=snapshot, viewer=self.user, with_chat=False)
            key = ("hand", drawn, view.can_start, view.can_rematch)
            parts = [self._shared(key, lambda: self._whole(view, key))]
            self.shown = key
            if full or own_key != self.my_hand_key:
                mine = renderers.my_hand(view)
                parts.append(mine.html)
                self.my_hand, self.my_hand_key = mine, own_key
            if full:
                parts.append(self._seats(view, drawn))
        self.position = snapshot.position
        return "".join(parts)

    def _seats(self, view: selectors.TableView, drawn: str) -> str:
        """The seats: drawn once for every viewer of a kind (a seated player's differ from
        a spectator's only by the report button at his own seat, taken out), but for a
        moderator, whose tools are his own."""
        kind = renderers.seats_kind(view)
        if kind is None:
            return renderers.seats_fragment(view)
        of_kind = self._shared(("seats", drawn, *kind), lambda: renderers.seats_of_kind(view))
        return renderers.seats_for(view, of_kind)

    def _changes(
        self, snapshot: selectors.TableSnapshot, drawn: Hashable, shown: Hashable | None
    ) -> str:
        """The parts of a hand in play every viewer sees alike, in this viewer's language,
        for a page that shows the shared render ``shown``: only what changed since, when
        what that render showed is still kept, else whole."""
        with translation.override(self.language):
            view = selectors.table_view(snapshot=snapshot, viewer=None, with_chat=False)
            now = renderers.shared_parts(view)
            LIVE.keep_shown(self.table_id, self.language, drawn, now)
            before = None if shown is None else LIVE.shown(self.table_id, self.language, shown)
            if before is None:
                return now.html
            return renderers.shared_changes(before, now)

    def _whole(self, view: selectors.TableView, drawn: Hashable) -> str:
        """The parts of the hand every viewer of this kind sees alike, whole."""
        now = renderers.shared_parts(view)
        LIVE.keep_shown(self.table_id, self.language, drawn, now)
        return now.html

    def _shared(self, key: tuple, render: Callable[[], str]) -> str:
        """A fragment shared by the viewers of this process alike at one event."""
        return LIVE.shared_at(self.table_id, self.language, key, render)


def overdue(snapshot: selectors.TableSnapshot) -> bool:
    """Whether the snapshot shows the clock of the seat to move run out."""
    hand = snapshot.hand
    return hand is not None and hand.clock.flagged(to_instant(timezone.now())) is not None


def own_hand_key(snapshot: selectors.TableSnapshot, user: User | None) -> tuple:
    """Everything one's own hand's fragment shows, read from the snapshot without
    building the view: the same key, the same fragment (``renderers.my_hand_fragment``).
    Its moves change with the version while it is his turn."""
    hand, state = snapshot.hand, snapshot.state
    if hand is None or state is None:
        return (None,)
    seat = next(
        (p.seat for p in snapshot.match_players if user is not None and p.user_id == user.pk),
        None,
    )
    if seat is None:
        return (hand.pk, None, hand.is_over)
    return (
        hand.pk,
        seat,
        state.hand(seat),
        hand.version if seat == state.to_move else None,
        hand.outcome is None and hand.clock.running == seat,
        hand.is_over,
    )
