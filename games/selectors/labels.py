"""Things in words, in the active language: a card (``CardView``), a table's rules and
time control, an action of the log and a hand's outcome, a bot, a rating change."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from games.cards import cards_in_words, cards_spoken
from games.engine import PROFILES, Reason, Rules, card_label, parse_card
from games.models import BotLevel, RatingChange
from games.ratings import display_rating
from games.teaching import option_anchor

SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3, "X": 4}


# --- cards -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardView:
    code: str
    label: str
    rank: str
    suit: str  # S H D C, or X for a joker
    red: bool

    @classmethod
    def of(cls, code: str) -> CardView:
        if code.startswith("X"):
            return cls(code, _("Joker"), "★", "X", False)
        rank, suit = code[:-1], code[-1]
        return cls(code, card_label(code), rank, suit, suit in "HD")


@functools.lru_cache(maxsize=512)
def card_view(code: str, language: str | None) -> CardView:
    """A card in words, made once per card and ``language`` (the active one: a table
    shows a dozen cards per viewer and move)."""
    return CardView.of(code)


def card_sort_key(code: str) -> tuple[int, int]:
    """Cards in the order a hand shows them: by rank, then suit; the jokers (``X1``,
    ``X2``, whose last character names no suit) last."""
    return parse_card(code), SUIT_ORDER["X" if code.startswith("X") else code[-1]]


# --- a table's settings ------------------------------------------------------------------


def profile_name(key: str, language: str) -> str:
    profile = PROFILES.get(key)
    if profile is None:
        return _("Custom rules")
    return profile.name_pl if language.startswith("pl") else profile.name_en


@dataclass(frozen=True)
class RuleLine:
    """One table option in words and the anchor on /rules/ of the section explaining it."""

    text: str
    anchor: str


def rules_summary(rules: Rules) -> list[RuleLine]:
    """Every option of a table in words, in the active language, each with its anchor on
    /rules/: the one mapping from options to words used wherever a table's rules show."""
    three = {
        "nines": _("Three nines only on the lone base card."),
        "match": _("Three cards of the top card's rank."),
        "any": _("Three cards of one rank, equal to or higher than the top."),
    }[rules.three_cards]
    pickup = {
        "three": _("A pick-up takes the top three cards."),
        "three_or_more": _("A pick-up takes three cards or more, as the player chooses."),
        "three_or_all": _("A pick-up takes three cards or everything above the base card."),
    }[rules.pickup]
    lines = [
        (
            "deck",
            _("%(deck)d-card deck, base card %(base)s.")
            % {"deck": rules.deck, "base": card_label(rules.base_card)},
        ),
        ("three_cards", three),
        ("pickup", pickup),
        (
            "voluntary_pickup",
            _("A player may pick up even when he could play.")
            if rules.voluntary_pickup
            else _("A player may pick up only when he cannot play."),
        ),
    ]
    if rules.spades_back:
        lines.append(("spades_back", _("A spade on top sends the turn back (piki cofane).")))
    if rules.beton:
        lines.append(("beton", _("Beton: %(n)d face-down cards per player.") % {"n": rules.beton}))
    if rules.jokers:
        lines.append(
            ("jokers", _("Two jokers: played alone on anything, they take the covered rank."))
        )
    lines.append(
        (
            "tie_rule",
            _("A tie needs exactly one ace or four aces as the last play.")
            if rules.tie_rule == "aces_only"
            else _("The last player ties if one legal play empties his hand."),
        )
    )
    lines.append(
        (
            "max_actions_result",
            _("After %(n)d actions the hand ends: the player holding most cards loses.")
            % {"n": rules.max_actions}
            if rules.max_actions_result == "most_cards"
            else _("After %(n)d actions the hand ends in a tie.") % {"n": rules.max_actions},
        )
    )
    return [RuleLine(text, option_anchor(option)) for option, text in lines]


def time_control_label(base_seconds: int, increment_seconds: int, move_days: int = 0) -> str:
    """ "3+2" (minutes per hand + seconds per action), or a correspondence table's days
    per move in words."""
    if move_days:
        return move_days_label(move_days)
    minutes, seconds = divmod(base_seconds, 60)
    base = f"{minutes}" if not seconds else f"{minutes}:{seconds:02d}"
    return f"{base}+{increment_seconds}"


def move_days_label(move_days: int) -> str:
    """A correspondence time control in words: "3 days per move"."""
    return ngettext("%(n)d day per move", "%(n)d days per move", move_days) % {"n": move_days}


# --- what happened -----------------------------------------------------------------------


def describe_action(
    entry: dict[str, Any],
    names: dict[int, str],
    *,
    language: str | None = None,
    spoken: bool = False,
) -> str:
    """One line of the action log in words: 'Ola picked up K♠ Q♦ Q♣' (``language``: the
    active one, when the caller has it at hand); ``spoken``: as a screen reader should
    say it, 'Ola picked up king of spades, queen of diamonds'."""
    return _action_line(
        language or translation.get_language(),
        names.get(entry["seat"], "?"),
        entry["type"],
        tuple(entry.get("cards", ())),
        bool(entry.get("auto")),
        spoken,
    )


@functools.lru_cache(maxsize=4096)
def _action_line(
    language: str | None, name: str, kind: str, cards: tuple[str, ...], auto: bool, spoken: bool
) -> str:
    """``describe_action``'s words, made once per line and language: a table shows its
    last few actions after every move, all but one of them the same as before."""
    if kind == "timeout":
        return _("%(name)s ran out of time") % {"name": name}
    words = {"name": name, "cards": (cards_spoken if spoken else cards_in_words)(cards)}
    # Spoken, the cards are words in the nominative ("dziewiątka kier"): the Polish
    # sentences differ from the written ones ("zagrał: dziewiątka kier").
    if kind == "pickup":
        if spoken:
            return pgettext("spoken", "%(name)s picked up %(cards)s") % words
        return _("%(name)s picked up %(cards)s") % words
    if auto:
        if spoken:
            return pgettext("spoken", "%(name)s finished with %(cards)s") % words
        return _("%(name)s finished with %(cards)s") % words
    if spoken:
        return pgettext("spoken", "%(name)s played %(cards)s") % words
    return _("%(name)s played %(cards)s") % words


def describe_outcome(outcome: dict[str, Any], names: dict[int, str]) -> str:
    reason = outcome["reason"]
    if reason == Reason.ABORTED:  # by a moderator (services.hand_stop_without_letter)
        return _("A moderator aborted this hand: nobody gets a letter.")
    if outcome["loser"] is None:
        if reason == "max_actions":
            return _("The hand reached its action limit: a tie, nobody gets a letter.")
        return _("A tie: %(name)s emptied his hand with the last play. Nobody gets a letter.") % {
            "name": names.get((outcome.get("final_play") or {}).get("seat"), "?")
        }
    name = names.get(outcome["loser"], "?")
    return {
        "timeout": _("%(name)s ran out of time and loses the hand."),
        "max_actions": _("The hand reached its action limit: %(name)s holds most cards and loses."),
        "last_player": _("%(name)s is left holding cards and loses the hand."),
    }.get(reason, _("%(name)s loses the hand.")) % {"name": name}


def bot_label(level: str) -> str:
    return str(BotLevel(level).label)


def rating_delta(change: RatingChange | None) -> str:
    """A match's effect on the shown rating, signed ("+23", "-8"), or "" if unrated."""
    if change is None:
        return ""
    return f"{display_rating(change.mu_after) - display_rating(change.mu_before):+d}"
