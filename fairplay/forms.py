"""Fair play's forms: a marked player's appeal, and a moderator's decision on it."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from fairplay.services import APPEAL_MAX


class AppealForm(forms.Form):
    """A marked player's one answer to his mark."""

    text = forms.CharField(
        label=_("Your appeal: why the mark is wrong"),
        max_length=APPEAL_MAX,
        widget=forms.Textarea(attrs={"rows": 6}),
    )


class AppealDecideForm(forms.Form):
    """A moderator's decision on an appeal: the mark stays or is lifted, and why (the
    player is told)."""

    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[("uphold", _("The mark stays")), ("lift", _("Lift the mark"))],
    )
    reason = forms.CharField(
        label=_("Reason (shown to the player)"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
