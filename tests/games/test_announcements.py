"""What a screen reader hears at the table (#40): each seat named so that it can be told
apart, and each action said once, its cards in words, with who moves next."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games import selectors, services
from games.engine import move_to_json
from games.models import Hand, Table
from games.selectors.labels import describe_action
from games.templatetags.pan import player_label, status_mark
from tests.factories import make_table

pytestmark = pytest.mark.django_db


def table_of_three_greedy_bots() -> Table:
    """A table of four: its owner in seat 1, a greedy bot in each other seat."""
    table = make_table(players=1, seats=4)
    for position in (1, 2, 3):
        services.table_add_bot(table_id=table.pk, by=table.owner, position=position, level="greedy")
    with translation.override("en"):
        services.match_start(table_id=table.pk, by=table.owner)
    return table


def first_move(table: Table) -> None:
    """Whoever holds the base card opens with it (as a bot, or as the owner)."""
    hand = Hand.objects.get(match__table=table)
    state = hand.engine_state
    by_bot = hand.match.players.get(seat=state.to_move).user is None
    move = move_to_json(state.legal_moves()[0])
    who = {"as_bot": True} if by_bot else {"user": table.owner}
    services.execute(services.move_action(move, hand_id=hand.pk, version=hand.version, **who))


def view_in(table: Table, language: str) -> selectors.TableView:
    snapshot = selectors.table_snapshot(table_id=table.pk)
    with translation.override(language):
        return selectors.table_view(snapshot=snapshot, viewer=None, with_chat=False)


def announcement(view: selectors.TableView, language: str) -> tuple[str, str]:
    """The status mark's data-said and data-next, as the page's script reads them."""
    with translation.override(language):
        html = status_mark(view)
    said = re.search(r'data-said="([^"]*)"', html).group(1)
    next_ = re.search(r'data-next="([^"]*)"', html).group(1)
    return said, next_


@pytest.mark.parametrize(
    ("language", "bot", "seat"),
    [("en", "Bot: greedy", "seat"), ("pl", "Bot: zachłanny", "miejsce")],
)
def test_bots_of_one_level_are_told_apart_by_their_seat(language: str, bot: str, seat: str):
    table = table_of_three_greedy_bots()
    view = view_in(table, language)
    names = [p.name for p in view.players]
    assert names == [table.owner.username] + [f"{bot} ({seat} {n})" for n in (2, 3, 4)]
    with translation.override(language):
        labels = [player_label(p) for p in view.players]
    assert len(set(labels)) == 4
    # The bot's name says it is a bot: the label does not say it again.
    assert all(label.lower().count("bot") == 1 for label in labels[1:]), labels


def test_a_bot_account_or_a_seat_a_bot_plays_for_a_person_is_still_said_to_be_a_bot():
    from dataclasses import replace

    from tests.games.test_player_box import ANNA

    with translation.override("en"):
        assert player_label(replace(ANNA, is_bot=True)).startswith("Anna, bot, ")
        account = replace(ANNA, is_bot=True, user_id=None, bot_for="left")
        assert player_label(account).startswith("Anna, bot, ")
        assert player_label(replace(ANNA, is_bot=True, user_id=None, name="Bot 3")).startswith(
            "Bot 3, 5 cards"
        )


def test_each_action_is_said_once_with_its_cards_in_words_and_who_moves_next():
    table = table_of_three_greedy_bots()
    before = view_in(table, "en")
    assert announcement(before, "en")[0] == ""  # nothing done yet
    first_move(table)
    view = view_in(table, "en")
    mover = next(p.name for p in before.players if p.to_move)
    after = next(p.name for p in view.players if p.to_move)
    assert announcement(view, "en") == (f"{mover} played nine of hearts", f"{after} to move")
    # The log shows the card as the table does.
    assert view.last_actions[0] == f"{mover} played 9♥"

    with translation.override("pl"):
        names = {p.seat: p.name for p in view_in(table, "pl").players}
    said, next_ = announcement(view_in(table, "pl"), "pl")
    mover_seat = next(p.seat for p in before.players if p.to_move)
    after_seat = next(p.seat for p in view.players if p.to_move)
    assert (said, next_) == (
        f"{names[mover_seat]} zagrał: dziewiątka kier",
        f"ruch: {names[after_seat]}",
    )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ({"seat": 0, "type": "play", "cards": ["9H"]}, "Ola played nine of hearts"),
        (
            {"seat": 1, "type": "pickup", "cards": ["KS", "QD", "10C"]},
            "Bot: greedy (seat 2) picked up king of spades, queen of diamonds, ten of clubs",
        ),
        (
            {"seat": 0, "type": "play", "cards": ["AS", "X1"], "auto": True},
            "Ola finished with ace of spades, joker",
        ),
        ({"seat": 1, "type": "timeout"}, "Bot: greedy (seat 2) ran out of time"),
    ],
)
def test_an_action_in_spoken_words(entry: dict, said: str):
    names = {0: "Ola", 1: "Bot: greedy (seat 2)"}
    with translation.override("en"):
        assert describe_action(entry, names, spoken=True) == said
        assert "♥" not in said and "♠" not in said


def test_an_action_in_spoken_polish():
    with translation.override("pl"):
        line = describe_action(
            {"seat": 0, "type": "pickup", "cards": ["KS", "QD"]}, {0: "Ola"}, spoken=True
        )
    assert line == "Ola wziął: król pik, dama karo"
