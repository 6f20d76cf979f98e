"""HTML fragments sent over the websockets, rendered from the page templates' partials.

Every fragment's root element carries its id and ``hx-swap-oob``, so htmx's ws
extension swaps it into the page in place. A move changes only the hand's parts
(``HAND_PARTIALS``, the same for every viewer, and one's own hand); of the players'
boxes, a page that shows the last move's gets only those that changed; the seats are
sent again only when they may have changed.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import replace

from django.conf import settings
from django.template.backends.django import Template
from django.template.loader import get_template, render_to_string
from django.utils import translation
from django.utils.html import format_html
from django.utils.safestring import SafeString

from accounts.models import User
from accounts.permissions import PERM_INTERVENE, may
from games import selectors
from games.models import Table
from games.templatetags import pan

# What a move changes, the same for every viewer (the owner's start and rematch buttons
# aside): render once per kind of view and share.
HAND_PARTIALS = ("status", "players", "pile", "log")
TABLE_PARTIALS = (*HAND_PARTIALS, "myhand", "seats", "rated")
# Compiled with them (``load_partials``): a seated viewer's own report button.
OTHER_PARTIALS = ("ring", "report-player")


def _partial(name: str) -> Template:
    """A partial of the table page, looked up once (a move renders several per process;
    in development each time, so that an edited template shows)."""
    if settings.DEBUG:
        return get_template(f"games/table.html#{name}")
    return _cached_partial(name)


@functools.cache
def _cached_partial(name: str) -> Template:
    return get_template(f"games/table.html#{name}")


def load_partials() -> None:
    """Compile the table page's partials now (outside development, where each render
    loads them anew), rather than on the first render of a process's first sockets."""
    if not settings.DEBUG:
        for name in (*TABLE_PARTIALS, *OTHER_PARTIALS):
            _cached_partial(name)


def _partials(view: selectors.TableView, names: tuple[str, ...]) -> str:
    context = {"v": view, "oob": True}
    return "".join(_partial(name).render(context) for name in names)


def table_fragments(view: selectors.TableView) -> str:
    """All the parts of the table page that change, for one viewer."""
    return _partials(view, TABLE_PARTIALS)


def player_boxes(view: selectors.TableView) -> list[SafeString]:
    """Each player's box, by seat: the players' section's parts (``hand_fragments``)."""
    return pan.player_boxes(view)


def hand_fragments(
    view: selectors.TableView,
    *,
    boxes: list[SafeString] | None = None,
    shown: list[SafeString] | None = None,
) -> str:
    """The parts a move changes that every viewer sees alike (``HAND_PARTIALS``: the
    partials draw the last three with these tags). ``boxes``: the players' boxes, drawn
    (``pan.player_boxes``); ``shown``: the boxes the page shows now, when known: then
    only the boxes that changed are sent, each in its place (a move changes the mover's
    and the next player's), else the whole players' section."""
    boxes = pan.player_boxes(view) if boxes is None else boxes
    players = pan.changed_boxes(boxes, shown) if shown is not None else None
    if players is None:
        players = pan.players_section(view, oob=True, boxes=boxes)
    return (
        status_fragment(view)
        + players
        + pan.pile_section(view, oob=True)
        + pan.log_section(view, oob=True)
    )


# The status of a hand in play changes with a move only in its version: drawn once per
# hand and look, with this mark for the version, and kept (drawing it anew would cost
# every move of every table).
_VERSION_MARK = -1
_VERSION_ATTRIBUTE = 'data-version="{}"'
_STATUS_KEPT = 1024
_statuses: dict[tuple, str] = {}
_statuses_lock = threading.Lock()


