"""Every engine refusal has a message for players, in English and in Polish, naming cards
as the table does (9♥, never the engine's 9H), and a Polish player reads the engine's
refusal of his move in Polish."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games import refusals, services
from games.engine import (
    Illegal,
    IllegalMove,
    Malformed,
    MalformedMove,
    Play,
    Rules,
    card_label,
    move_from_json,
)
from games.models import Hand
from tests.engine.illegal_cases import CASES, refusal
from tests.engine.positions import pos
from tests.factories import make_table, seated_users

# What a player reads in English, as before the codes (when the messages were found
# again from the engine's English sentences).
ENGLISH = {
    Illegal.HAND_OVER: "the hand is over",
    Illegal.NOT_HELD: "you do not hold Q♥",
    Illegal.OPENING: "the hand opens with the base card 9♥ alone, or all four of its rank",
    Illegal.CARD_TOO_LOW: ("a 9 cannot go on a 10: a card must be equal to or higher than the top"),
    Illegal.TWO_CARDS: "never two cards at once: play one card, or three or four of a rank",
    Illegal.TOO_MANY_CARDS: "at most four cards go down at once",
    Illegal.JOKER_IN_SET: "a joker is played alone, never in a set",
    Illegal.MIXED_RANKS: "cards played together must all be of one rank",
    Illegal.FOUR_TOO_LOW: "J cannot go on a Q: a set must be equal to or higher than the top",
    Illegal.THREE_NOT_BASE_RANK: (
        "at this table three cards go down only as the other three of the base card's rank"
        " on the lone base card"
    ),
    Illegal.THREE_NOT_TOP_RANK: "three cards must be of the top card's rank",
    Illegal.THREE_TOO_LOW: "J cannot go on a Q: a set must be equal to or higher than the top",
    Illegal.PICKUP_BEFORE_OPENING: (
        "the hand opens with the base card: nothing can be picked up yet"
    ),
    Illegal.PICKUP_BASE_ONLY: "nothing can be picked up while the pile holds only the base card",
    Illegal.PICKUP_TAKES_ALL: "with 1 cards above the base card a pick-up takes them all",
    Illegal.PICKUP_COUNT: "a pick-up of 4 cards is not allowed at this table",
    Illegal.PICKUP_NOT_VOLUNTARY: "at this table you may pick up only when you cannot play",
}


def test_the_table_has_one_message_for_every_code():
    assert set(refusals.MESSAGES) == set(Illegal)
    assert set(ENGLISH) == set(Illegal)


@pytest.mark.parametrize("code", list(Illegal))
def test_every_code_has_an_english_and_a_polish_message(code):
    exc = refusal(code)
    assert exc.code is code
    message = refusals.MESSAGES[code]
    with translation.override("en"):
        english = refusals.illegal_move_text(exc)
        msgid = str(message.text)
    assert english == f"Illegal move: {ENGLISH[code]}"
    with translation.override("pl"):
        polish = refusals.illegal_move_text(exc)
        translated = str(message.text)
    # The message is in the compiled Polish catalogue, and so the player reads Polish.
    assert translated and translated != msgid
    assert polish.startswith("Niedozwolony ruch: ") and polish != english
    assert "RULES" not in polish and "RULES" not in english


def test_a_joker_on_top_is_said_in_either_language():
    state = pos(["KS AH", "9S 10H QC"], pile="9H 10S X1", to_move=1, rules=Rules(jokers=2))
    with pytest.raises(IllegalMove) as info:
        state.apply(Play("9S"))
    with translation.override("en"):
        assert refusals.illegal_move_text(info.value) == (
            "Illegal move: a 9 cannot go on a 10 (the joker on top counts as the 10 it covers):"
            " a card must be equal to or higher than the top"
        )
    with translation.override("pl"):
        assert refusals.illegal_move_text(info.value) == (
            "Niedozwolony ruch: nie można położyć 9 na 10 (joker na wierzchu ma wartość"
            " przykrytej karty: 10): karta musi być równa lub wyższa od wierzchniej"
        )


def test_the_cases_cover_every_code():
    assert set(CASES) == set(Illegal)


# --- cards in words ---------------------------------------------------------------------------

# An engine card code standing alone: "9H", "10S", "QD", "X1".
CARD_CODE = re.compile(r"(?<![\w])(?:10|[2-9JQKA])[SHDC](?![\w])|\bX[12]\b")
# What a player could send that is no move (one of each kind of MalformedMove).
MALFORMED = {
    Malformed.NOT_AN_OBJECT: ["9H"],
    Malformed.UNKNOWN_TYPE: {"type": "9H"},
    Malformed.KEYS: {"type": "play", "cards": ["9H"], "card": "9H"},
    Malformed.CARDS_NOT_CODES: {"type": "play", "cards": "9H"},
    Malformed.NO_CARDS: {"type": "play", "cards": []},
    Malformed.UNKNOWN_CARD: {"type": "play", "cards": ["9H", "ZZ"]},
    Malformed.CARD_TWICE: {"type": "play", "cards": ["9H", "10S", "9H"]},
    Malformed.BAD_COUNT: {"type": "pickup", "count": -1},
}


def test_the_pattern_finds_engine_codes():
    assert CARD_CODE.findall("you do not hold 9H, 10S and X1") == ["9H", "10S", "X1"]
    assert not CARD_CODE.findall("you do not hold 9♥ 10♠ Joker (RULES §3)")


def test_a_card_not_held_is_named_as_the_table_names_it():
    exc = IllegalMove(Illegal.NOT_HELD, cards=("9H", "10S", "X1"))
    with translation.override("en"):
        assert refusals.illegal_move_text(exc) == "Illegal move: you do not hold 9♥ 10♠ Joker"
    with translation.override("pl"):
        assert refusals.illegal_move_text(exc) == "Niedozwolony ruch: nie masz 9♥ 10♠ Joker"


@pytest.mark.parametrize("language", ["en", "pl"])
@pytest.mark.parametrize("code", list(Illegal))
def test_no_refusal_of_a_move_shows_a_card_code(code, language):
    exc = refusal(code)
    with translation.override(language):
        text = refusals.illegal_move_text(exc)
    assert not CARD_CODE.search(text), text


def test_every_kind_of_malformed_move_has_a_message():
    assert set(refusals.MALFORMED) == set(Malformed) == set(MALFORMED)


@pytest.mark.parametrize("code", list(Malformed))
def test_a_malformed_move_is_said_in_either_language_without_card_codes(code):
    with pytest.raises(MalformedMove) as info:
        move_from_json(MALFORMED[code])
    assert info.value.code is code
    with translation.override("en"):
        english = refusals.malformed_move_text(info.value)
    with translation.override("pl"):
        polish = refusals.malformed_move_text(info.value)
    assert english.startswith("That is not a move: ")
    assert polish.startswith("To nie jest ruch: ")
    assert english.removeprefix("That is not a move: ") != polish.removeprefix("To nie jest ruch: ")
    assert not CARD_CODE.search(english) and not CARD_CODE.search(polish), (english, polish)


def test_a_card_chosen_twice_is_named_as_the_table_names_it():
    with pytest.raises(MalformedMove) as info:
        move_from_json(MALFORMED[Malformed.CARD_TWICE])
    with translation.override("en"):
        assert refusals.malformed_move_text(info.value) == "That is not a move: 9♥ is chosen twice"
    with translation.override("pl"):
        assert refusals.malformed_move_text(info.value) == "To nie jest ruch: 9♥ wybrano dwa razy"


# --- through the service --------------------------------------------------------------------


@pytest.mark.django_db
def test_an_engine_refusal_reaches_a_polish_player_in_polish():
    table = make_table(players=2)
    services.match_start(table_id=table.pk, by=table.owner)
    hand = Hand.objects.get(match__table=table)
    state = hand.engine_state
    mover = hand.match.players.get(seat=state.to_move).user
    assert mover in seated_users(table)
    not_held = state.hand(1 - state.to_move)[0]  # a card of the other player's
    other_card = next(c for c in state.hand(state.to_move) if c != "9H")

    def act(move):
        with pytest.raises(services.Refused) as info:
            services.execute(
                services.move_action(move, hand_id=hand.pk, version=hand.version, user=mover)
            )
        return info.value.message

    with translation.override("pl"):
        assert act({"type": "play", "cards": [not_held]}) == (
            f"Niedozwolony ruch: nie masz {card_label(not_held)}"
        )
        assert act({"type": "play", "cards": [other_card]}) == (
            "Niedozwolony ruch: rozdanie otwiera się samą kartą bazową 9♥ albo wszystkimi"
            " czterema kartami tej wartości"
        )
        assert act({"type": "pickup", "count": 3}) == (
            "Niedozwolony ruch: rozdanie otwiera karta bazowa: nie ma jeszcze czego brać"
        )
        assert act({"type": "timeout"}) == (
            "Niedozwolony ruch: upływ czasu nie jest ruchem, który gracz może wykonać"
        )
    with translation.override("en"):
        assert act({"type": "play", "cards": [not_held]}) == (
            f"Illegal move: you do not hold {card_label(not_held)}"
        )
        assert act({"type": "timeout"}) == (
            "Illegal move: a timeout is not a move a player can make"
        )
        assert act({"type": "play", "cards": [not_held, not_held]}) == (
            f"That is not a move: {card_label(not_held)} is chosen twice"
        )
    with translation.override("pl"):
        assert act({"type": "play", "cards": ["ZZ"]}) == "To nie jest ruch: nie ma takiej karty"
    hand.refresh_from_db()
    assert hand.version == 1 and not hand.is_over
