"""The table page's websocket commands, read at the edge (games.commands): no database."""

from __future__ import annotations

import json
import timeit

import pytest
from django.utils import translation

from games import commands
from games.commands import (
    AbortHand,
    AddBot,
    AnnulMatch,
    BadCommand,
    Chat,
    HideChat,
    Leave,
    PickUp,
    Play,
    Pong,
    Rematch,
    RemoveBot,
    RemovePlayer,
    Resync,
    Sit,
    Start,
)

UNREADABLE = "That message could not be read."


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


# Each command as the page sends it (form values are strings; htmx adds HEADERS).
HEADERS = {"HX-Request": "true", "HX-Trigger": None, "HX-Target": None}
EXAMPLES = [
    ({"action": "pong", "t": "12.5"}, Pong(12.5)),
    ({"action": "pong", "t": 7}, Pong(7.0)),
    ({"action": "resync"}, Resync()),
    ({"action": "play", "cards": "9H", "version": "1"}, Play(("9H",), 1)),
    ({"action": "play", "cards": "9H,9D,9S", "version": "4"}, Play(("9H", "9D", "9S"), 4)),
    ({"action": "play", "cards": ["KH", "KD"], "version": 2}, Play(("KH", "KD"), 2)),
    ({"action": "pickup", "count": "1", "version": "3"}, PickUp(1, 3)),
    ({"action": "pickup", "version": "3"}, PickUp(3, 3)),
    ({"action": "sit", "position": "2"}, Sit(2)),
    ({"action": "sit", "position": ""}, Sit(None)),
    ({"action": "sit"}, Sit(None)),
    ({"action": "leave"}, Leave()),
    ({"action": "add_bot", "position": "1", "level": "ismcts"}, AddBot(1, "ismcts")),
    ({"action": "add_bot", "position": "1"}, AddBot(1, "")),
    ({"action": "remove_bot", "position": "3"}, RemoveBot(3)),
    ({"action": "start"}, Start()),
    ({"action": "rematch"}, Rematch()),
    ({"action": "chat", "text": "  good   luck  "}, Chat("  good   luck  ")),
    ({"action": "chat"}, Chat("")),
    ({"action": "hide_chat", "message": "17"}, HideChat(17, "")),
    ({"action": "hide_chat", "message": "17", "reason": "rude"}, HideChat(17, "rude")),
    ({"action": "abort_hand", "reason": "lag storm"}, AbortHand("lag storm")),
    ({"action": "abort_hand"}, AbortHand("")),
    ({"action": "annul_match", "reason": "collusion"}, AnnulMatch("collusion")),
    ({"action": "remove_player", "user": "5", "reason": "stalling"}, RemovePlayer(5, "stalling")),
]


@pytest.mark.parametrize(("content", "expected"), EXAMPLES)
def test_each_command_parses_from_the_json_the_page_sends(content, expected):
    assert commands.parse(content) == expected
    assert commands.parse({**content, "HEADERS": HEADERS}) == expected  # htmx's extra key
    assert commands.read(json.dumps(content), max_length=4096) == expected


def test_every_command_has_an_example_and_a_handler():
    from games.consumers import LOOP_HANDLERS, MOVE_COMMANDS, SERVICE_HANDLERS

    every = set(commands.COMMANDS.values())
    assert {type(expected) for _content, expected in EXAMPLES} == every
    handled = [set(LOOP_HANDLERS), set(MOVE_COMMANDS), set(SERVICE_HANDLERS)]
    assert set.union(*handled) == every
    assert sum(len(kinds) for kinds in handled) == len(every)  # each handled once
    # What anyone may send is answered in the event loop; the rest needs a signed-in user.
    assert {cls for cls in every if cls.anyone} == set(LOOP_HANDLERS)


def test_commands_are_frozen_values():
    play = commands.parse({"action": "play", "cards": "9H", "version": "1"})
    with pytest.raises(AttributeError):
        play.version = 2
    assert play.cards == ("9H",)
    assert PickUp(3, 1).count == 3
    assert hash(play) == hash(Play(("9H",), 1))


