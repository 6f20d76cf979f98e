"""Table options (``Rules``) and the named profiles (RULES.md, all sections)."""

import dataclasses

import pytest

from games.engine import PROFILES, Rules, profile_for


def test_rules_defaults_are_the_rules_md_defaults():
    r = Rules()
    assert r.to_json() == {
        "deck": 24,
        "jokers": 0,
        "beton": 0,
        "three_cards": "nines",
        "pickup": "three",
        "voluntary_pickup": True,
        "spades_back": False,
        "tie_rule": "any_final_play",
        "max_actions": 500,
        "max_actions_result": "tie",
    }


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Rules().deck = 52  # type: ignore[misc]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("deck", 36, "Rules.deck must be one of 24, 52"),
        ("deck", "24", "Rules.deck"),
        ("jokers", 1, "Rules.jokers"),
        ("jokers", True, "Rules.jokers"),
        ("beton", 4, "Rules.beton"),
        ("three_cards", "two", "Rules.three_cards"),
        ("pickup", "all", "Rules.pickup"),
        ("voluntary_pickup", 1, "true or false"),
        ("spades_back", "yes", "true or false"),
        ("tie_rule", "never", "Rules.tie_rule"),
        ("max_actions", 9, "between 10 and 10000"),
        ("max_actions", 10_001, "between 10 and 10000"),
        ("max_actions", 50.0, "integer"),
        ("max_actions", True, "integer"),
        ("max_actions_result", "loser", "Rules.max_actions_result"),
    ],
)
def test_rules_reject_impossible_values_saying_why(field, value, message):
    with pytest.raises(ValueError, match=message):
        Rules(**{field: value})


def test_rules_json_round_trip():
    r = Rules(deck=52, jokers=2, beton=2, three_cards="any", spades_back=True, max_actions=77)
    assert Rules.from_json(r.to_json()) == r


def test_rules_from_json_rejects_unknown_keys():
    with pytest.raises(ValueError, match=r"unknown rule option.*'spades'"):
        Rules.from_json({"spades": True})


def test_rules_from_json_missing_keys_take_defaults():
    assert Rules.from_json({"deck": 52}) == Rules(deck=52)


def test_s2_two_to_four_players():
    r = Rules()
    for n in (2, 3, 4):
        r.validate_for_players(n)
    for n in (1, 5, 0, "3"):
        with pytest.raises(ValueError, match="2 to 4 players"):
            r.validate_for_players(n)


def test_s2_beton_leaves_every_player_a_card_in_hand():
    """The largest beton (3) with 4 players still leaves 12 of 24 cards for the hands."""
    Rules(beton=3).validate_for_players(4)
    assert Rules(beton=3).deck_size - 3 * 4 >= 4


def test_s1_base_card_and_decks():
    assert Rules().base_card == "9H"
    assert Rules(deck=52).base_card == "2H"
    assert Rules().deck_codes()[:5] == ["9S", "9H", "9D", "9C", "10S"]
    assert len(Rules(deck=52, jokers=2).deck_codes()) == 54
    assert Rules(jokers=2).deck_codes()[-2:] == ["X1", "X2"]
    assert not Rules().contains("8H")
    assert not Rules().contains("X1")
    assert Rules(jokers=2).contains("X2")


def test_profiles_cover_the_required_tables():
    assert PROFILES["kurnik"].rules == Rules()
    assert PROFILES["english"].rules == Rules(
        three_cards="match", pickup="three_or_more", voluntary_pickup=False
    )
    assert PROFILES["piki_cofane"].rules == Rules(spades_back=True)
    assert PROFILES["beton"].rules == Rules(beton=3)
    assert PROFILES["deck52"].rules == Rules(deck=52)
    assert PROFILES["tournament"].rules == Rules(max_actions_result="most_cards")
    for key, profile in PROFILES.items():
        assert profile.key == key
        for text in (
            profile.name_en,
            profile.name_pl,
            profile.description_en,
            profile.description_pl,
        ):
            assert isinstance(text, str) and text


def test_profile_for_finds_the_matching_profile_or_none():
    assert profile_for(Rules()).key == "kurnik"
    assert profile_for(Rules(spades_back=True)).key == "piki_cofane"
    assert profile_for(Rules(spades_back=True, beton=2)) is None
