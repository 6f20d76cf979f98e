"""The admin of accounts and moderation: users, the report queue, the audit log.

Moderators (the ``Moderators`` group) work here: they find users, ban, mute and log
them out, handle reports and read the audit log. Every moderation action calls a
service of ``accounts.moderation``, which checks the permission, writes the audit
entry and sends the events; nothing here changes a model itself. Only superusers
change staff accounts, flags, groups and permissions; nobody changes the audit log.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import moderation, selectors
from accounts.forms import (
    BanForm,
    DismissReportForm,
    ModerationNoteForm,
    MuteForm,
    ResolveReportForm,
)
from accounts.models import AuditLog, Report, User
from accounts.notices import is_permanent
from core.errors import Refused

MODERATION_FIELDS = ("banned_until", "ban_reason", "muted_until", "mute_reason")
SUPERUSER_ONLY_FIELDS = ("is_staff", "is_superuser", "groups", "user_permissions")


# --- actions that call a moderation service ----------------------------------------------------


class ModerationActionsMixin:
    """Run a moderation service on each selected object, with an intermediate form page
    (reason, duration) where the action needs one. Refusals are listed, not raised."""

    action_form_template = "admin/accounts/moderation_action.html"

    def run_on_each(
        self,
        request: HttpRequest,
        objects: Iterable[Model],
        run: Callable[[Any], object],
        done: Callable[[int], str],
    ) -> None:
        count = 0
        for obj in objects:
            try:
                run(obj)
            except Refused as refusal:
                self.message_user(request, f"{obj}: {refusal.message}", messages.ERROR)
            except PermissionDenied as denied:
                self.message_user(request, f"{obj}: {denied}", messages.ERROR)
            else:
                count += 1
        if count:
            self.message_user(request, done(count), messages.SUCCESS)

    def run_with_form(
        self,
        request: HttpRequest,
        queryset: QuerySet,
        *,
        action: str,
        title: str,
        form_class: type[forms.Form],
        run: Callable[[Any, Any], object],
        done: Callable[[int], str],
    ) -> HttpResponse | None:
        """The form page first; once it is valid, the service on every object."""
        if request.POST.get("apply"):
            form = form_class(request.POST)
            if form.is_valid():
                self.run_on_each(request, queryset, lambda obj: run(obj, form), done)
                return None
        else:
            form = form_class()
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "objects": queryset,
            "form": form,
            "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "opts": self.model._meta,
            "media": self.media + form.media,
        }
        return TemplateResponse(request, self.action_form_template, context)


def _note(form: forms.Form) -> str:
    return form.cleaned_data.get("text", "")


# --- users -------------------------------------------------------------------------------------


class BannedFilter(admin.SimpleListFilter):
    title = _("banned")
    parameter_name = "banned"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        now = timezone.now()
        if self.value() == "yes":
            return queryset.filter(banned_until__gt=now)
        if self.value() == "no":
            return queryset.exclude(banned_until__gt=now)
        return queryset


class MutedFilter(admin.SimpleListFilter):
    title = _("muted")
    parameter_name = "muted"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        now = timezone.now()
        if self.value() == "yes":
            return queryset.filter(muted_until__gt=now)
        if self.value() == "no":
            return queryset.exclude(muted_until__gt=now)
        return queryset


class RecentlyJoinedFilter(admin.SimpleListFilter):
    title = _("recently joined")
    parameter_name = "joined"
    PERIODS = {"1d": timedelta(days=1), "7d": timedelta(days=7), "30d": timedelta(days=30)}

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [
            ("1d", _("in the last day")),
            ("7d", _("in the last 7 days")),
            ("30d", _("in the last 30 days")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        period = self.PERIODS.get(self.value() or "")
        if period is None:
            return queryset
        return queryset.filter(date_joined__gte=timezone.now() - period)


@admin.register(User)
class UserAdmin(ModerationActionsMixin, DjangoUserAdmin):
    change_form_template = "admin/accounts/user/change_form.html"
    list_display = (
        "username",
        "email",
        "date_joined",
        "is_staff",
        "ban_state",
        "mute_state",
    )
    list_filter = (
        BannedFilter,
        MutedFilter,
        "is_staff",
        RecentlyJoinedFilter,
        "is_superuser",
        "is_active",
        "groups",
    )
    search_fields = ("username", "email", "first_name", "last_name", "ban_reason", "mute_reason")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Preferences"), {"fields": ("language",)}),
        (_("Moderation"), {"fields": MODERATION_FIELDS}),
    )
    actions = ["ban_users", "unban_users", "mute_users", "unmute_users", "logout_everywhere"]

    # Who may do what -------------------------------------------------------------------------

    def get_readonly_fields(self, request: HttpRequest, obj: User | None = None) -> tuple:
        # Bans and mutes change only through the actions, which end sessions and log them.
        fields = (*super().get_readonly_fields(request, obj), *MODERATION_FIELDS)
        if not request.user.is_superuser:
            fields = (*fields, *SUPERUSER_ONLY_FIELDS)
        return fields

    def _is_protected(self, request: HttpRequest, obj: User | None) -> bool:
        """Another staff account, seen by someone who is not a superuser."""
        return (
            obj is not None
            and not request.user.is_superuser
            and obj.pk != request.user.pk
            and (obj.is_staff or obj.is_superuser)
        )

    def has_change_permission(self, request: HttpRequest, obj: User | None = None) -> bool:
        if self._is_protected(request, obj):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: User | None = None) -> bool:
        if self._is_protected(request, obj):
            return False
        return super().has_delete_permission(request, obj)

    def has_ban_permission(self, request: HttpRequest) -> bool:
        return moderation.may(request.user, moderation.PERM_BAN)

    def has_mute_permission(self, request: HttpRequest) -> bool:
        return moderation.may(request.user, moderation.PERM_MUTE)

    # The list ----------------------------------------------------------------------------------

    @admin.display(description=_("banned until"), ordering="banned_until")
    def ban_state(self, user: User) -> str:
        return _until_text(user.banned_until) if user.is_banned() else "–"

    @admin.display(description=_("muted until"), ordering="muted_until")
    def mute_state(self, user: User) -> str:
        return _until_text(user.muted_until) if user.is_muted() else "–"

    # The change page: his matches, reports, chat and audit entries ---------------------------

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        user = self.get_object(request, unquote(object_id))
        if user is not None:
            extra_context = {
                **(extra_context or {}),
                "moderation": selectors.user_moderation_summary(user),
                "may_ban": self.has_ban_permission(request),
                "may_mute": self.has_mute_permission(request),
                "is_banned": user.is_banned(),
                "is_muted": user.is_muted(),
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            }
        return super().change_view(request, object_id, form_url, extra_context)

    # Actions -------------------------------------------------------------------------------------

    @admin.action(description=_("Ban the selected users"), permissions=["ban"])
    def ban_users(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="ban_users",
            title=_("Ban users"),
            form_class=BanForm,
            run=lambda user, form: moderation.user_ban(
                by=request.user,
                user_id=user.pk,
                reason=form.cleaned_data["reason"],
                until=form.until_time(),
            ),
            done=lambda n: ngettext("%(n)d user banned.", "%(n)d users banned.", n) % {"n": n},
        )

    @admin.action(description=_("Lift the ban of the selected users"), permissions=["ban"])
    def unban_users(self, request: HttpRequest, queryset: QuerySet) -> None:
        self.run_on_each(
            request,
            queryset,
            lambda user: moderation.user_unban(by=request.user, user_id=user.pk),
            lambda n: ngettext("%(n)d user unbanned.", "%(n)d users unbanned.", n) % {"n": n},
        )

    @admin.action(description=_("Mute the selected users in the chat"), permissions=["mute"])
    def mute_users(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="mute_users",
            title=_("Mute users in the chat"),
            form_class=MuteForm,
            run=lambda user, form: moderation.user_mute(
                by=request.user,
                user_id=user.pk,
                reason=form.cleaned_data["reason"],
                until=form.until_time(),
            ),
            done=lambda n: ngettext("%(n)d user muted.", "%(n)d users muted.", n) % {"n": n},
        )

    @admin.action(description=_("Lift the mute of the selected users"), permissions=["mute"])
    def unmute_users(self, request: HttpRequest, queryset: QuerySet) -> None:
        self.run_on_each(
            request,
            queryset,
            lambda user: moderation.user_unmute(by=request.user, user_id=user.pk),
            lambda n: ngettext("%(n)d user unmuted.", "%(n)d users unmuted.", n) % {"n": n},
        )

    @admin.action(description=_("Log the selected users out everywhere"), permissions=["ban"])
    def logout_everywhere(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="logout_everywhere",
            title=_("Log users out everywhere"),
            form_class=ModerationNoteForm,
            run=lambda user, form: moderation.user_logout_everywhere(
                by=request.user, user_id=user.pk, reason=_note(form)
            ),
            done=lambda n: (
                ngettext(
                    "%(n)d user logged out everywhere.", "%(n)d users logged out everywhere.", n
                )
                % {"n": n}
            ),
        )


def _until_text(until: Any) -> str:
    if is_permanent(until):
        return str(_("for good"))
    return timezone.localtime(until).strftime("%Y-%m-%d %H:%M")


# --- reports -----------------------------------------------------------------------------------


class ReportStatusFilter(admin.SimpleListFilter):
    """The queue opens on the open reports."""

    title = _("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [*Report.Status.choices, ("all", _("All"))]

    def choices(self, changelist: Any) -> Iterable[dict[str, Any]]:
        for value, title in self.lookup_choices:
            yield {
                "selected": (self.value() or Report.Status.OPEN) == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value() or Report.Status.OPEN
        return queryset if value == "all" else queryset.filter(status=value)


@admin.register(Report)
class ReportAdmin(ModerationActionsMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "created_at",
        "reported_user",
        "reason",
        "short_text",
        "reporter",
        "status",
        "handled_by",
        "action_taken",
    )
    list_display_links = ("id", "created_at")
    list_filter = (ReportStatusFilter, "reason", "created_at")
    list_select_related = ("reporter", "reported_user", "handled_by")
    search_fields = ("reported_user__username", "reporter__username", "text", "action_taken")
    ordering = ("created_at",)
    fields = (
        "reported_user",
        "reporter",
        "reason",
        "text",
        "table",
        "chat_message_text",
        "created_at",
        "status",
        "action_taken",
        "handled_by",
        "handled_at",
        "reporter_notified_at",
    )
    readonly_fields = fields
    actions = ["resolve_reports", "dismiss_reports"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players report from the table page

    def has_change_permission(self, request: HttpRequest, obj: Report | None = None) -> bool:
        # A report changes only through the actions (they write the audit log): its
        # page is for reading, the permission is for the actions on the list.
        return obj is None and super().has_change_permission(request)

    @admin.display(description=_("details"))
    def short_text(self, report: Report) -> str:
        return report.text[:80]

    @admin.display(description=_("chat message"))
    def chat_message_text(self, report: Report) -> str:
        return report.chat_message.text if report.chat_message else "–"

    @admin.action(description=_("Resolve the selected reports"), permissions=["change"])
    def resolve_reports(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="resolve_reports",
            title=_("Resolve reports"),
            form_class=ResolveReportForm,
            run=lambda report, form: moderation.report_resolve(
                by=request.user, report_id=report.pk, action_taken=_note(form)
            ),
            done=lambda n: (
                ngettext("%(n)d report resolved.", "%(n)d reports resolved.", n) % {"n": n}
            ),
        )

    @admin.action(description=_("Dismiss the selected reports"), permissions=["change"])
    def dismiss_reports(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="dismiss_reports",
            title=_("Dismiss reports"),
            form_class=DismissReportForm,
            run=lambda report, form: moderation.report_dismiss(
                by=request.user, report_id=report.pk, action_taken=_note(form)
            ),
            done=lambda n: (
                ngettext("%(n)d report dismissed.", "%(n)d reports dismissed.", n) % {"n": n}
            ),
        )


# --- the audit log -----------------------------------------------------------------------------


class ActorFilter(admin.SimpleListFilter):
    title = _("done by")
    parameter_name = "by"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [("people", _("moderators")), ("system", _("the site (automatic)"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "people":
            return queryset.filter(actor__isnull=False)
        if self.value() == "system":
            return queryset.filter(actor__isnull=True)
        return queryset


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    """Read-only for everyone, superusers too: the log is never edited or deleted."""

    list_display = ("created_at", "actor_name", "action", "target_user", "table", "reason")
    list_filter = ("action", ActorFilter, "created_at")
    list_select_related = ("actor", "target_user", "table")
    search_fields = ("actor__username", "target_user__username", "reason")
    date_hierarchy = "created_at"
    fields = ("created_at", "actor_name", "action", "target_user", "table", "reason", "details")
    readonly_fields = fields

    @admin.display(description=_("moderator"), ordering="actor__username")
    def actor_name(self, entry: AuditLog) -> str:
        return entry.actor.username if entry.actor else str(_("the site (automatic)"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AuditLog | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: AuditLog | None = None) -> bool:
        return False
