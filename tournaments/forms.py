"""The staff's tournament and schedule forms (the staff pages and the admin share them)."""

from __future__ import annotations

import copy
from dataclasses import asdict
from typing import Any

from django import forms
from django.utils import timezone, translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import Refused
from games.engine import PROFILES
from games.engine.rules import MAX_ACTIONS_MAX, MAX_ACTIONS_MIN
from games.forms import (
    CUSTOM_TIME_FIELDS,
    TIME_CONTROL_LABEL,
    clean_time_control,
    time_control_choices,
    time_control_of,
)
from games.services import (
    MAX_BASE_SECONDS,
    MAX_INCREMENT_SECONDS,
    MIN_BASE_SECONDS,
    TIME_PRESETS,
)
from tournaments import services
from tournaments.models import (
    ARENA_MINUTES_MAX,
    ARENA_MINUTES_MIN,
    WEEKDAY_NAMES,
    Format,
    Tournament,
    TournamentSchedule,
)
from tournaments.occurrences import WEEKDAY_BITS
from tournaments.seating import MAX_PLAYERS, MIN_PLAYERS
from tournaments.services import MAX_SECONDS_BETWEEN_HANDS, TournamentSettings

DATETIME_LOCAL = "%Y-%m-%dT%H:%M"


def profile_choices() -> list[tuple[str, str]]:
    polish = (translation.get_language() or "").startswith("pl")
    return [(p.key, p.name_pl if polish else p.name_en) for p in PROFILES.values()]


# An arena's table sizes as the form offers them: (smallest, largest).
ARENA_TABLES = {"4": (4, 4), "3": (3, 3), "3-4": (3, 4), "2-4": (2, 4)}


class TournamentForm(forms.Form):
    CUSTOM_TIME_FIELDS = CUSTOM_TIME_FIELDS

    name = forms.CharField(label=_("Name"), max_length=80)
    format = forms.ChoiceField(
        label=_("Format"),
        choices=Format.choices,
        initial=Format.ELIMINATION,
        required=False,  # a form posted without it (an older page) makes an elimination
        help_text=_(
            "P-A-N elimination: everyone from the start to the end. Arena: join any time, a"
            " game is a hand, points for places."
        ),
    )
    minutes = forms.IntegerField(
        label=_("Arena: length in minutes"),
        min_value=ARENA_MINUTES_MIN,
        max_value=ARENA_MINUTES_MAX,
        required=False,
        initial=60,
    )
    arena_tables = forms.ChoiceField(
        label=_("Arena: tables"),
        choices=[
            ("4", _("of 4")),
            ("3", _("of 3")),
            ("3-4", _("of 3 to 4")),
            ("2-4", _("of 2 to 4 (two wait for a third first)")),
        ],
        initial="3-4",
        required=False,
    )
    rated = forms.BooleanField(label=_("Arena: rated games"), required=False)
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
        label=_("Minimum players"),
        min_value=MIN_PLAYERS,
        max_value=MAX_PLAYERS,
        initial=3,
        error_messages={"min_value": _("A tournament needs at least %(limit_value)s players.")},
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Written here, in the reader's language: a lazy text cannot take the number early.
        self.fields["min_players"].help_text = gettext(
            "At least %(n)d. With fewer players registered at the start the tournament is "
            "cancelled."
        ) % {"n": MIN_PLAYERS}

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        low, high = data.get("min_players"), data.get("max_players")
        if low is not None and high is not None and low > high:
            self.add_error("max_players", _("The maximum cannot be below the minimum."))
        clean_time_control(self, data)
        data["format"] = data.get("format") or Format.ELIMINATION
        if data.get("format") == Format.ARENA and data.get("minutes") is None:
            self.add_error("minutes", _("An arena needs its length."))
        return data

    def to_settings(self) -> TournamentSettings:
        data = self.cleaned_data
        arena = data["format"] == Format.ARENA
        seats = data["seats_per_table"]
        smallest = 0
        if arena:
            smallest, seats = ARENA_TABLES.get(data.get("arena_tables") or "", (3, 4))
        return TournamentSettings(
            format=data["format"],
            minutes=data.get("minutes") if arena else None,
            seats_min=smallest,
            rated=bool(data.get("rated")) and arena,
            name=data["name"],
            description=data["description"],
            starts_at=data["starts_at"],
            min_players=data["min_players"],
            max_players=data["max_players"],
            seats_per_table=seats,
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
        sizes = (settings.seats_min or settings.seats_per_table, settings.seats_per_table)
        return {
            **asdict(settings),
            "arena_tables": next((k for k, v in ARENA_TABLES.items() if v == sizes), "3-4"),
            "starts_at": timezone.localtime(settings.starts_at),
            "time_control": time_control_of(settings.base_seconds, settings.increment_seconds),
        }


class ScheduleForm(forms.ModelForm):
    """A recurring tournament: weekdays as boxes to tick, the time control as the tables'
    presets. Valid only if its settings make a valid tournament (``schedule_check``)."""

    weekdays = forms.TypedMultipleChoiceField(
        label=_("Weekdays"),
        choices=[(bit, name) for bit, name in zip(WEEKDAY_BITS, WEEKDAY_NAMES, strict=True)],
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        initial=list(WEEKDAY_BITS),
    )
    time_control = forms.ChoiceField(
        label=_("Time control (minutes per hand + seconds per action)"),
        choices=[(key, key) for key in TIME_PRESETS],
        initial="3+2",
    )
    profile = TournamentForm.base_fields["profile"]
    seats_per_table = TournamentForm.base_fields["seats_per_table"]

    class Meta:
        model = TournamentSchedule
        fields = [
            "name",
            "description",
            "active",
            "weekdays",
            "time_of_day",
            "time_zone",
            "create_ahead_hours",
            "time_control",
            "min_players",
            "max_players",
            "seats_per_table",
            "profile",
            "max_actions",
            "seconds_between_hands",
            "fill_with_bots",
            "bot_level",
        ]
        widgets = {
            "time_of_day": forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
            "description": forms.Textarea(attrs={"rows": 3}),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["weekdays"] = [b for b in WEEKDAY_BITS if self.instance.weekdays & b]

    def clean_weekdays(self) -> int:
        return sum(self.cleaned_data["weekdays"])

    def clean(self) -> dict[str, Any]:
        """The schedule as it would be saved must make valid tournaments
        (``services.schedule_check``), checked on a copy: the form's instance changes only
        when it is valid."""
        cleaned = super().clean()
        if not self.errors:
            candidate = copy.copy(self.instance)
            for name, value in cleaned.items():
                if name in self.Meta.fields:
                    setattr(candidate, name, value)
            try:
                services.schedule_check(candidate, now=timezone.now())
            except Refused as refusal:
                raise forms.ValidationError(refusal.message) from None
        return cleaned
