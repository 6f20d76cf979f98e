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
from collections.abc import Collection
from dataclasses import dataclass, replace

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
from games.selectors.labels import card_view
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


@dataclass(frozen=True)
class Shown:
    """The parts of a hand that every viewer sees alike (``HAND_PARTIALS``), drawn whole
    (``html``), and what a page shows of them once it took them: what the next render
    compares with to send only what changed (``shared_changes``)."""

    status: str  # the status line, whole
    status_key: tuple | None  # what it shows but for its mark (None: compared whole)
    mark: str  # the status line's mark (``pan.status_mark``)
    players: str  # the players' section, whole
    boxes: tuple[pan.BoxParts, ...]
    pile: tuple[str, ...]  # the cards of the pile, the top last
    pile_html: str
    log: tuple[str, ...]  # the log's lines, the latest first
    history: int  # the hand's actions so far
    log_html: str

    @property
    def html(self) -> str:
        return self.status + self.players + self.pile_html + self.log_html


def shared_parts(view: selectors.TableView) -> Shown:
    """The hand's parts every viewer sees alike (``HAND_PARTIALS``: the partials draw
    the last three with these tags), drawn."""
    status, status_key = _status(view)
    parts = [pan.player_box_parts(p) for p in view.players]
    return Shown(
        status=status,
        status_key=status_key,
        mark=pan.status_mark(view),
        players=pan.players_section(view, oob=True, boxes=[b.whole for b in parts]),
        boxes=tuple(parts),
        pile=tuple(c.code for c in view.pile),
        pile_html=pan.pile_section(view, oob=True),
        log=tuple(view.last_actions),
        history=view.history_length,
        log_html=pan.log_section(view, oob=True),
    )


def hand_fragments(view: selectors.TableView) -> str:
    """The parts a move changes that every viewer sees alike, whole."""
    return shared_parts(view).html


# Where a move's changes go that replace no element of their own: htmx's ws extension
# swaps each top-level element of a message by its id, or as its hx-swap-oob says.
_APPEND = '<div hx-swap-oob="beforeend:#{}">{}</div>'
_PREPEND = '<div hx-swap-oob="afterbegin:#{}">{}</div>'
_AFTER = '<div hx-swap-oob="afterend:#{}">{}</div>'
_DELETE = '<i hx-swap-oob="delete:{}"></i>'


def shared_changes(before: Shown, after: Shown) -> str:
    """What a page that shows ``before`` is sent to show ``after``: of each part, what
    changed, each small piece in its place (the status's mark, a box's label, count,
    clock or lag, the cards added to the pile or taken off it and its count, the new
    lines of the log), else the part whole."""
    parts: list[str] = []
    if after.status_key is not None and after.status_key == before.status_key:
        if after.mark != before.mark:
            parts.append(after.mark)
    elif after.status != before.status:
        parts.append(after.status)
    parts.append(_boxes_changes(before, after))
    parts.append(_pile_changes(before, after))
    parts.append(_log_changes(before, after))
    return "".join(parts)


def _boxes_changes(before: Shown, after: Shown) -> str:
    if [b.rest.seat for b in before.boxes] != [b.rest.seat for b in after.boxes]:
        return after.players
    parts: list[str] = []
    for was, now in zip(before.boxes, after.boxes, strict=True):
        if was.whole == now.whole:
            continue
        if was.rest != now.rest:
            parts.append(now.whole)
            continue
        parts.extend(
            part
            for part, old in (
                (now.label, was.label),
                (now.count, was.count),
                (now.clock, was.clock),
                (now.presence, was.presence),
                (now.lag, was.lag),
            )
            if part != old and not (part is now.clock and _clock_goes_on(was, now))
        )
    return "".join(parts)


def _clock_goes_on(was: pan.BoxParts, now: pan.BoxParts) -> bool:
    """Whether a clock that starts running may stay as the page shows it: at the
    milliseconds it stopped at, less than a second ago (the page counts down from them
    from when the move reached it, static/js/table.js), on the same side of ten seconds."""
    before, after = was.player.clock_ms, now.player.clock_ms
    return (
        now.player.to_move
        and not was.player.to_move
        and 0 <= before - after < 1000
        and (before < 10_000) == (after < 10_000)
    )


def _pile_changes(before: Shown, after: Shown) -> str:
    was, now = before.pile, after.pile
    if was == now:
        return ""
    kept = 0
    while kept < min(len(was), len(now)) and was[kept] == now[kept]:
        kept += 1
    if not kept:  # the pile was empty, or is, or another one: whole
        return after.pile_html
    parts = []
    if len(was) > kept:  # picked up: the top cards go
        parts.append(_DELETE.format(f"#pile-cards>:nth-last-child(-n+{len(was) - kept})"))
    if len(now) > kept:
        language = translation.get_language()
        cards = "".join(pan.pile_card(card_view(c, language)) for c in now[kept:])
        parts.append(_APPEND.format("pile-cards", cards))
    parts.append(pan.pile_count(len(now)))
    return "".join(parts)


def _log_changes(before: Shown, after: Shown) -> str:
    was, now = before.log, after.log
    if was == now and before.history == after.history:
        return ""
    new = after.history - before.history
    if not was or not 0 < new < len(now) or now[new:] != was[: len(now) - new]:
        return after.log_html
    last = after.history - 1
    lines = "".join(pan.log_line(line, last - i) for i, line in enumerate(now[:new]))
    parts = [_PREPEND.format("log-lines", lines)]
    if len(was) + new > len(now):  # the oldest lines leave the log
        parts.append(_DELETE.format(f"#log-lines>:nth-child(n+{len(now) + 1})"))
    return "".join(parts)


