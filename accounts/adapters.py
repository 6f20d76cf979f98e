"""allauth hooks: new accounts start in the language the visitor is reading the site in;
a banned user cannot log in, and is told why and until when; failed logins count
against the account, whichever of its names (username or e-mail) was typed; every
e-mail names the site by its name (SITE_NAME), not by the host the request came to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.utils import filter_users_by_email, filter_users_by_username
from django import forms
from django.conf import settings
from django.core.mail import EmailMessage
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation

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

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        """The key of allauth's "login_failed" limit (per key: 5 in 5 minutes): the account
        the login names, so that its username and its e-mail share one budget of guesses.
        A login that names no account counts on its own. Also the key a password reset
        clears (allauth 65.21.1 calls this hook from both; tests pin the behaviour)."""
        user = _account_named_by(credentials)
        if user is None:
            return super()._get_login_attempts_cache_key(request, **credentials)
        return f"account:{user.pk}"  # not per host name either, unlike allauth's key

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


def _account_named_by(credentials: dict[str, Any]) -> User | None:
    """The one account whose e-mail address or username the login names, if any."""
    if credentials.get("email"):
        users = {user.pk: user for user in filter_users_by_email(credentials["email"])}
    elif credentials.get("username"):
        users = {user.pk: user for user in filter_users_by_username(credentials["username"])}
    else:
        return None
    return next(iter(users.values())) if len(users) == 1 else None
