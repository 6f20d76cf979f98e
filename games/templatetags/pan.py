"""Template helpers for the game pages: SVG cards, clocks, rule profile names, ratings."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from django import template
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from core.html import format_html
from core.icons import icon
from games import selectors
from games.cards import card_spoken
from games.models import Seat
from games.ratings import rating_label

register = template.Library()


@register.simple_tag
def card(card_view: selectors.CardView, size: str = "") -> SafeString:
    """One card drawn as inline SVG (no image downloads), named in words for a screen reader."""
    language = translation.get_language()
    if settings.DEBUG:  # in development an edited template shows at once
        return _card_svg.__wrapped__(card_view, size, language)
    return _card_svg(card_view, size, language)


@functools.lru_cache(maxsize=1024)
def _card_svg(card_view: selectors.CardView, size: str, language: str | None) -> SafeString:
    """A card's SVG, drawn once per card, size and language (its name is in words):
    a table shows the same 54 cards again at every move."""
    return render_to_string("games/_card.html", {"c": card_view, "size": size})


@register.filter
def card_name(card_view: selectors.CardView) -> str:
    """A card in words, as a screen reader should say it: 'queen of hearts'."""
    return card_spoken(card_view.code)


# A card's face on the table (in one's hand, on the pile) has an id of its own
# (``cf-<code>``), so that it can be kept when what holds it is drawn again (htmx's
# hx-preserve, on an empty element of that id in its place): a move that changes
# whether a card of the hand may be played sends its button alone, without its face
# (``hand_card_button``); a card played goes to the pile with its face taken from the
# hand, a card picked up to the hand with its face taken from the pile (``kept``: the
# page shows it elsewhere). A card of the hand is a form of its own (``hc-<code>``)
# holding its button (``hb-<code>``).
HAND_CARD = "hc-"
HAND_BUTTON = "hb-"
CARD_FACE = "cf-"


def card_face(card_view: selectors.CardView, kept: bool = False) -> SafeString:
    """A card's face at a table: drawn, or ``kept`` from where the page shows it."""
    if kept:
        return format_html('<i id="{}{}" hx-preserve></i>', CARD_FACE, card_view.code)
    return mark_safe(
        card(card_view).replace("<svg ", f'<svg id="{CARD_FACE}{card_view.code}" ', 1).rstrip("\n")
    )


@register.simple_tag
def hand_cards(
    cards: list[selectors.CardView], playable: dict[str, object], explain: bool = False
) -> SafeString:
    """A player's hand as buttons in one tab stop: the first card that may be played
    holds it (else the first card). With ``explain`` (the hand is in play) a card that
    may not be played sends its play too, to be told why not. Each card is drawn once
    per card, state and language and kept, as the cards and the players' boxes are: a
    table draws its hands again at every move, for every player. The hand's version is
    not in them: the forms take it from the table's status (``status_mark``)."""
    return SafeString(
        "".join(
            hand_card(c, legal, first, explain) for c, legal, first in hand_states(cards, playable)
        )
    )


def hand_states(
    cards: list[selectors.CardView], playable: dict[str, object]
) -> list[tuple[selectors.CardView, bool, bool]]:
    """Each card of a hand with whether it may be played and whether it holds the hand's
    tab stop."""
    codes = [c.code for c in cards]
    first = next((code for code in codes if code in playable), codes[0] if codes else "")
    return [(c, c.code in playable, c.code == first) for c in cards]


def hand_card(
    card_view: selectors.CardView, legal: bool, first: bool, explain: bool, kept: bool = False
) -> str:
    """One card of a hand, whole: its form (a bare button once the hand is over); its
    face ``kept`` from where the page shows it (the pile it was picked up from)."""
    draw = _hand_card.__wrapped__ if settings.DEBUG else _hand_card
    return draw(card_view, legal, first, explain, kept, translation.get_language())


def hand_card_button(card_view: selectors.CardView, legal: bool, explain: bool) -> str:
    """A card's button, its face kept from the page (the card is already in the hand),
    without the tab stop: the page gives it to the first card that may be played, else
    the first, whenever its hand changes (static/js/table-keys.js), as a hand drawn
    whole has it."""
    draw = _card_button.__wrapped__ if settings.DEBUG else _card_button
    return draw(card_view, legal, None, explain, True, translation.get_language())


