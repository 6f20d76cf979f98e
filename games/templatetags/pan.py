"""Template helpers for the game pages: SVG cards, clocks, rule profile names, ratings."""

from __future__ import annotations

import functools

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


VERSION_SLOT = "\x00version\x00"  # where a kept card button takes the hand's version


@register.simple_tag
def hand_cards(
    cards: list[selectors.CardView],
    playable: dict[str, object],
    version: int,
    explain: bool = False,
) -> SafeString:
    """A player's hand as buttons in one tab stop: the first card that may be played
    holds it (else the first card). With ``explain`` (the hand is in play) a card that
    may not be played sends its play too, to be told why not. Each button is drawn once
    per card, state and language and kept, as the cards and the players' boxes are: a
    table draws its hands again at every move, for every player."""
    codes = [c.code for c in cards]
    first = next((code for code in codes if code in playable), codes[0] if codes else "")
    language = translation.get_language()
    draw = _hand_card.__wrapped__ if settings.DEBUG else _hand_card
    parts = [draw(c, c.code in playable, c.code == first, explain, language) for c in cards]
    return SafeString("".join(parts).replace(VERSION_SLOT, str(int(version))))


@functools.lru_cache(maxsize=4096)
def _hand_card(
    card_view: selectors.CardView, legal: bool, first: bool, explain: bool, language: str | None
) -> str:
    context = {
        "c": card_view,
        "legal": legal,
        "first": first,
        "explain": explain,
        "version": VERSION_SLOT,
    }
    return render_to_string("games/table.html#hand-card", context)


@register.simple_tag
def player_label(player: selectors.PlayerView) -> str:
    """A player's box in words for a screen reader: name, cards, letters, whether he moves."""
    parts = [player.name]
    # A bot of the site is named as one ("Bot: greedy"); a bot account's or a person's
    # name, whose seat a bot plays, is not.
    if player.is_bot and (player.user_id is not None or player.bot_for):
        parts.append(_("bot"))
    parts.append(
        ngettext("%(n)d card in hand", "%(n)d cards in hand", player.hand_count)
        % {"n": player.hand_count}
    )
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
    return ", ".join(parts)


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


@register.simple_tag
def player_box(player: selectors.PlayerView) -> SafeString:
    """One player's box around the table, drawn once per look of it and language: a move
    changes the boxes of the player who moved and of the next one, not the others'."""
    if settings.DEBUG:
        return _player_box.__wrapped__(player, translation.get_language())
    return _player_box(player, translation.get_language())


@functools.lru_cache(maxsize=4096)
def _player_box(p: selectors.PlayerView, language: str | None) -> SafeString:
    """The box, put together here rather than by a template: a move redraws two or three
    boxes at every table, and rendering the template's two dozen nodes for each was a
    large share of the live room's work per move. Its parts that a template
    draws elsewhere too (presence, rating) are drawn by their templates, once per look."""
    if p.user_id and not p.is_bot:
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
    to_move = ""
    if p.to_move:
        to_move = format_html(
            '<span class="to-move-mark" data-testid="to-move">{}{}</span>',
            icon("play"),
            _("to move"),
        )
    lag = ""
    if p.lag_ms is not None:
        lag = format_html('<div class="lag" title="{}">{} ms</div>', _("connection lag"), p.lag_ms)
    clock_classes = ("clock" + (" running" if p.clock_running else "")) + (
        " low" if p.clock_ms < 10000 else ""
    )
    return format_html(
        '<div id="player-{}" class="player{}" data-testid="player" data-seat="{}" role="group" '
        'aria-label="{}">'
        '<div class="player-name">{} {}{}</div>{}'
        '<div class="player-facts">'
        '<span title="{}" data-testid="hand-count">{} {}</span>{}'
        '<span class="letters" data-testid="letters" title="{}">{}</span>{}</div>'
        '<div class="{}" data-testid="clock" data-ms="{}" data-running="{}">{}</div>{}{}</div>',
        p.seat,
        " to-move" if p.to_move else "",
        p.seat,
        player_label(p),
        presence,
        p.name,
        badge,
        bot_for,
        _("cards in hand"),
        icon("cards"),
        p.hand_count,
        beton,
        _("letters"),
        p.letters or "–",
        rating,
        clock_classes,
        p.clock_ms,
        "1" if p.clock_running else "0",
        clock(p.clock_ms),
        to_move,
        lag,
    )


# The parts of the table a move changes for every viewer alike, put together here rather
# than by templates (as the player's box): each is drawn at every move of every table,
# and a template's nodes cost several times as much. The table page's partials draw
# them with these same tags.
_OOB = mark_safe(' hx-swap-oob="true"')
_BOX_START = '<div id="player-'
_OOB_BOX = '<div hx-swap-oob="true" id="player-'
PILE_SHOWN = 8  # the top cards of the pile drawn


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