def refusal(content) -> BadCommand:
    with pytest.raises(BadCommand) as caught:
        commands.parse(content)
    return caught.value


@pytest.mark.parametrize(
    "content",
    [
        {"action": "dance"},
        {"action": ""},
        {"action": 5},
        {"action": ["play"]},  # unhashable: no crash
        {"action": None},
        {"type": "play", "cards": "9H"},
        {},
    ],
)
def test_an_unknown_command_is_refused(content):
    bad = refusal(content)
    assert str(bad.message) == "Unknown command."
    assert bad.needs_login and not bad.quiet  # a visitor is told to log in instead


@pytest.mark.parametrize(
    "content",
    [
        # required numbers missing or of the wrong type
        {"action": "play", "cards": "9H"},
        {"action": "play", "cards": "9H", "version": "one"},
        {"action": "play", "cards": "9H", "version": None},
        {"action": "play", "cards": "9H", "version": 1.5},
        {"action": "play", "cards": "9H", "version": True},
        {"action": "play", "cards": "9H", "version": [1]},
        {"action": "play", "cards": "9H", "version": str(2**40)},
        {"action": "play", "cards": [9], "version": "1"},
        {"action": "play", "cards": {"9H": 1}, "version": "1"},
        {"action": "pickup"},
        {"action": "pickup", "count": "three", "version": "1"},
        {"action": "sit", "position": "first"},
        {"action": "sit", "position": [1]},
        {"action": "add_bot", "level": "greedy"},
        {"action": "add_bot", "position": "1", "level": 3},
        {"action": "remove_bot"},
        {"action": "remove_bot", "position": {}},
        {"action": "hide_chat"},
        {"action": "hide_chat", "message": "x"},
        {"action": "remove_player", "reason": "stalling"},
        {"action": "remove_player", "user": "5", "reason": ["a"]},
        {"action": "abort_hand", "reason": 7},
        {"action": "annul_match", "reason": None},
        {"action": "chat", "text": ["hello"]},
        {"action": "chat", "text": 42},
    ],
)
def test_a_command_with_a_missing_or_mistyped_field_cannot_be_read(content):
    bad = refusal(content)
    assert str(bad.message) == UNREADABLE
    assert bad.needs_login and not bad.quiet


@pytest.mark.parametrize("cards", ["", ",", [], None])
def test_a_play_without_cards_asks_for_one(cards):
    content = {"action": "play", "version": "1"}
    if cards is not None:
        content["cards"] = cards
    assert str(refusal(content).message) == "Choose a card to play."


@pytest.mark.parametrize("t", [None, "", "soon", "nan", "inf", "-1e400", [1], {"t": 1}])
def test_an_unreadable_pong_is_dropped_quietly(t):
    content = {"action": "pong"} if t is None else {"action": "pong", "t": t}
    bad = refusal(content)
    assert bad.quiet and not bad.needs_login


@pytest.mark.parametrize("text", [None, "not json", "[1, 2]", '"play"', "null", "x" * 5000])
def test_a_frame_that_is_no_json_object_cannot_be_read_by_anyone(text):
    with pytest.raises(BadCommand) as caught:
        commands.read(text, max_length=4096)
    assert str(caught.value.message) == UNREADABLE
    assert not caught.value.needs_login  # a visitor gets the same answer


def test_refusals_are_translated_when_shown_in_the_viewers_language():
    bad = refusal({"action": "dance"})
    with translation.override("pl"):
        assert str(bad.message) == "Nieznane polecenie."
    with translation.override("en"):
        assert str(bad.message) == "Unknown command."


def test_parsing_a_move_is_cheap():
    """The hot path: hundreds of moves a second per process; parsing must not show."""
    frame = json.dumps({"action": "play", "cards": "9H,9D", "version": "12", "HEADERS": HEADERS})
    runs = 2000
    seconds = min(timeit.repeat(lambda: commands.read(frame, max_length=4096), number=runs))
    assert seconds / runs < 100e-6  # measured ~3 µs; generous for a loaded CI machine
