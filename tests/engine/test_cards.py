"""Card codes and labels (RULES §1)."""

import pytest

from games.engine import card_code, card_label, card_rank_label, is_spade, parse_card


@pytest.mark.parametrize("code", ["9H", "10S", "JD", "QC", "KH", "AS", "2C", "X1", "X2"])
def test_s1_card_codes_round_trip(code):
    assert card_code(parse_card(code)) == code


@pytest.mark.parametrize("bad", ["ZZ", "9h", "1S", "11H", "TH", "", " 9H", "X3", None, 9])
def test_s1_parse_card_rejects_unknown_code_clearly(bad):
    with pytest.raises(ValueError, match="unknown card code"):
        parse_card(bad)


def test_s1_parse_card_message_names_the_code():
    with pytest.raises(ValueError, match="unknown card code 'ZZ'"):
        parse_card("ZZ")


@pytest.mark.parametrize(
    ("code", "label"),
    [("9H", "9♥"), ("10S", "10♠"), ("QD", "Q♦"), ("AC", "A♣"), ("X1", "Joker"), ("X2", "Joker")],
)
def test_s1_card_label_shows_suit_symbols(code, label):
    assert card_label(code) == label


def test_s1_rank_order_ignores_suits():
    """Suits never affect order: the id's rank part orders the cards."""
    order = ["9C", "10S", "JH", "QD", "KC", "AS"]
    assert [parse_card(c) >> 2 for c in order] == sorted(parse_card(c) >> 2 for c in order)
    assert parse_card("9C") >> 2 == parse_card("9S") >> 2


def test_s1_joker_is_not_a_spade_and_has_no_rank():
    assert is_spade("AS") and is_spade("10S")
    assert not is_spade("AH")
    assert not is_spade("X1")
    assert card_rank_label("X2") is None
    assert card_rank_label("10D") == "10"