def changed_boxes(boxes: list[SafeString], shown: list[SafeString]) -> SafeString | None:
    """The boxes of ``boxes`` that differ from those a page shows (``shown``, the same
    players), each to be swapped in by its id; None when the players are not the same."""
    if len(boxes) != len(shown):
        return None
    return SafeString(
        "".join(
            _OOB_BOX + box[len(_BOX_START) :]
            for box, before in zip(boxes, shown, strict=True)
            if box != before
        )
    )


@register.simple_tag
def pile_section(view: selectors.TableView, oob: bool = False) -> SafeString:
    """The pile: its top cards, the last one on top, and how many it holds."""
    inside = ""
    if view.pile:
        shown = view.pile[-PILE_SHOWN:]
        cards = SafeString(
            "".join(
                format_html(
                    '<span class="pile-card{}" data-card="{}">{}</span>',
                    " top" if i == len(shown) - 1 else "",
                    c.code,
                    card(c),
                )
                for i, c in enumerate(shown)
            )
        )
        count = ngettext("%(n)s card on the pile", "%(n)s cards on the pile", len(view.pile))
        inside = format_html(
            '<div class="pile-cards" data-testid="pile">{}</div><p class="muted">{}</p>',
            cards,
            count % {"n": len(view.pile)},
        )
    return format_html(
        '<section id="pile" class="pile" aria-label="{}" data-count="{}"{}>{}</section>',
        _("Pile"),
        len(view.pile),
        _OOB if oob else "",
        inside,
    )


@register.simple_tag
def log_section(view: selectors.TableView, oob: bool = False) -> SafeString:
    """The last actions of the hand, the latest first; what the table's live region says
    of the last (``data-said``, with cards in words) and who moves next (``data-next``,
    table-keys.js says it or "Your turn")."""
    lines = ""
    if view.last_actions:
        # Those new since the player's last visit of a correspondence table: marked, and
        # said to a screen reader too.
        new = _("new since your last visit")
        lines = format_html(
            '<ol data-testid="action-log" data-history="{}">{}</ol>',
            view.history_length,
            SafeString(
                "".join(
                    format_html(
                        '<li class="unseen" data-testid="unseen-action">{} '
                        '<span class="unseen-mark">{}</span></li>',
                        line,
                        new,
                    )
                    if i < view.new_actions
                    else format_html("<li>{}</li>", line)
                    for i, line in enumerate(view.last_actions)
                )
            ),
        )
    mover = next((p.name for p in view.players if p.to_move), None)
    return format_html(
        '<section id="action-log" class="action-log" aria-label="{}" data-said="{}" '
        'data-next="{}"{}>{}</section>',
        _("Last actions"),
        view.said,
        "" if mover is None else _("%(name)s to move") % {"name": mover},
        _OOB if oob else "",
        lines,
    )


@register.simple_tag
def my_hand_section(view: selectors.TableView, oob: bool = False) -> SafeString:
    """One's own hand and moves (a spectator's is empty). Every card is a button in one
    tab stop (roving tabindex, table-keys.js): the arrows choose, Enter or Space plays a
    card that may be played."""
    inside: list[str] = []
    if view.my_seat is not None:
        if view.my_cards:
            inside.append(
                format_html(
                    '<div class="hand-cards" data-testid="my-hand" role="toolbar" '
                    'aria-label="{}">{}</div>',
                    _("Your cards"),
                    hand_cards(
                        view.my_cards,
                        view.playable,
                        view.version,
                        view.hand_in_play,
                    ),
                )
            )
        elif view.hand is not None and not view.hand.is_over:
            inside.append(
                format_html(
                    '<p class="muted">{}</p>',
                    _("You have no cards left: you are safe in this hand."),
                )
            )
        if view.multi_moves or view.pickups:
            forms = [
                format_html(
                    '<form ws-send><input type="hidden" name="action" value="play">'
                    '<input type="hidden" name="cards" value="{}">'
                    '<input type="hidden" name="version" value="{}">'
                    '<button type="submit" class="secondary" data-testid="multi-move">{}'
                    "</button></form>",
                    ",".join(m.cards),
                    view.version,
                    m.label,
                )
                for m in view.multi_moves
            ]
            forms += [
                format_html(
                    '<form ws-send><input type="hidden" name="action" value="pickup">'
                    '<input type="hidden" name="count" value="{}">'
                    '<input type="hidden" name="version" value="{}">'
                    '<button type="submit" class="secondary" data-testid="pickup" '
                    'accesskey="p">{}</button></form>',
                    m.move["count"],
                    view.version,
                    m.label,
                )
                for m in view.pickups
            ]
            inside.append(
                format_html('<div class="move-options">{}</div>', SafeString("".join(forms)))
            )
        if any(p.is_me and p.to_move for p in view.players):
            inside.append(
                format_html('<p class="your-turn" data-testid="your-turn">{}</p>', _("Your turn"))
            )
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
        '<section id="my-hand" class="my-hand" aria-label="{}" data-my-seat="{}" tabindex="-1"{}>'
        "{}</section>",
        _("Your hand"),
        "" if view.my_seat is None else view.my_seat,
        _OOB if oob else "",
        SafeString("".join(inside)),
    )


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
