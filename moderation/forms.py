"""Moderation's forms: a player's report, and the admin's forms of the moderator actions."""

from __future__ import annotations

from datetime import datetime, timedelta

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from moderation.models import Report


class ReportForm(forms.Form):
    """A player's report from the table page: what (hidden), why, and in his own words."""

    user = forms.IntegerField(required=False, widget=forms.HiddenInput)
    message = forms.IntegerField(required=False, widget=forms.HiddenInput)
    table = forms.IntegerField(required=False, widget=forms.HiddenInput)
    reason = forms.ChoiceField(label=_("Reason"), choices=Report.Reason.choices)
    text = forms.CharField(
        label=_("What happened? (optional)"),
        required=False,
        max_length=1000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean(self) -> dict[str, object]:
        data = super().clean()
        if not data.get("user") and not data.get("message"):
            raise forms.ValidationError(_("Choose a player or a message to report."))
        return data


def _duration_choices(*, short: bool) -> list[tuple[str, str]]:
    choices = [
        ("1h", _("1 hour")),
        ("1d", _("1 day")),
        ("7d", _("7 days")),
        ("30d", _("30 days")),
        ("forever", _("for good")),
        ("until", _("until the time below")),
    ]
    return [("10m", _("10 minutes")), *choices] if short else choices


DURATIONS = {
    "10m": timedelta(minutes=10),
    "1h": timedelta(hours=1),
    "1d": timedelta(days=1),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}


class SanctionForm(forms.Form):
    """The admin's form for a ban or a mute: how long, and why (shown to the user)."""

    short = False
    duration = forms.ChoiceField(label=_("Duration"))
    until = forms.DateTimeField(
        label=_("Until"),
        required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )
    reason = forms.CharField(
        label=_("Reason (shown to the user)"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["duration"].choices = _duration_choices(short=self.short)
        self.fields["duration"].initial = "1d"

    def clean(self) -> dict[str, object]:
        data = super().clean()
        duration = data.get("duration")
        if duration == "until":
            if not data.get("until"):
                self.add_error("until", _("Give the time it lasts until."))
            elif data["until"] <= timezone.now():
                self.add_error("until", _("The end must lie in the future."))
        return data

    def until_time(self) -> datetime | None:
        """The end of the sanction (None: for good)."""
        duration = self.cleaned_data["duration"]
        if duration == "forever":
            return None
        if duration == "until":
            return self.cleaned_data["until"]
        return timezone.now() + DURATIONS[duration]


class BanForm(SanctionForm):
    pass


class MuteForm(SanctionForm):
    short = True


class ModerationNoteForm(forms.Form):
    """A reason or the action taken, for admin actions that need no duration."""

    required_text = False
    text = forms.CharField(
        label=_("Reason"), max_length=500, widget=forms.Textarea(attrs={"rows": 2, "cols": 60})
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["text"].required = self.required_text


class RequiredReasonForm(ModerationNoteForm):
    required_text = True


class ResolveReportForm(ModerationNoteForm):
    required_text = True
    text = forms.CharField(
        label=_("Action taken (the reporter is told)"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
    )


class DismissReportForm(ResolveReportForm):
    required_text = False
