"""allauth hooks: new accounts start in the language the visitor is reading the site in."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from django.http import HttpRequest
from django.utils import translation

from accounts.models import User


class AccountAdapter(DefaultAccountAdapter):
    def save_user(
        self, request: HttpRequest, user: User, form: object, commit: bool = True
    ) -> User:
        language = translation.get_language() or ""
        if language[:2] in User.Language.values:
            user.language = language[:2]
        return super().save_user(request, user, form, commit=commit)
