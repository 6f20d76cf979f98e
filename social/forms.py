"""The challenge form (seats, a named rule profile, a time control, rated or not) and the
preference of who may challenge a user."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.forms import (
    CUSTOM,
    CUSTOM_TIME_FIELDS,
    TIME_CONTROL_LABEL,
    clean_time_control,
    profile_choices,
    rules_link,
    time_and_day_choices,
)
from games.services import MAX_BASE_SECONDS, MAX_INCREMENT_SECONDS, MIN_BASE_SECONDS
from social.models import DeclineReason


def named_profile_choices() -> list[tuple[str, str]]:
    """The table form's rule profiles without "custom": a challenge names a profile."""
    return [(key, label) for key, label in profile_choices() if key != CUSTOM]


class ChallengeForm(forms.Form):
    CUSTOM_TIME_FIELDS = CUSTOM_TIME_FIELDS

    seats = forms.TypedChoiceField(
        label=_("Seats"), choices=[(2, "2"), (3, "3"), (4, "4")], coerce=int, initial=2
    )
    profile = forms.ChoiceField(
        label=_("Rules"),
        choices=named_profile_choices,
        initial="kurnik",
        help_text=rules_link(None),
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
    rated = forms.BooleanField(
        label=_("Rated (the result changes the players' ratings)"), required=False, initial=True
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not self.errors:
            clean_time_control(self, data)
        return data


class PreferencesForm(forms.Form):
    challenges_from_followed_only = forms.BooleanField(
        label=_("Only people I follow may challenge me"), required=False
    )


# Short names of the reasons for the decline menu (a phone's width); the challenger reads
# the whole sentence (``DeclineReason``'s label).
DECLINE_CHOICES = [
    (DeclineReason.GENERIC, _("Not now")),
    (DeclineReason.LATER, _("Later")),
    (DeclineReason.TOO_FAST, _("Too fast")),
    (DeclineReason.TOO_SLOW, _("Too slow")),
    (DeclineReason.RATED, _("Rated only")),
    (DeclineReason.CASUAL, _("Casual only")),
    (DeclineReason.RULES, _("Not these rules")),
    (DeclineReason.SEATS, _("Not this many seats")),
    (DeclineReason.NO_BOT, _("No bots")),
    (DeclineReason.ONLY_BOT, _("Bots only")),
]


class DeclineForm(forms.Form):
    reason = forms.ChoiceField(
        label=_("Reason"), choices=DECLINE_CHOICES, initial=DeclineReason.GENERIC
    )
