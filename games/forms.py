"""The create-table form: a named rule profile or every option by hand, seats, clock."""

from __future__ import annotations

from typing import Any

from django import forms
from django.urls import reverse
from django.utils import translation
from django.utils.functional import lazy
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from games.engine import PROFILES, Rules
from games.selectors import move_days_label
from games.services import (
    DAY_PRESETS,
    MAX_BASE_SECONDS,
    MAX_INCREMENT_SECONDS,
    MIN_BASE_SECONDS,
    TIME_PRESETS,
)
from games.teaching import option_section

CUSTOM = "custom"


def _rules_link(option: str | None) -> str:
    if option is None:
        text = _("Every rule and option explained")
        return format_html('<a href="{}" class="rules-link">{}</a>', reverse("rules"), text)
    section = option_section(option)
    # The same visible words beside every option: a screen reader's list of links also
    # hears which section each one opens.
    return format_html(
        '<a href="{}#{}" class="rules-link">{}<span class="visually-hidden"> ({})</span></a>',
        reverse("rules"),
        section.anchor,
        _("what is this?"),
        section.title.in_language(translation.get_language()),
    )


# A field's help text linking to the section of /rules/ that explains the option (None:
# the page itself), made when a form is drawn: in the page's language, after URLs load.
rules_link = lazy(_rules_link, str)


def profile_choices() -> list[tuple[str, str]]:
    polish = (translation.get_language() or "").startswith("pl")
    choices = [
        (
            p.key,
            (f"{p.name_pl}: {p.description_pl}" if polish else f"{p.name_en}: {p.description_en}"),
        )
        for p in PROFILES.values()
    ]
    return [*choices, (CUSTOM, str(_("Custom: set every option below")))]


# The time control: a named preset, or "custom" with the seconds given by hand. The table
# form and the tournament form share these, so both offer the same presets.
TIME_CONTROL_LABEL = _("Time control (minutes per hand + seconds per action)")
# The fields a page shows only while "custom" is chosen (static/js/forms.js hides them).
CUSTOM_TIME_FIELDS = ("base_seconds", "increment_seconds")


def time_control_choices() -> list[tuple[str, str]]:
    """The presets of ``TIME_PRESETS`` and "custom", as choices."""
    return [*((key, key) for key in TIME_PRESETS), (CUSTOM, _("Custom"))]


def time_and_day_choices() -> list[tuple[str, Any]]:
    """``time_control_choices`` and the correspondence controls (``DAY_PRESETS``), each
    kind in its group: what a table or a challenge may be played at."""
    return [
        (_("Real time"), time_control_choices()),
        (
            _("Correspondence"),
            [(key, move_days_label(days)) for key, days in DAY_PRESETS.items()],
        ),
    ]


def time_control_of(base_seconds: int, increment_seconds: int) -> str:
    """The preset with these seconds, else "custom" (to fill a form in from a record)."""
    for key, seconds in TIME_PRESETS.items():
        if seconds == (base_seconds, increment_seconds):
            return key
    return CUSTOM


def clean_time_control(form: forms.Form, data: dict[str, Any]) -> None:
    """Set ``move_days`` in ``data`` (0 but for a correspondence control), and
    ``base_seconds`` and ``increment_seconds`` from the chosen preset, or check the ones
    given by hand for "custom" (an error on the form if missing). A form posted without
    a choice (an older page) counts as "custom"."""
    choice = data.get("time_control") or CUSTOM
    data["move_days"] = DAY_PRESETS.get(choice, 0)
    if choice in DAY_PRESETS:
        # Unused at a correspondence table: the defaults of a table, to be stored.
        data["base_seconds"], data["increment_seconds"] = TIME_PRESETS["3+2"]
        return
    if choice == CUSTOM:
        if data.get("base_seconds") is None and "base_seconds" not in form.errors:
            form.add_error("base_seconds", _("Give the seconds per hand."))
        data["increment_seconds"] = data.get("increment_seconds") or 0
    else:
        data["base_seconds"], data["increment_seconds"] = TIME_PRESETS[choice]


