from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from api.models import Scope
from api.services import TOKEN_NAME_MAX


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Name"),
        max_length=TOKEN_NAME_MAX,
        help_text=_("What the token is for, e.g. the name of your bot's program."),
    )
    scopes = forms.MultipleChoiceField(
        label=_("Scopes"),
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("What a program holding the token may do."),
    )
