"""allauth hooks: new accounts start in the language the visitor is reading the site in;
a banned user cannot log in, and is told why and until when; failed logins count
against the account, whichever of its names (username or e-mail) was typed; every
e-mail names the site by its name (SITE_NAME), not by the host the request came to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from django import forms
from django.conf import settings
from django.core.mail import EmailMessage
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

from accounts import login_budget
from accounts.models import User
from accounts.notices import ban_notice


@dataclass(frozen=True)
class NamedSite:
    """What allauth's e-mail templates read as ``current_site``: the site's name, and the
    address it was reached at (without django.contrib.sites allauth gives the host as
    both, so that every e-mail would open "Hello from 127.0.0.1:8150!")."""

    name: str
    domain: str

    def __str__(self) -> str:
        return self.domain


class AccountAdapter(DefaultAccountAdapter):
    def render_mail(
        self,
        template_prefix: str,
        email: str | list[str],
        context: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> EmailMessage:
        """Every allauth e-mail (confirmation, password reset, notifications) greets and
        signs with SITE_NAME; the subject's prefix comes from ACCOUNT_EMAIL_SUBJECT_PREFIX."""
        site = context.get("current_site")
        domain = site.domain if site is not None else ""
        context = {**context, "current_site": NamedSite(name=settings.SITE_NAME, domain=domain)}
        return super().render_mail(template_prefix, email, context, headers=headers)

    def save_user(
        self, request: HttpRequest, user: User, form: object, commit: bool = True
    ) -> User:
        language = translation.get_language() or ""
        if language[:2] in User.Language.values:
            user.language = language[:2]
        return super().save_user(request, user, form, commit=commit)

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        """allauth's per-address limit, then the account's own budget of failed logins
        (accounts.login_budget): its username and its e-mail share one."""
        super().pre_authenticate(request, **credentials)
        if login_budget.exhausted(login_budget.key_for(credentials)):
            raise self.validation_error("too_many_login_attempts")

    def authentication_failed(self, request: HttpRequest, **credentials: Any) -> None:
        login_budget.spend(login_budget.key_for(credentials))

    def authenticate(self, request: HttpRequest, **credentials: Any) -> User | None:
        """The right password of a banned user: the login form says why and until when."""
        user = super().authenticate(request, **credentials)
        if user is not None and user.is_banned():
            raise forms.ValidationError(ban_notice(user), code="banned")
        return user

    def pre_login(self, request: HttpRequest, user: User, **kwargs: Any) -> HttpResponse | None:
        """Every other way in (e-mail confirmation, password reset, a code) stops here."""
        if user.is_banned():
            request.session.flush()  # nothing of the login attempt is kept
            notice = ban_notice(user)
            return render(request, "accounts/notices.html", {"notice": notice}, status=403)
        return super().pre_login(request, user, **kwargs)