class TableForm(forms.Form):
    CUSTOM_TIME_FIELDS = CUSTOM_TIME_FIELDS

    name = forms.CharField(label=_("Table name"), max_length=60, required=False)
    profile = forms.ChoiceField(
        label=_("Rules"), choices=profile_choices, initial="kurnik", help_text=rules_link(None)
    )
    seats = forms.TypedChoiceField(
        label=_("Seats"), choices=[(2, "2"), (3, "3"), (4, "4")], coerce=int, initial=4
    )
    time_control = forms.ChoiceField(
        label=TIME_CONTROL_LABEL, choices=time_and_day_choices, initial="3+2"
    )
    base_seconds = forms.IntegerField(
        label=_("Custom: seconds per hand"),
        min_value=MIN_BASE_SECONDS,
        max_value=MAX_BASE_SECONDS,
        required=False,
    )
    increment_seconds = forms.IntegerField(
        label=_("Custom: seconds added per action"),
        min_value=0,
        max_value=MAX_INCREMENT_SECONDS,
        required=False,
    )
    is_public = forms.BooleanField(
        label=_("Public (listed in the lobby; anyone may watch)"), required=False, initial=True
    )
    rated = forms.BooleanField(
        label=_("Rated (the result changes the players' ratings)"), required=False, initial=True
    )

    # Every option of RULES.md, used when the profile is "custom".
    deck = forms.TypedChoiceField(
        help_text=rules_link("deck"),
        label=_("Deck"),
        choices=[(24, _("24 cards (9 to ace)")), (52, _("52 cards (2 to ace)"))],
        coerce=int,
        initial=24,
    )
    jokers = forms.TypedChoiceField(
        help_text=rules_link("jokers"),
        label=_("Jokers"),
        choices=[(0, _("none")), (2, _("two"))],
        coerce=int,
        initial=0,
    )
    beton = forms.TypedChoiceField(
        help_text=rules_link("beton"),
        label=_("Beton (face-down cards per player)"),
        choices=[(0, _("none")), (2, "2"), (3, "3")],
        coerce=int,
        initial=0,
    )
    three_cards = forms.ChoiceField(
        help_text=rules_link("three_cards"),
        label=_("Three of a kind"),
        choices=[
            ("nines", _("only the three nines on the lone base card")),
            ("match", _("three of the top card's rank")),
            ("any", _("any three equal to or higher than the top")),
        ],
        initial="nines",
    )
    pickup = forms.ChoiceField(
        help_text=rules_link("pickup"),
        label=_("Pick-up"),
        choices=[
            ("three", _("three cards")),
            ("three_or_more", _("three or more, as the player chooses")),
            ("three_or_all", _("three, or everything above the base card")),
        ],
        initial="three",
    )
    voluntary_pickup = forms.BooleanField(
        help_text=rules_link("voluntary_pickup"),
        label=_("A player may pick up even when he could play"),
        required=False,
        initial=True,
    )
    spades_back = forms.BooleanField(
        help_text=rules_link("spades_back"),
        label=_("Spades send the turn back (piki cofane)"),
        required=False,
        initial=False,
    )
    tie_rule = forms.ChoiceField(
        help_text=rules_link("tie_rule"),
        label=_("Tie"),
        choices=[
            ("any_final_play", _("any final play that empties the hand")),
            ("aces_only", _("only one ace or four aces")),
        ],
        initial="any_final_play",
    )
    max_actions = forms.IntegerField(
        help_text=rules_link("max_actions"),
        label=_("Action limit per hand"),
        min_value=10,
        max_value=10_000,
        initial=500,
    )
    max_actions_result = forms.ChoiceField(
        help_text=rules_link("max_actions_result"),
        label=_("At the action limit"),
        choices=[("tie", _("a tie")), ("most_cards", _("the player with most cards loses"))],
        initial="tie",
    )

    RULE_FIELDS = (
        "deck",
        "jokers",
        "beton",
        "three_cards",
        "pickup",
        "voluntary_pickup",
        "spades_back",
        "tie_rule",
        "max_actions",
        "max_actions_result",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        if data["profile"] == CUSTOM:
            try:
                data["rules"] = Rules(**{name: data[name] for name in self.RULE_FIELDS})
                data["rules"].validate_for_players(data["seats"])
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from exc
            data["profile_key"] = ""
        else:
            data["rules"] = PROFILES[data["profile"]].rules
            data["profile_key"] = data["profile"]
        clean_time_control(self, data)
        return data