@functools.lru_cache(maxsize=4096)
def _hand_card(
    card_view: selectors.CardView,
    legal: bool,
    first: bool,
    explain: bool,
    kept: bool,
    language: str | None,
) -> str:
    button = _card_button(card_view, legal, first, explain, kept, language)
    if not (legal or explain):
        return button
    return format_html(
        '<form ws-send id="{}{}" class="card-form"><input type="hidden" name="action" value="play">'
        '<input type="hidden" name="cards" value="{}">{}</form>',
        HAND_CARD,
        card_view.code,
        card_view.code,
        SafeString(button),
    )


@functools.lru_cache(maxsize=4096)
def _card_button(
    card_view: selectors.CardView,
    legal: bool,
    first: bool | None,
    explain: bool,
    kept: bool,
    language: str | None,
) -> str:
    context = {
        "c": card_view,
        "legal": legal,
        "first": first,
        "explain": explain,
        "face": card_face(card_view, kept),
    }
    return render_to_string("games/table.html#hand-card", context)


@register.simple_tag
def player_label(player: selectors.PlayerView) -> str:
    """A player's box in words for a screen reader: name, cards, letters, whether he moves."""
    return ", ".join(part for part in player_label_parts(player) if part)


def player_label_parts(player: selectors.PlayerView) -> tuple[str, str]:
    """``player_label`` in two: who he is (the same all match long), and what a move
    changes (his cards, letters, whether he moves); each part comma-joined."""
    who = [player.name]
    # A bot of the site is named as one ("Bot: greedy"); a bot account's or a person's
    # name, whose seat a bot plays, is not.
    if player.is_bot and (player.user_id is not None or player.bot_for):
        who.append(_("bot"))
    parts = [
        ngettext("%(n)d card in hand", "%(n)d cards in hand", player.hand_count)
        % {"n": player.hand_count}
    ]
    if player.beton_count:
        parts.append(
            ngettext("%(n)d beton card", "%(n)d beton cards", player.beton_count)
            % {"n": player.beton_count}
        )
    if player.letters:
        parts.append(_("letters: %(letters)s") % {"letters": " ".join(player.letters)})
    else:
        parts.append(_("no letters"))
    if player.to_move:
        parts.append(_("to move"))
    return ", ".join(who), ", ".join(parts)


