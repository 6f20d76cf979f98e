"""What one viewer of a table is sent: the parts of the hand every viewer of a kind sees
alike (built once per process and event, ``LIVE.shared_at``), his own hand (built only
when it changed), the players' boxes changed since his page last drew them, and on a
whole table the seats.

``ViewerFrames`` is one socket's memory of what its page shows; the table's socket
(``games.consumers.TableConsumer``) asks it for the frames of each table it reads. It
renders from a snapshot alone (in the event loop) and reads nothing from the database.
"""

from __future__ import annotations

from collections.abc import Callable
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
    last table sent, the key of the last own hand sent, and the event whose shared
    render last drew the players' boxes (None: a render of his own drew them)."""

    table_id: int
    language: str
    user: User | None
    position: tuple[int, int] = (-1, -1)
    my_hand_key: tuple | None = None
    boxes_event: str | None = None

    def signed_in(self) -> bool:
        return self.user is not None and self.user.is_authenticated

    def behind(self, snapshot: selectors.TableSnapshot) -> bool:
        """Whether ``snapshot`` is older than what the page shows."""
        return snapshot.position < self.position

    def frames(self, snapshot: selectors.TableSnapshot, full: bool, event: str | None) -> str:
        """This viewer's fragments of the table at an event: the hand's parts shared by
        kind of view, the own hand when it changed, and on a full render the seats.

        A move at a table in play shows every viewer the same shared parts (nobody has a
        start or rematch button then); a viewer's own view is built only when his own
        hand's fragment changes (``own_key``): at a table of four, for the player who
        moved and the one whose turn it is."""
        own_key = own_hand_key(snapshot, self.user if self.signed_in() else None)
        if not full and snapshot.table.status == Table.Status.PLAYING:
            # Translated only where something is drawn: most sockets take the shared
            # parts another socket drew, and their own hand has not changed.
            shown = self.boxes_event
            shared = lambda: self._hand_parts(snapshot, event, shown)  # noqa: E731
            parts = [self._shared(("hand", event, False, False, shown), shared)]
            self.boxes_event = event
            if own_key != self.my_hand_key:
                with translation.override(self.language):
                    view = selectors.table_view(
                        snapshot=snapshot, viewer=self.user, with_chat=False
                    )
                    parts.append(renderers.my_hand_fragment(view))
                self.my_hand_key = own_key
            self.position = snapshot.position
            return "".join(parts)
        self.boxes_event = None
        # A fresh read's render is shared by the sockets that took the same read (a page
        # load's, a restart's four seats), by the moment of the read.
        drawn = event if event is not None else f"read@{snapshot.taken_at.isoformat()}"
        with translation.override(self.language):
            view = selectors.table_view(snapshot=snapshot, viewer=self.user, with_chat=False)
            parts = [
                self._shared(
                    ("hand", drawn, view.can_start, view.can_rematch),
                    lambda: renderers.hand_fragments(view),
                )
            ]
            if full or own_key != self.my_hand_key:
                parts.append(renderers.my_hand_fragment(view))
                self.my_hand_key = own_key
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

    def _hand_parts(
        self, snapshot: selectors.TableSnapshot, event: str | None, shown: str | None
    ) -> str:
        """The parts of a hand in play every viewer sees alike, in this viewer's language,
        for a page whose players' boxes the shared render at ``shown`` drew: only the
        boxes changed since then, when that render's boxes are still kept."""
        with translation.override(self.language):
            view = selectors.table_view(snapshot=snapshot, viewer=None, with_chat=False)
            boxes = renderers.player_boxes(view)
            before = LIVE.boxes_since(self.table_id, self.language, event, shown, boxes)
            return renderers.hand_fragments(view, boxes=boxes, shown=before)

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
