from __future__ import annotations

from django import forms

from accounts.models import User


class AccountSettingsForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ["language", "sounds_on"]
        widgets = {"language": forms.RadioSelect}
