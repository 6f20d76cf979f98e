from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from notifications.selectors import mail_kind_choices


class MailChoicesForm(forms.Form):
    mailed = forms.MultipleChoiceField(
        label=_("Send me an e-mail, when no page of the site is open, for"),
        choices=mail_kind_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )
