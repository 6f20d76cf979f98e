"""The staff's tournament form (the staff page and the admin share its fields)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django import forms
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _

from games.engine import PROFILES
from games.engine.rules import MAX_ACTIONS_MAX, MAX_ACTIONS_MIN
from games.forms import (
    CUSTOM_TIME_FIELDS,
    TIME_CONTROL_LABEL,
    clean_time_control,
    time_control_choices,
    time_control_of,
)
from games.services import MAX_BASE_SECONDS, MAX_INCREMENT_SECONDS, MIN_BASE_SECONDS
from tournaments.models import Tournament
from tournaments.seating import MAX_PLAYERS, MIN_PLAYERS
from tournaments.services import MAX_SECONDS_BETWEEN_HANDS, TournamentSettings

DATETIME_LOCAL = "%Y-%m-%dT%H:%M"


def profile_choices() -> list[tuple[str, str]]:
    polish = (translation.get_language() or "").startswith("pl")
    return [(p.key, p.name_pl if polish else p.name_en) for p in PROFILES.values()]


class TournamentForm(forms.Form):
    CUSTOM_TIME_FIELDS = CUSTOM_TIME_FIELDS

    name = forms.CharField(label=_("Name"), max_length=80)
    description = forms.CharField(
        label=_("Description"), required=False, widget=forms.Textarea(attrs={"rows": 4})
    )
    starts_at = forms.DateTimeField(
        label=_("Start time"),
        input_formats=[DATETIME_LOCAL, "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_LOCAL),
        help_text=_("Registration is open until the start."),
    )
    min_players = forms.IntegerField(
        label=_("Minimum players"), min_value=MIN_PLAYERS, max_value=MAX_PLAYERS, initial=3
    )
    max_players = forms.IntegerField(
        label=_("Maximum players"), min_value=MIN_PLAYERS, max_value=MAX_PLAYERS, initial=64
    )
    seats_per_table = forms.TypedChoiceField(
        label=_("Seats per table"), choices=[(2, "2"), (3, "3"), (4, "4")], coerce=int, initial=4
    )
    profile = forms.ChoiceField(label=_("Rules"), choices=profile_choices, initial="tournament")
    max_actions = forms.IntegerField(
        label=_("Action limit per hand (the player holding most cards then loses)"),
        min_value=MAX_ACTIONS_MIN,
        max_value=MAX_ACTIONS_MAX,
        initial=500,
    )
    # Not required: a form posted without it (an older page) gives the seconds by hand.
    time_control = forms.ChoiceField(
        label=TIME_CONTROL_LABEL, choices=time_control_choices, initial="3+2", required=False
    )
    base_seconds = forms.IntegerField(
        label=_("Seconds per hand"),
        min_value=MIN_BASE_SECONDS,
        max_value=MAX_BASE_SECONDS,
        initial=180,
        required=False,
    )
    increment_seconds = forms.IntegerField(
        label=_("Seconds added per action"),
        min_value=0,
        max_value=MAX_INCREMENT_SECONDS,
        initial=2,
        required=False,
    )
    seconds_between_hands = forms.FloatField(
        label=_("Seconds between hands"),
        min_value=0,
        max_value=MAX_SECONDS_BETWEEN_HANDS,
        initial=4.0,
    )
    bots_allowed = forms.BooleanField(
        label=_("Bots may be registered (practice and tests)"), required=False
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        low, high = data.get("min_players"), data.get("max_players")
        if low is not None and high is not None and low > high:
            self.add_error("max_players", _("The maximum cannot be below the minimum."))
        clean_time_control(self, data)
        return data

    def to_settings(self) -> TournamentSettings:
        data = self.cleaned_data
        return TournamentSettings(
            name=data["name"],
            description=data["description"],
            starts_at=data["starts_at"],
            min_players=data["min_players"],
            max_players=data["max_players"],
            seats_per_table=data["seats_per_table"],
            profile=data["profile"],
            max_actions=data["max_actions"],
            base_seconds=data["base_seconds"],
            increment_seconds=data["increment_seconds"],
            bots_allowed=data["bots_allowed"],
            seconds_between_hands=data["seconds_between_hands"],
        )

    @classmethod
    def initial_of(cls, tournament: Tournament) -> dict[str, Any]:
        """The form filled in with a tournament's settings (the start in local time)."""
        settings = TournamentSettings.of(tournament)
        return {
            **asdict(settings),
            "starts_at": timezone.localtime(settings.starts_at),
            "time_control": time_control_of(settings.base_seconds, settings.increment_seconds),
        }