@register.filter
def clock(milliseconds: int) -> str:
    """Remaining time as m:ss (or s.t under ten seconds); a correspondence clock's over
    an hour as h:mm:ss, over a day as "N d hh:mm" (as static/js/table.js counts it)."""
    milliseconds = max(0, int(milliseconds))
    if milliseconds < 10_000:
        return f"{milliseconds // 1000}.{(milliseconds % 1000) // 100}"
    minutes, seconds = divmod(milliseconds // 1000, 60)
    hours, minutes = divmod(minutes, 60)
    if hours >= 24:
        return f"{hours // 24} d {hours % 24:02d}:{minutes:02d}"
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


@register.simple_tag
def profile_label(key: str) -> str:
    return selectors.profile_name(key, translation.get_language() or "")


@register.simple_tag
def time_control(table: object) -> str:
    return selectors.time_control_label(
        table.base_seconds, table.increment_seconds, table.move_days
    )


@register.filter
def rating(user: User, speed: str) -> str:
    """A person's shown rating in ``speed`` (his table's) beside his name."""
    return rating_label(user, speed)


# Where each seat sits around the felt, counted clockwise from the viewer's own (or from
# seat 0 for a spectator). The players' boxes get the same places from CSS (site.css).
SEAT_SLOTS = {
    2: ("bottom", "top"),
    3: ("bottom", "tl", "tr"),
    4: ("bottom", "left", "top", "right"),
}


@register.simple_tag
def seat_slot(position: int, my_position: int | None, seats: int) -> str:
    """The place around the felt of the seat at ``position`` as ``my_position`` sees it."""
    slots = SEAT_SLOTS.get(seats)
    if slots is None:
        return ""
    return slots[(position - (my_position or 0)) % seats]


@register.filter
def seats_taken(seats: list[Seat]) -> int:
    """How many of a table's seats hold a player or a bot."""
    return sum(1 for seat in seats if not seat.is_empty)


@dataclass(frozen=True)
class BoxParts:
    """A player's box, whole, and the parts of it that change in a match, each drawn with
    its own id so that it can be sent alone: what a screen reader says of the box but
    for who he is (a label, hidden; it says too whether he moves, which shows his frame,
    his mark and his clock running), his count of cards, his clock, his presence and his
    lag. ``rest``: everything else the box shows; boxes of one ``rest`` differ only in
    those parts."""

    whole: SafeString
    label: SafeString
    count: SafeString
    clock: SafeString
    presence: SafeString
    lag: SafeString
    rest: selectors.PlayerView
    player: selectors.PlayerView


@register.simple_tag
def player_box(player: selectors.PlayerView) -> SafeString:
    """One player's box around the table, drawn once per look of it and language: a move
    changes the boxes of the player who moved and of the next one, not the others'."""
    return player_box_parts(player).whole


def player_box_parts(player: selectors.PlayerView) -> BoxParts:
    """``player_box``, with its parts."""
    if settings.DEBUG:
        return _player_box.__wrapped__(player, translation.get_language())
    return _player_box(player, translation.get_language())


@functools.lru_cache(maxsize=4096)
def _player_box(p: selectors.PlayerView, language: str | None) -> BoxParts:
    """The box, put together here rather than by a template: a move redraws two or three
    boxes at every table, and rendering the template's two dozen nodes for each was a
    large share of the live room's work per move. Its parts that a template
    draws elsewhere too (presence, rating) are drawn by their templates, once per look.

    The mark "to move" is in every box, shown by the label's class (site.css), so that
    a move sends the labels of two boxes, not their marks. At a table the player to
    move is he whose clock runs: the label's class shows it running too (a lesson's
    boxes show no clock)."""
    presence_drawn = bool(p.user_id and not p.is_bot)  # a person's, with its own id
    if presence_drawn:
        presence = _small_part(
            "games/_presence.html", language, user_id=p.user_id, connected=p.connected
        )
    else:
        presence = format_html('<span class="presence on" title="{}"></span>', _("connected"))
    badge = ""
    if p.is_bot and not p.bot_for:
        badge = format_html(' <span class="badge">{}</span>', _("bot"))
    bot_for = ""
    if p.bot_for:
        banned = p.bot_for == "banned"
        title = (
            _("A bot plays for %(name)s, who is banned.")
            if banned
            else _("A bot plays for %(name)s, who left the table.")
        ) % {"name": p.name}
        bot_for = format_html(
            '<div class="bot-for"><span class="badge" data-testid="bot-for" title="{}">{}</span>'
            "</div>",
            title,
            _("bot · banned") if banned else _("bot · left"),
        )
    if p.berserk:
        badge = format_html(
            '{} <span class="badge berserk" data-testid="berserk" title="{}">{}</span>',
            badge,
            _("Berserk: half the time, no increment, a point more if not last"),
            _("Berserk"),
        )
    beton = ""
    if p.beton_count:
        beton = format_html(
            '<span title="{}">{} {}</span>', _("beton cards"), icon("beton"), p.beton_count
        )
    rating = ""
    if p.rating:
        rating = _small_part(
            "games/_rating.html", language, rating=p.rating, testid="player-rating"
        )
    to_move = format_html(
        '<span class="to-move-mark" data-testid="to-move">{}{}</span>', icon("play"), _("to move")
    )
    lag = ""
    if p.lag_ms is not None or presence_drawn:  # a person's is hidden until it is known
        lag = format_html(
            '<div id="p{}-lag" class="lag" title="{}"{}>{}</div>',
            p.seat,
            _("connection lag"),
            mark_safe(" hidden") if p.lag_ms is None else "",
            "" if p.lag_ms is None else f"{p.lag_ms} ms",
        )
    # The words of the box: who he is, then the rest (aria-labelledby joins them with a
    # space). Whether his clock runs shows from the label (its class; table.css,
    # table.js): a clock that starts running is not drawn again.
    who, words = player_label_parts(p)
    # (The class last: htmx puts a class that a swap adds after the other attributes.)
    label = format_html(
        '<span id="p{}-label" hidden{}>{}</span>',
        p.seat,
        mark_safe(' class="to-move"') if p.to_move else "",
        words,
    )
    count = format_html('<span id="p{}-count">{}</span>', p.seat, p.hand_count)
    clock_part = format_html(
        '<div id="p{}-clock" class="clock{}" data-ms="{}">{}</div>',
        p.seat,
        " low" if p.clock_ms < 10000 else "",
        p.clock_ms,
        clock(p.clock_ms),
    )
    whole = format_html(
        '<div id="player-{}" class="player" data-testid="player" data-seat="{}" role="group" '
        'aria-labelledby="p{}-name p{}-label"><span id="p{}-name" hidden>{},</span>{}'
        '<div class="player-name">{} {}{}</div>{}'
        '<div class="player-facts">'
        '<span title="{}" data-testid="hand-count">{} {}</span>{}'
        '<span class="letters" data-testid="letters" title="{}">{}</span>{}</div>'
        "{}{}{}</div>",
        p.seat,
        p.seat,
        p.seat,
        p.seat,
        p.seat,
        who,
        label,
        presence,
        p.name,
        badge,
        bot_for,
        _("cards in hand"),
        icon("cards"),
        count,
        beton,
        _("letters"),
        p.letters or "–",
        rating,
        clock_part,
        to_move,
        lag,
    )
    rest = replace(
        p,
        is_me=False,
        to_move=False,
        hand_count=0,
        clock_ms=0,
        clock_running=False,
        connected=True,
        lag_ms=None,
    )
    return BoxParts(
        whole, label, count, clock_part, presence if presence_drawn else "", lag, rest, p
    )


# The parts of the table a move changes for every viewer alike, put together here rather
# than by templates (as the player's box): each is drawn at every move of every table,
# and a template's nodes cost several times as much. The table page's partials draw
# them with these same tags. A move sends only what changed in them
# (``games.renderers.shared_changes``): the ids below are its targets.
_OOB = mark_safe(' hx-swap-oob="true"')
PILE_SHOWN = 8  # the top cards of the pile shown (site.css hides those under them)


@register.simple_tag
def players_section(
    view: selectors.TableView, oob: bool = False, boxes: list[SafeString] | None = None
) -> SafeString:
    """The players' boxes around the felt (``boxes``: ``player_boxes(view)``, drawn)."""
    return format_html(
        '<section id="players" class="players" aria-label="{}" data-seats="{}"{}>{}</section>',
        _("Players"),
        len(view.players),
        _OOB if oob else "",
        SafeString("".join(player_boxes(view) if boxes is None else boxes)),
    )


def player_boxes(view: selectors.TableView) -> list[SafeString]:
    """Each player's box, by seat."""
    return [player_box(p) for p in view.players]


@register.simple_tag
def pile_section(view: selectors.TableView, oob: bool = False) -> SafeString:
    """The pile, the last card on top, and how many it holds. Every card of it is drawn;
    only the top ``PILE_SHOWN`` show (site.css), so that a card played is added to the
    page and a pick-up takes cards off it, the cards under them showing again."""
    inside = ""
    if view.pile:
        inside = format_html(
            '<div id="pile-cards" class="pile-cards" data-testid="pile">{}</div>{}',
            SafeString("".join(pile_card(c) for c in view.pile)),
            pile_count(len(view.pile)),
        )
    return format_html(
        '<section id="pile" class="pile" aria-label="{}"{}>{}</section>',
        _("Pile"),
        _OOB if oob else "",
        inside,
    )


def pile_card(c: selectors.CardView, kept: bool = False) -> SafeString:
    """A card on the pile (the top one is the last: site.css lifts it); its face ``kept``
    from where the page shows it (the hand it was played from)."""
    return format_html(
        '<span class="pile-card" data-card="{}">{}</span>', c.code, card_face(c, kept)
    )


def pile_count(count: int) -> SafeString:
    """How many cards the pile holds, in words."""
    words = ngettext("%(n)s card on the pile", "%(n)s cards on the pile", count)
    return format_html('<p id="pile-count">{}</p>', words % {"n": count})


@register.simple_tag
def log_section(view: selectors.TableView, oob: bool = False) -> SafeString:
    """The last actions of the hand, the latest first, each with its place in the hand
    (``data-n``, from 0; static/js/log-seen.js marks those new since a visit by it)."""
    lines = ""
    if view.last_actions:
        # Those new since the player's last visit of a correspondence table: marked, and
        # said to a screen reader too.
        new = _("new since your last visit")
        last = view.history_length - 1
        lines = format_html(
            '<ol id="log-lines" data-testid="action-log">{}</ol>',
            SafeString(
                "".join(
                    format_html(
                        '<li class="unseen" data-testid="unseen-action" data-n="{}">{} '
                        '<span class="unseen-mark">{}</span></li>',
                        last - i,
                        line,
                        new,
                    )
                    if i < view.new_actions
                    else log_line(line, last - i)
                    for i, line in enumerate(view.last_actions)
                )
            ),
        )
    return format_html(
        '<section id="action-log" class="action-log" aria-label="{}"{}>{}</section>',
        _("Last actions"),
        _OOB if oob else "",
        lines,
    )


def log_line(line: str, n: int) -> SafeString:
    """The hand's ``n``-th action (from 0), in the log."""
    return format_html('<li data-n="{}">{}</li>', n, line)


@register.simple_tag
def status_mark(view: selectors.TableView) -> SafeString:
    """Where the table stands and what just happened, in the status line, sent again at
    every move: the hand and its version (``data-hand``, ``data-version``; as the value
    of ``version`` every move's form sends it, ``my_hand_section``), what the table's
    live region says of the last action (``data-said``, with cards in words) and who
    moves next (``data-next``; static/js/table-keys.js says it, or "Your turn")."""
    mover = next((p.name for p in view.players if p.to_move), None)
    hand = view.hand.pk if view.hand is not None else 0
    return format_html(
        '<input id="table-status" type="hidden" name="version" value="{}" data-hand="{}" '
        'data-version="{}" data-said="{}" data-next="{}">',
        view.version,
        hand,
        view.version,
        view.said,
        "" if mover is None else _("%(name)s to move") % {"name": mover},
    )


@register.simple_tag
def my_hand_section(view: selectors.TableView, oob: bool = False, include: str = "") -> SafeString:
    """One's own hand and moves (a spectator's is empty). Every card is a button in one
    tab stop (roving tabindex, table-keys.js): the arrows choose, Enter or Space plays a
    card that may be played. ``include``: where the forms take the hand's version from
    (htmx's hx-include; at a table, the status's mark)."""
    inside: list[str] = []
    if view.my_seat is not None:
        if view.my_cards:
            inside.append(
                format_html(
                    '<div id="hand-cards" class="hand-cards" data-testid="my-hand" role="toolbar" '
                    'aria-label="{}">{}</div>',
                    _("Your cards"),
                    hand_cards(view.my_cards, view.playable, view.hand_in_play),
                )
            )
        elif view.hand is not None and not view.hand.is_over:
            inside.append(
                format_html(
                    '<p class="muted">{}</p>',
                    _("You have no cards left: you are safe in this hand."),
                )
            )
        inside.append(my_moves(view))
        if view.my_cards:
            # Last, its place kept while hidden (table.css): shown when the hand takes the
            # focus, it moves nothing, so a button pressed with the mouse stays under it.
            inside.append(
                format_html(
                    '<p class="keys-hint muted">{}</p>',
                    _(
                        "Keyboard: the arrow keys choose a card, Enter plays it, P picks up;"
                        " Tab reaches the other moves."
                    ),
                )
            )
    return format_html(
        '<section id="my-hand" class="my-hand" aria-label="{}" data-my-seat="{}" tabindex="-1"{}{}>'
        "{}</section>",
        _("Your hand"),
        "" if view.my_seat is None else view.my_seat,
        format_html(' hx-include="{}"', include) if include else "",
        _OOB if oob else "",
        SafeString("".join(inside)),
    )


def my_moves(view: selectors.TableView) -> SafeString:
    """The moves of several cards and the pick-ups, and "Your turn": one part of the hand
    (``my-moves``, laid out as if its contents were the hand's own, site.css)."""
    inside: list[str] = []
    if view.multi_moves or view.pickups:
        forms = [
            format_html(
                '<form ws-send><input type="hidden" name="action" value="play">'
                '<input type="hidden" name="cards" value="{}">'
                '<button class="secondary" data-testid="multi-move">{}'
                "</button></form>",
                ",".join(m.cards),
                m.label,
            )
            for m in view.multi_moves
        ]
        forms += [
            format_html(
                '<form ws-send><input type="hidden" name="action" value="pickup">'
                '<input type="hidden" name="count" value="{}">'
                '<button class="secondary" data-testid="pickup" '
                'accesskey="p">{}</button></form>',
                m.move["count"],
                m.label,
            )
            for m in view.pickups
        ]
        inside.append(format_html('<div class="move-options">{}</div>', SafeString("".join(forms))))
    if any(p.is_me and p.to_move for p in view.players):
        inside.append(
            format_html('<p class="your-turn" data-testid="your-turn">{}</p>', _("Your turn"))
        )
    return format_html('<div id="my-moves">{}</div>', SafeString("".join(inside)))


def small_part(name: str, **context: object) -> SafeString:
    """``_small_part`` in the active language (drawn anew each time in development)."""
    if settings.DEBUG:
        return SafeString(render_to_string(name, context))
    return _small_part(name, translation.get_language(), **context)


@functools.lru_cache(maxsize=4096)
def _small_part(name: str, language: str | None, **context: object) -> SafeString:
    """A small template drawn once per context and language (the box's presence and
    rating; ``language`` is the active one), kept: the same looks come back every move."""
    return SafeString(render_to_string(name, context))
