"""The game pages over HTTP: lobby, create form, private tables, replay and export."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from games import renderers, selectors, services
from games.engine import Rules, move_to_json, replay, verify_commitment
from games.models import Hand, Table
from tests.factories import make_table, make_user, play_to_pan_on_time, table_form
from tests.games.test_analysis import finished_hand as played_hand

pytestmark = pytest.mark.django_db


@pytest.fixture
def english(client):
    client.cookies["django_language"] = "en"
    return client


def test_the_lobby_lists_public_open_tables_only(english):
    make_table(players=1, name="Open to all")
    make_table(players=1, name="Secret", is_public=False)
    page = english.get("/").content.decode()
    assert "Open to all" in page
    assert "Secret" not in page


def test_creating_a_table_from_a_profile(english):
    english.force_login(make_user("ola"))
    response = english.post(
        reverse("games:table_create"),
        table_form(name="Piki", profile="piki_cofane", seats="3", time_control="5+3"),
    )
    table = Table.objects.get()
    assert response.status_code == 302 and response["Location"] == table.get_absolute_url()
    assert table.rules == Rules(spades_back=True)
    assert (table.seats_count, table.base_seconds, table.increment_seconds) == (3, 300, 3)
    page = english.get(table.get_absolute_url()).content.decode()
    assert "A spade on top sends the turn back (piki cofane)." in page


def test_an_impossible_custom_table_shows_why_and_creates_nothing(english):
    english.force_login(make_user("ola"))
    response = english.post(
        reverse("games:table_create"),
        table_form(
            name="x",
            profile="custom",
            seats="4",
            time_control="custom",
            base_seconds="2",
            max_actions="3",
            is_public=None,
        ),
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "Ensure this value is greater than or equal to 5." in page
    assert "Ensure this value is greater than or equal to 10." in page
    assert not Table.objects.exists()


def test_a_private_table_is_hidden_until_the_invite_link_is_followed(english):
    table = make_table(players=1, is_public=False, name="Family")
    assert english.get(table.get_absolute_url()).status_code == 404
    response = english.get(reverse("games:invite", kwargs={"token": table.invite_token}))
    assert response.status_code == 302
    assert "Family" in english.get(table.get_absolute_url()).content.decode()


def finished_hand(*, public: bool = True) -> Hand:
    table = make_table(players=2, is_public=public, base_seconds=30)
    now = timezone.now()
    services.match_start(table_id=table.pk, by=table.owner, now=now)
    hand = Hand.objects.get(match__table=table)
    services.execute(services.Timeout(hand_id=hand.pk), now=now + timedelta(seconds=31))
    hand.refresh_from_db()
    return hand


def test_a_hand_in_play_cannot_be_replayed_yet(english):
    table = make_table(players=2)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    assert english.get(hand.get_absolute_url()).status_code == 404
    assert english.get(reverse("games:hand_export", args=[hand.pk])).status_code == 404


def test_the_export_lets_anyone_verify_and_replay_the_hand(english):
    hand = finished_hand()
    data = json.loads(english.get(reverse("games:hand_export", args=[hand.pk])).content)
    assert verify_commitment(data["commitment"], data["seed"], data["salt"])
    rules = Rules.from_json(data["rules"])
    moves = [{"type": a["type"], **({"cards": a["cards"]} if "cards" in a else {})}
             for a in data["actions"]]  # fmt: skip
    rebuilt = replay(rules, len(data["players"]), data["dealer"], data["seed"], moves)
    assert rebuilt.outcome.to_json() == data["outcome"]
    assert rebuilt.to_json() == hand.state  # the seed and the log rebuild the exact hand


def test_the_replay_page_shows_every_step_and_the_verified_commitment(english):
    hand = finished_hand()
    page = english.get(hand.get_absolute_url()).content.decode()
    steps = json.loads(re.search(r'id="replay-steps"[^>]*>(.*?)</script>', page, re.S)[1])
    assert [s["text"].split(". ")[0] for s in steps] == [
        str(n) for n in range(1 + hand.actions.count())
    ]
    assert "SHA-256(salt:seed) equals the commitment" in page
    assert hand.seed in page


class ElementCounter(HTMLParser):
    """Counts the elements of a page a browser builds (a <template>'s content is no part
    of the page until copied into it)."""

    def __init__(self) -> None:
        super().__init__()
        self.elements = 0
        self.in_template = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.in_template += tag == "template"
        self.elements += not self.in_template

    def handle_endtag(self, tag: str) -> None:
        self.in_template -= tag == "template"


def test_the_replay_of_a_long_hand_draws_only_the_step_shown(english):
    """A hand of four players with the 52 cards and the jokers, cut at 150 actions: its
    page holds every step's data once and draws one step, not every step in advance."""
    hand = played_hand(players=4, rules=Rules(deck=52, jokers=2, max_actions=150))
    assert hand.actions.count() >= 120
    page = english.get(hand.get_absolute_url()).content.decode()
    counter = ElementCounter()
    counter.feed(page)
    assert len(page.encode()) < 150_000
    assert counter.elements < 500
    assert page.count('class="replay-frame') == 1


