"""allauth hooks: new accounts start in the language the visitor is reading the site in;
a banned user cannot log in, and is told why and until when."""

from __future__ import annotations

from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from accounts.models import User
from accounts.notices import ban_notice


class AccountAdapter(DefaultAccountAdapter):
    def save_user(
        self, request: HttpRequest, user: User, form: object, commit: bool = True
    ) -> User:
        language = translation.get_language() or ""
        if language[:2] in User.Language.values:
            user.language = language[:2]
        return super().save_user(request, user, form, commit=commit)

    def authenticate(self, request: HttpRequest, **credentials: Any) -> User | None:
        """The right password of a banned user: the login form says why and until when."""
        user = super().authenticate(request, **credentials)
        if user is not None and user.is_banned():
            raise forms.ValidationError(ban_notice(user), code="banned")
        return user

    def pre_login(self, request: HttpRequest, user: User, **kwargs: Any) -> HttpResponse | None:
        """Every other way in (e-mail confirmation, password reset, a code) stops here."""
        if user.is_banned():
            from allauth.account.internal.stagekit import clear_login

            clear_login(request)  # as allauth does for an inactive account
            notice = ban_notice(user)
            return render(request, "accounts/notices.html", {"notice": notice}, status=403)
        return super().pre_login(request, user, **kwargs)
