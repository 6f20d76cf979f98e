"""The admin of moderation: the report queue, the audit log, and the moderator actions on
users (ban, mute, log out everywhere), chat (hide), tables and matches (abort a hand,
annul a match, remove a player).

Moderators (the ``Moderators`` group) work here. Every action calls a service of
``moderation.services``, which checks the permission, writes the audit entry and sends the
events; nothing here changes a model itself. Nobody changes the audit log. The admins of
users, chat, tables and matches are accounts' and games' own, registered again here as
subclasses that carry the actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any, NamedTuple

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import admin as accounts_admin
from accounts.models import User
from accounts.permissions import PERM_BAN, PERM_HIDE_CHAT, PERM_INTERVENE, PERM_MUTE, may
from core.errors import Refused
from games import admin as games_admin
from games import selectors as games_selectors
from games.models import ChatMessage, Match, Seat, Table
from moderation import selectors, services
from moderation.forms import (
    BanForm,
    DismissReportForm,
    ModerationNoteForm,
    MuteForm,
    RequiredReasonForm,
    ResolveReportForm,
)
from moderation.models import AuditLog, Report

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
        each: Callable[[QuerySet], Iterable[Any]] | None = None,
    ) -> HttpResponse | None:
        """The form page first; once it is valid, the service on every object (on every
        item ``each`` makes of them, if given)."""
        if request.POST.get("apply"):
            form = form_class(request.POST)
            if form.is_valid():
                items = each(queryset) if each is not None else queryset
                self.run_on_each(request, items, lambda obj: run(obj, form), done)
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


class UserPair(NamedTuple):
    """Two of the selected users, as an action on pairs takes them."""

    user: User
    other: User

    def __str__(self) -> str:
        return f"{self.user} & {self.other}"


def _pairs(users: QuerySet) -> list[UserPair]:
    return [UserPair(*pair) for pair in combinations(users.order_by("pk"), 2)]


class ModeratedUserAdmin(ModerationActionsMixin, accounts_admin.UserAdmin):
    """The user admin with moderation: ban, mute, log out everywhere, allow linked
    accounts to play together, and a user's page showing his matches, reports, chat,
    audit entries and the accounts sharing his device or connection."""

    change_form_template = "admin/accounts/user/change_form.html"
    actions = [
        "ban_users",
        "unban_users",
        "mute_users",
        "unmute_users",
        "logout_everywhere",
        "allow_pairs",
        "disallow_pairs",
    ]

    def has_ban_permission(self, request: HttpRequest) -> bool:
        return may(request.user, PERM_BAN)

    def has_mute_permission(self, request: HttpRequest) -> bool:
        return may(request.user, PERM_MUTE)

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
            extra_context = {**(extra_context or {}), **self.user_page_context(request, user)}
        return super().change_view(request, object_id, form_url, extra_context)

    def user_page_context(self, request: HttpRequest, user: User) -> dict[str, Any]:
        """What a user's page shows beside his fields (the floors above add theirs)."""
        return {
            "moderation": selectors.user_moderation_summary(user),
            "may_ban": self.has_ban_permission(request),
            "may_mute": self.has_mute_permission(request),
            "is_banned": user.is_banned(),
            "is_muted": user.is_muted(),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }

    # Actions -------------------------------------------------------------------------------------

    @admin.action(description=_("Ban the selected users"), permissions=["ban"])
    def ban_users(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="ban_users",
            title=_("Ban users"),
            form_class=BanForm,
            run=lambda user, form: services.user_ban(
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
            lambda user: services.user_unban(by=request.user, user_id=user.pk),
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
            run=lambda user, form: services.user_mute(
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
            lambda user: services.user_unmute(by=request.user, user_id=user.pk),
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
            run=lambda user, form: services.user_logout_everywhere(
                by=request.user, user_id=user.pk, reason=_note(form)
            ),
            done=lambda n: (
                ngettext(
                    "%(n)d user logged out everywhere.", "%(n)d users logged out everywhere.", n
                )
                % {"n": n}
            ),
        )

    @admin.action(
        description=_("Allow the selected users to play together (linked accounts)"),
        permissions=["ban"],
    )
    def allow_pairs(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        if queryset.count() < 2:
            self.message_user(request, _("Select two accounts or more."), messages.ERROR)
            return None
        return self.run_with_form(
            request,
            queryset,
            action="allow_pairs",
            title=_("Allow linked accounts to play together"),
            form_class=RequiredReasonForm,
            run=lambda pair, form: services.user_pair_allow(
                by=request.user,
                user_id=pair.user.pk,
                other_id=pair.other.pk,
                reason=form.cleaned_data["text"],
            ),
            done=lambda n: (
                ngettext(
                    "%(n)d pair allowed to play together.",
                    "%(n)d pairs allowed to play together.",
                    n,
                )
                % {"n": n}
            ),
            each=_pairs,
        )

    @admin.action(
        description=_("Keep the selected users apart again (linked accounts)"),
        permissions=["ban"],
    )
    def disallow_pairs(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        if queryset.count() < 2:
            self.message_user(request, _("Select two accounts or more."), messages.ERROR)
            return None
        return self.run_with_form(
            request,
            queryset,
            action="disallow_pairs",
            title=_("Keep linked accounts apart again"),
            form_class=ModerationNoteForm,
            run=lambda pair, form: services.user_pair_disallow(
                by=request.user, user_id=pair.user.pk, other_id=pair.other.pk, reason=_note(form)
            ),
            done=lambda n: (
                ngettext("%(n)d pair kept apart again.", "%(n)d pairs kept apart again.", n)
                % {"n": n}
            ),
            each=_pairs,
        )


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
            run=lambda report, form: services.report_resolve(
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
            run=lambda report, form: services.report_dismiss(
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
    list_select_related = ("actor", "target_user", "table__owner")
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


# --- games: chat, tables, matches ------------------------------------------------------------


class GamesModerationMixin(ModerationActionsMixin):
    """The moderation actions on games' read-only admins, and who may take them."""

    def has_intervene_permission(self, request: HttpRequest) -> bool:
        return may(request.user, PERM_INTERVENE)

    def has_hide_permission(self, request: HttpRequest) -> bool:
        return may(request.user, PERM_HIDE_CHAT)


class ModeratedChatMessageAdmin(GamesModerationMixin, games_admin.ChatMessageAdmin):
    actions = ["hide_messages", "unhide_messages"]

    @admin.action(description=_("Hide the selected messages"), permissions=["hide"])
    def hide_messages(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        # The admin is away from the table: the audit log must say why it was hidden.
        return self.run_with_form(
            request,
            queryset,
            action="hide_messages",
            title=_("Hide chat messages"),
            form_class=RequiredReasonForm,
            run=lambda message, form: services.chat_hide(
                by=request.user, message_id=message.pk, reason=form.cleaned_data["text"]
            ),
            done=lambda n: (
                ngettext("%(n)d message hidden.", "%(n)d messages hidden.", n) % {"n": n}
            ),
        )

    @admin.action(description=_("Show the selected messages again"), permissions=["hide"])
    def unhide_messages(self, request: HttpRequest, queryset: QuerySet) -> None:
        self.run_on_each(
            request,
            queryset,
            lambda m: services.chat_unhide(by=request.user, message_id=m.pk),
            lambda n: (
                ngettext("%(n)d message shown again.", "%(n)d messages shown again.", n) % {"n": n}
            ),
        )


class RemovePlayerForm(RequiredReasonForm):
    """Whom to take out of his seat (one of the players seated at the selected tables)."""

    player = forms.ModelChoiceField(label=_("Player"), queryset=User.objects.none())
    field_order = ["player", "text"]

    def __init__(self, *args: Any, tables: QuerySet | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if tables is not None:
            self.fields["player"].queryset = User.objects.filter(
                pk__in=Seat.objects.filter(table__in=tables).values("user")
            ).order_by("username")


class ModeratedTableAdmin(GamesModerationMixin, games_admin.TableAdmin):
    actions = ["abort_hand", "annul_match", "remove_player"]

    @admin.action(
        description=_("Abort the hand in play (no letter) at the selected tables"),
        permissions=["intervene"],
    )
    def abort_hand(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="abort_hand",
            title=_("Abort the hand in play"),
            form_class=RequiredReasonForm,
            run=lambda table, form: services.hand_abort(
                by=request.user, table_id=table.pk, reason=form.cleaned_data["text"]
            ),
            done=lambda n: ngettext("%(n)d hand aborted.", "%(n)d hands aborted.", n) % {"n": n},
        )

    @admin.action(
        description=_("Annul the current match of the selected tables"),
        permissions=["intervene"],
    )
    def annul_match(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        def run(table: Table, form: forms.Form) -> None:
            match = games_selectors.current_match(table)
            if match is None:
                raise Refused(_("No match has been played at this table."))
            services.match_annul(by=request.user, match_id=match.pk, reason=_note(form))

        return self.run_with_form(
            request,
            queryset,
            action="annul_match",
            title=_("Annul the current match"),
            form_class=RequiredReasonForm,
            run=run,
            done=lambda n: (
                ngettext("%(n)d match annulled.", "%(n)d matches annulled.", n) % {"n": n}
            ),
        )

    @admin.action(
        description=_("Remove a player from the selected tables"), permissions=["intervene"]
    )
    def remove_player(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        tables = queryset

        class Form(RemovePlayerForm):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, tables=tables, **kwargs)

        def run(table: Table, form: forms.Form) -> None:
            player = form.cleaned_data["player"]
            if table.seats.filter(user=player).exists():
                services.table_remove_player(
                    by=request.user, table_id=table.pk, user_id=player.pk, reason=_note(form)
                )

        return self.run_with_form(
            request,
            queryset,
            action="remove_player",
            title=_("Remove a player from the table"),
            form_class=Form,
            run=run,
            done=lambda n: ngettext("Done at %(n)d table.", "Done at %(n)d tables.", n) % {"n": n},
        )


class ModeratedMatchAdmin(GamesModerationMixin, games_admin.MatchAdmin):
    actions = ["annul_matches"]

    @admin.action(description=_("Annul the selected matches"), permissions=["intervene"])
    def annul_matches(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="annul_matches",
            title=_("Annul matches"),
            form_class=RequiredReasonForm,
            run=lambda match, form: services.match_annul(
                by=request.user, match_id=match.pk, reason=_note(form)
            ),
            done=lambda n: (
                ngettext("%(n)d match annulled.", "%(n)d matches annulled.", n) % {"n": n}
            ),
        )


# --- the admins of accounts and games, with the actions ------------------------------------
# accounts and games register plain admins; these replace them (moderation is installed
# after both, so their admin modules have run). fairplay, above, extends the user admin
# the same way.

for model, model_admin in (
    (User, ModeratedUserAdmin),
    (ChatMessage, ModeratedChatMessageAdmin),
    (Table, ModeratedTableAdmin),
    (Match, ModeratedMatchAdmin),
):
    admin.site.unregister(model)
    admin.site.register(model, model_admin)
