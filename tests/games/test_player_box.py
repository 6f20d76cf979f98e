"""A player's box around the table (the player_box tag): what it says, in both languages,
escaped, and drawn again when what it shows changes."""

from __future__ import annotations

from dataclasses import replace

from django.template import Context, Template
from django.utils import translation

from games.selectors import PlayerView

ANNA = PlayerView(
    seat=1,
    name="Anna",
    user_id=7,
    is_bot=False,
    is_me=False,
    to_move=True,
    hand_count=5,
    beton_count=0,
    letters="PA",
    clock_ms=61_000,
    clock_running=True,
    connected=True,
    lag_ms=40,
    rating="1520",
)


def box(player: PlayerView, language: str = "en") -> str:
    with translation.override(language):
        return Template("{% load pan %}{% player_box p %}").render(Context({"p": player}))


def test_the_box_shows_the_seat_its_cards_letters_clock_and_turn():
    html = box(ANNA)
    assert 'class="player" data-testid="player" data-seat="1"' in html
    # What a screen reader says of the box: who he is, then what a move changes (which
    # shows his frame, his mark and his clock running: the label's class, site.css).
    assert 'aria-labelledby="p1-name p1-label"><span id="p1-name" hidden>Anna,</span>' in html
    assert (
        '<span id="p1-label" hidden class="to-move">5 cards in hand, letters: P A, to move' in html
    )
    assert '<span id="presence-u7" class="presence on" title="connected"></span> Anna' in html
    assert 'data-testid="hand-count"><svg' in html and '</svg> <span id="p1-count">5</span>' in html
    assert 'data-testid="letters" title="letters">PA</span>' in html
    assert 'data-testid="player-rating" title="rating">1520</span>' in html
    assert '<div id="p1-clock" class="clock" data-ms="61000">1:01' in html
    assert 'data-testid="to-move">' in html
    assert '<div id="p1-lag" class="lag" title="connection lag">40 ms</div>' in html


def test_the_box_in_polish():
    html = box(replace(ANNA, connected=False, bot_for="banned", is_bot=True), "pl")
    assert 'title="karty w ręce"' in html
    assert "na ruchu" in html
    assert 'title="Za gracza Anna gra bot: gracz jest zbanowany.">bot · zbanowany' in html
    assert 'title="opóźnienie połączenia"' in html


def test_a_bot_has_no_presence_of_its_own_and_a_low_clock_shows():
    html = box(
        replace(
            ANNA, user_id=None, is_bot=True, name="Bot", to_move=False, clock_ms=9_500, lag_ms=None
        )
    )
    assert (
        '<span class="presence on" title="connected"></span> Bot <span class="badge">bot</span>'
        in html
    )
    assert 'class="clock low"' in html and ">9.5</div>" in html
    assert 'class="to-move"' not in html and 'class="lag"' not in html


def test_a_name_is_escaped():
    html = box(replace(ANNA, name="<b>Ann&y</b>", bot_for="left", is_bot=True))
    assert "<b>" not in html
    assert "&lt;b&gt;Ann&amp;y&lt;/b&gt;" in html


def test_a_changed_box_is_drawn_again():
    assert 'data-ms="61000"' in box(ANNA)
    assert 'data-ms="58000"' in box(replace(ANNA, clock_ms=58_000))
    assert 'title="not connected"' in box(replace(ANNA, connected=False))


def test_the_log_and_pile_escape_what_they_show_and_count_in_polish():
    from types import SimpleNamespace

    from games.selectors import CardView
    from games.templatetags.pan import log_section, pile_section, status_mark

    view = SimpleNamespace(
        last_actions=["<b>Ann&y</b> played 9♥"],
        said="<b>Ann&y</b> played nine of hearts",
        players=[],
        pile=[CardView.of(code) for code in ("9H", "10S", "QD", "KC", "AS")],
        new_actions=0,
        history_length=1,
        version=1,
        hand=None,
    )
    with translation.override("pl"):
        log, pile = log_section(view, oob=True), pile_section(view)
        mark = status_mark(view)
    assert 'data-said="&lt;b&gt;Ann&amp;y&lt;/b&gt; played nine of hearts"' in mark
    assert '<li data-n="0">&lt;b&gt;Ann&amp;y&lt;/b&gt; played 9♥</li>' in log
    assert 'hx-swap-oob="true"' in log and "hx-swap-oob" not in pile
    assert pile.count('<span class="pile-card') == 5
    assert pile.rindex('data-card="AS"') > pile.rindex('data-card="KC"')  # on top: the last
    assert "5 kart na stosie" in pile