def test_a_private_hand_is_shown_to_its_players_only(english):
    hand = finished_hand(public=False)
    assert english.get(hand.get_absolute_url()).status_code == 404
    english.force_login(hand.match.players.first().user)
    assert english.get(hand.get_absolute_url()).status_code == 200


def test_viewers_of_one_snapshot_each_see_their_own_part_in_their_own_language():
    """What viewers see alike is built once per snapshot and language, and each card and
    player box drawn once: a player's own hand, his turn and the language stay his."""
    table = make_table(players=2, seats=2)
    services.match_start(table_id=table.pk, by=table.owner)
    snapshot = selectors.table_snapshot(table_id=table.pk)
    to_move = snapshot.state.to_move
    by_seat = {p.seat: p.user for p in snapshot.match_players}
    mover, waiter = by_seat[to_move], by_seat[1 - to_move]

    with translation.override("en"):
        mine = selectors.table_view(snapshot=snapshot, viewer=mover, with_chat=False)
        others = selectors.table_view(snapshot=snapshot, viewer=waiter, with_chat=False)
        watcher = selectors.table_view(snapshot=snapshot, viewer=None, with_chat=False)
        english = renderers.hand_fragments(watcher) + renderers.my_hand_fragment(mine)
    with translation.override("pl"):
        polish_view = selectors.table_view(snapshot=snapshot, viewer=mover, with_chat=False)
        polish = renderers.hand_fragments(polish_view) + renderers.my_hand_fragment(polish_view)

    assert [p.is_me for p in mine.players] == [p.seat == to_move for p in mine.players]
    assert [p.is_me for p in others.players] == [p.seat != to_move for p in others.players]
    assert not any(p.is_me for p in watcher.players) and watcher.my_cards == []
    hands = {v.my_seat: {c.code for c in v.my_cards} for v in (mine, others)}
    assert hands[to_move] == set(snapshot.state.hand(to_move))
    assert hands[1 - to_move] == set(snapshot.state.hand(1 - to_move))
    assert mine.playable and not others.playable and not others.pickups
    assert "Your turn" in renderers.my_hand_fragment(mine)
    assert "Your turn" not in renderers.my_hand_fragment(others)
    assert "cards in hand" in english and "Your turn" in english
    assert "karty w ręce" in polish and "Twój ruch" in polish
    assert "Play nine of hearts" in english and "Zagraj: dziewiątka kier" in polish
    assert "cards in hand" not in polish and "Your turn" not in polish


# --- a bot of the site, named in the reader's language ----------------------------------------

BOT_NAMES = {"en": "Bot: greedy", "pl": "Bot: zachłanny"}


def table_with_a_bot() -> Table:
    table = make_table(players=1, seats=2)
    services.table_add_bot(table_id=table.pk, by=table.owner, position=1, level="greedy")
    return table


def read(url: str, language: str) -> str:
    """A page as a visitor reading ``language`` sees it (the language the request
    activates ends with it: it must not leak into the next test)."""
    client = Client()
    client.cookies["django_language"] = language
    with translation.override(language):
        return client.get(url).content.decode()