# The status of a hand in play changes with a move only in its mark: drawn once per
# hand and look, the mark put in at each move, and kept (drawing it anew would cost
# every move of every table).
_MARK_START = '<input id="table-status" '
_STATUS_KEPT = 1024
_statuses: dict[tuple, tuple[str, str]] = {}
_statuses_lock = threading.Lock()


def status_fragment(view: selectors.TableView) -> str:
    """The hand's status line (``HAND_PARTIALS[0]``) for every viewer alike."""
    return _status(view)[0]


def _status(view: selectors.TableView) -> tuple[str, tuple | None]:
    """The status line, and what it shows but for its mark (None: a hand over, or none)."""
    hand, match = view.hand, view.match
    if hand is None or match is None or hand.is_over or view.match_over or view.tournament_over:
        return _partials(view, ("status",)), None
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
    if settings.DEBUG:
        return _partials(view, ("status",)), key
    kept = _statuses.get(key)
    if kept is None:
        html = _partials(view, ("status",))
        start = html.index(_MARK_START)
        kept = (html[:start], html[html.index(">", start) + 1 :])
        with _statuses_lock:
            if len(_statuses) >= _STATUS_KEPT:
                _statuses.clear()
            _statuses[key] = kept
    return kept[0] + pan.status_mark(view) + kept[1], key


@dataclass(frozen=True)
class HandShown:
    """One's own hand and moves, drawn whole (``html``), and what a page shows of it:
    what the next render compares with (``my_hand_changes``)."""

    html: str
    shape: tuple  # the seat, whether the hand is in play, and which parts it has
    cards: tuple[tuple[selectors.CardView, bool, bool], ...]  # card, legal, first
    moves: str  # the moves of several cards, the pick-ups and "Your turn"


def my_hand(view: selectors.TableView) -> HandShown:
    """One's own hand and moves (a spectator's is empty), drawn."""
    playing = view.hand is not None and not view.hand.is_over
    return HandShown(
        html=pan.my_hand_section(view, oob=True, include=f"#{TABLE_STATUS}"),
        shape=(view.my_seat, view.hand_in_play, bool(view.my_cards), playing),
        cards=tuple(pan.hand_states(view.my_cards, view.playable)),
        moves=pan.my_moves(view) if view.my_seat is not None else "",
    )


def my_hand_fragment(view: selectors.TableView) -> str:
    """One's own hand and moves (a spectator's is empty), whole."""
    return my_hand(view).html


def my_hand_changes(
    before: HandShown | None, after: HandShown, on_pile: Collection[str] = ()
) -> tuple[str, str]:
    """What a page that shows the hand ``before`` is sent to show ``after``: the cards
    that left it go, those that came are put in their places (with their faces taken
    from the pile when the page shows them there: ``on_pile``), the buttons of those
    that changed (whether they may be played) are drawn again without their faces, and
    the moves are drawn again if they changed; else, or when
    that is not shorter, the hand whole. In two parts: the cards that came go before the
    hand's shared parts (which may take the pile's cards away), the rest after them
    (the pile may take the faces of the cards played)."""
    if before is None or before.shape != after.shape:
        return "", after.html
    if [(c, legal) for c, legal, _ in before.cards] == [
        (c, legal) for c, legal, _ in after.cards
    ] and before.moves == after.moves:
        return "", ""
    explain = after.shape[1]
    # Which card holds the tab stop is not sent: the page gives it to the first card that
    # may be played, else the first (static/js/table-keys.js), as the whole hand has it.
    was = {c.code: legal for c, legal, _first in before.cards}
    now = {c.code for c, _legal, _first in after.cards}
    came: list[str] = []
    parts: list[str] = []
    gone = [code for code in was if code not in now]
    if gone:
        parts.append(_DELETE.format(",".join(f"#{pan.HAND_CARD}{code}" for code in gone)))
    run: list[str] = []
    anchor = None

    def put_run() -> None:
        if run:
            where = (
                _PREPEND.format("hand-cards", "".join(run))
                if anchor is None
                else _AFTER.format(f"{pan.HAND_CARD}{anchor}", "".join(run))
            )
            came.append(where)
            run.clear()

    for c, legal, first in after.cards:
        if c.code not in was:
            run.append(pan.hand_card(c, legal, first, explain, kept=c.code in on_pile))
            continue
        put_run()
        anchor = c.code
        if was[c.code] != legal:
            parts.append(pan.hand_card_button(c, legal, explain))
    put_run()
    if after.moves != before.moves:
        parts.append(after.moves)
    first_part, rest = "".join(came), "".join(parts)
    if len(first_part) + len(rest) >= len(after.html):
        return "", after.html
    return first_part, rest


def faces_from_hand(shared: str, before: HandShown | None, after: HandShown) -> str:
    """The hand's shared parts for a page whose hand showed the cards now put on the
    pile: their faces taken from the hand (the hand's changes, after, take them out)."""
    if before is None:
        return shared
    now = {c.code for c, _legal, _first in after.cards}
    for c, _legal, _first in before.cards:
        if c.code not in now:
            drawn = pan.pile_card(c)
            if drawn in shared:
                shared = shared.replace(drawn, pan.pile_card(c, kept=True))
    return shared


TABLE_STATUS = "table-status"  # the status mark's id: every move's form sends its version


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
