"""The admin of fair play: the user admin of moderation with the fair play actions (warn,
mark for cheating) and, on a user's page, his marks and their appeals.

Every action calls a service of ``fairplay.services``, which checks the permission and
writes the audit entry. moderation registers its user admin first (it is installed
before fair play); this one replaces it, as moderation's replaces accounts'.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.models import User
from core.errors import Refused
from fairplay import selectors, services
from moderation.admin import ModeratedUserAdmin
from moderation.forms import RequiredReasonForm


class FairPlayUserAdmin(ModeratedUserAdmin):
    """Moderation's user admin, and fair play's actions and record of a user."""

    actions = [*ModeratedUserAdmin.actions, "fairplay_warn_users", "fairplay_mark_users"]

    def user_page_context(self, request: HttpRequest, user: User) -> dict[str, Any]:
        return {
            **super().user_page_context(request, user),
            "is_fairplay_marked": user.is_fairplay_marked,
            "fairplay_marks": selectors.user_marks(user),
        }

    @admin.action(description=_("Warn the selected users about fair play"), permissions=["ban"])
    def fairplay_warn_users(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="fairplay_warn_users",
            title=_("Warn about fair play"),
            form_class=RequiredReasonForm,
            run=lambda user, form: services.account_warn(
                by=request.user, user_id=user.pk, reason=form.cleaned_data["text"]
            ),
            done=lambda n: ngettext("%(n)d user warned.", "%(n)d users warned.", n) % {"n": n},
        )

    @admin.action(description=_("Mark the selected users for cheating"), permissions=["ban"])
    def fairplay_mark_users(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        def mark(user: User, form: forms.Form) -> None:
            result = services.account_mark(
                by=request.user, user_id=user.pk, reason=form.cleaned_data["text"]
            )
            if not result.newly_marked:
                raise Refused(_("This account is already marked for breaking fair play."))

        return self.run_with_form(
            request,
            queryset,
            action="fairplay_mark_users",
            title=_("Mark for cheating"),
            form_class=RequiredReasonForm,
            run=mark,
            done=lambda n: (
                ngettext(
                    "%(n)d account marked for cheating: its opponents' rating given back, "
                    "its places taken off the results.",
                    "%(n)d accounts marked for cheating: their opponents' rating given back, "
                    "their places taken off the results.",
                    n,
                )
                % {"n": n}
            ),
        )


admin.site.unregister(User)
admin.site.register(User, FairPlayUserAdmin)