def test_the_table_its_ranking_and_the_replay_name_the_bot_in_the_readers_language():
    table = table_with_a_bot()
    with translation.override("en"):  # the match started in English
        match = play_to_pan_on_time(table)
    hand = match.hands.order_by("number").first()
    for language, other in (("pl", "en"), ("en", "pl")):
        page = read(table.get_absolute_url(), language)
        ranking = page.split('data-testid="ranking"', 1)[1].split("</ol>", 1)[0]
        assert BOT_NAMES[language] in ranking, language
        assert BOT_NAMES[other] not in page, language
        shown = read(reverse("games:hand", args=[hand.pk]), language)
        assert BOT_NAMES[language] in shown and BOT_NAMES[other] not in shown, language


def test_one_snapshot_names_the_bot_in_each_viewers_language_in_its_box_and_the_log():
    """The live table draws what viewers see alike once per language (and keeps the
    players' boxes per language): neither language's bot name leaks into the other's."""
    table = table_with_a_bot()
    with translation.override("en"):
        services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    bot_moved = False
    while not bot_moved:
        state = hand.engine_state
        bot_moved = hand.match.players.get(seat=state.to_move).user is None
        move = move_to_json(state.legal_moves()[0])
        if bot_moved:
            services.execute(
                services.move_action(move, hand_id=hand.pk, version=hand.version, as_bot=True)
            )
        else:
            services.execute(
                services.move_action(move, hand_id=hand.pk, version=hand.version, user=table.owner)
            )
        hand.refresh_from_db()
    snapshot = selectors.table_snapshot(table_id=table.pk)
    drawn = {}
    for language in ("en", "pl", "en"):  # each language again after the other
        with translation.override(language):
            view = selectors.table_view(snapshot=snapshot, viewer=None, with_chat=False)
            assert any(BOT_NAMES[language] in line for line in view.last_actions)
            drawn[language] = renderers.hand_fragments(view)
    assert BOT_NAMES["en"] in drawn["en"] and BOT_NAMES["pl"] not in drawn["en"]
    assert BOT_NAMES["pl"] in drawn["pl"] and BOT_NAMES["en"] not in drawn["pl"]


def test_a_table_name_with_a_nul_is_a_form_error_and_creates_nothing(english):
    english.force_login(make_user("ola"))
    response = english.post(reverse("games:table_create"), table_form(name="Pi\x00ki"))
    assert response.status_code == 200
    assert "Null characters are not allowed." in response.content.decode()
    assert not Table.objects.exists()


def test_an_invite_link_with_a_nul_is_not_found(english):
    assert english.get("/t/a%00b/").status_code == 404


def test_a_bot_account_name_with_a_nul_is_refused_and_seats_nobody(english):
    table = make_table(players=1)
    make_user("robo", is_bot_account=True)
    english.force_login(table.owner)
    response = english.post(
        reverse("games:table_seat_bot_account", kwargs={"table_id": table.pk}),
        {"position": "1", "username": "ro\x00bo"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "There is no account named" in response.content.decode()
    assert table.seats.filter(user__isnull=False).count() == 1


def test_the_replay_tells_bots_of_one_level_apart_by_their_seat(english):
    """Three greedy bots at one table: the replay names each as the table does, with its
    seat, so that the reader knows whose cards are whose."""
    table = make_table(players=1, seats=4, base_seconds=30)
    for position in (1, 2, 3):
        services.table_add_bot(table_id=table.pk, by=table.owner, position=position, level="greedy")
    now = timezone.now()
    with translation.override("en"):
        services.match_start(table_id=table.pk, by=table.owner, now=now)
    hand = Hand.objects.get(match__table=table)
    services.execute(services.Timeout(hand_id=hand.pk), now=now + timedelta(seconds=31))
    page = english.get(hand.get_absolute_url()).content.decode()
    names = re.findall(r'<div data-part="hand"><strong>([^<]*)</strong>', page)
    assert sorted(names[1:]) == [f"Bot: greedy (seat {n})" for n in (2, 3, 4)]


def test_the_replays_heading_reads_in_polish_with_the_tables_default_name():
    """Polish names an unnamed table 'Stół gracza ola': the heading does not say 'przy
    stole Stół gracza ola'."""
    hand = finished_hand()
    hand.match.table.name = ""
    hand.match.table.save(update_fields=["name"])
    owner = hand.match.table.owner.username
    page = read(hand.get_absolute_url(), "pl")
    assert f"<h1>Rozdanie 1: Stół gracza {owner}</h1>" in page
    assert "przy stole Stół" not in page