def status_fragment(view: selectors.TableView) -> str:
    """The hand's status line (``HAND_PARTIALS[0]``) for every viewer alike."""
    hand, match = view.hand, view.match
    if (
        settings.DEBUG
        or hand is None
        or match is None
        or hand.is_over
        or view.match_over
        or view.tournament_over
    ):
        return _partials(view, ("status",))
    key = (
        translation.get_language(),
        hand.pk,
        hand.commitment,
        view.hands_count,
        view.outcome_text,
        match.status,
        view.can_start,
        view.can_rematch,
    )
    html = _statuses.get(key)
    if html is None:
        html = _partials(replace(view, version=_VERSION_MARK), ("status",))
        with _statuses_lock:
            if len(_statuses) >= _STATUS_KEPT:
                _statuses.clear()
            _statuses[key] = html
    return html.replace(
        _VERSION_ATTRIBUTE.format(_VERSION_MARK), _VERSION_ATTRIBUTE.format(view.version), 1
    )


def my_hand_fragment(view: selectors.TableView) -> str:
    """One's own hand and moves (a spectator's is empty)."""
    return pan.my_hand_section(view, oob=True)


def seats_fragment(view: selectors.TableView) -> str:
    """The seats: the list with its tools, and before the first match the places around
    the felt (whose "Sit here" depends on the viewer as the list's tools do); and whether
    the match will be rated, which depends on who sits (``TableView.rated_as``)."""
    return _partials(view, ("ring", "seats", "rated"))


@functools.cache
def _signed_in_spectator() -> User:
    """Who stands in for a signed-in viewer in a render of the seats shared by every
    viewer of his kind: a user who holds no seat (a report button at every seat a user
    holds) and no rights (no moderator's tools)."""
    user = User(username="")
    user.rights_held = False
    return user


def seats_kind(view: selectors.TableView) -> tuple | None:
    """What the seats fragment (``seats_fragment``) shows of its viewer, but for his own
    report buttons: every viewer of one kind is shown the same (``seats_for``). None for
    a viewer whose seats are his own: a moderator (his tools at every seat) or a bot
    account (an owner's seat of his own shows no "remove")."""
    viewer = view.viewer
    if viewer is not None and (viewer.is_bot_account or may(viewer, PERM_INTERVENE)):
        return None
    return (
        viewer is not None,
        view.is_owner and view.table.status != Table.Status.PLAYING,  # the owner's tools
        view.can_sit,
        # The seats around the felt, drawn before the first match, turn to his own.
        view.my_position if view.match is None else view.my_position is not None,
    )


def seats_of_kind(view: selectors.TableView) -> str:
    """The seats as every viewer of ``view``'s kind sees them (``seats_kind``), with a
    report button at every seat a user holds when the viewer is signed in."""
    if view.viewer is None:
        return seats_fragment(view)
    return seats_fragment(replace(view, viewer=_signed_in_spectator()))


def seats_for(view: selectors.TableView, of_kind: str) -> str:
    """``seats_fragment(view)`` from the seats of the viewer's kind (``seats_of_kind``):
    without the report buttons at his own seats."""
    viewer = view.viewer
    if viewer is None or not any(seat.user_id == viewer.pk for seat in view.seats):
        return of_kind
    own = _partial("report-player").render(
        {"seat": {"user_id": viewer.pk}, "v": {"table": {"pk": view.table.pk}}}
    )
    return of_kind.replace(own, "")


def presence_fragment(user_id: int, *, connected: bool) -> str:
    """A player's presence mark, drawn once per look and language and kept (every socket
    that opens shows its user present at every socket of the table: four draws each)."""
    return pan.small_part("games/_presence.html", user_id=user_id, connected=connected, oob=True)


def notice_fragment(message: str) -> str:
    return render_to_string("games/table.html#notice", {"notice": message, "oob": True})


def chat_fragment(table_id: int, *, viewer: User | None) -> str:
    return render_to_string(
        "games/table.html#chat",
        {"chat": selectors.visible_chat(table_id), "viewer": viewer, "oob": True},
    )


def lobby_fragment() -> str:
    """The lobby's open tables and its TV table, which change together (a match starting
    or ending changes both)."""
    return render_to_string(
        "games/home.html#tables", {"tables": selectors.lobby_tables(), "oob": True}
    ) + render_to_string("games/home.html#tv", {"tv": selectors.tv_table(), "oob": True})


def ping_fragment(sent: float) -> str:
    return format_html('<div id="ws-ping" hx-swap-oob="true" data-ping="{}"></div>', f"{sent:.6f}")
