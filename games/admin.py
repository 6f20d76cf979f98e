"""The admin of the games app, for moderators: tables, matches and chat, read-only, with the
moderation actions (abort a hand, annul a match, remove a player, hide a chat message).

Each action calls a service of ``accounts.moderation``; nothing here changes a model.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import moderation
from accounts.admin import ModerationActionsMixin
from accounts.forms import RequiredReasonForm
from accounts.models import User
from games import selectors
from games.models import ChatMessage, Match, MatchPlayer, Seat, Table
from games.services import Refused


class HiddenFilter(admin.SimpleListFilter):
    title = _("hidden")
    parameter_name = "hidden"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(hidden_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(hidden_at__isnull=True)
        return queryset


class ReadOnlyAdmin(ModerationActionsMixin, admin.ModelAdmin):
    """Pages to read; changes only through the moderation actions (and the services)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in self.model._meta.fields]

    def has_intervene_permission(self, request: HttpRequest) -> bool:
        return moderation.may(request.user, moderation.PERM_INTERVENE)

    def has_hide_permission(self, request: HttpRequest) -> bool:
        return moderation.may(request.user, moderation.PERM_HIDE_CHAT)


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "author", "table", "text", "is_hidden", "hidden_by")
    list_filter = (HiddenFilter, "created_at")
    list_select_related = ("author", "table", "hidden_by")
    search_fields = ("text", "author__username", "table__name")
    date_hierarchy = "created_at"
    actions = ["hide_messages", "unhide_messages"]

    @admin.display(description=_("hidden"), boolean=True)
    def is_hidden(self, message: ChatMessage) -> bool:
        return message.hidden_at is not None

    @admin.action(description=_("Hide the selected messages"), permissions=["hide"])
    def hide_messages(self, request: HttpRequest, queryset: QuerySet) -> None:
        self.run_on_each(
            request,
            queryset,
            lambda m: moderation.chat_hide(by=request.user, message_id=m.pk),
            lambda n: ngettext("%(n)d message hidden.", "%(n)d messages hidden.", n) % {"n": n},
        )

    @admin.action(description=_("Show the selected messages again"), permissions=["hide"])
    def unhide_messages(self, request: HttpRequest, queryset: QuerySet) -> None:
        self.run_on_each(
            request,
            queryset,
            lambda m: moderation.chat_unhide(by=request.user, message_id=m.pk),
            lambda n: (
                ngettext("%(n)d message shown again.", "%(n)d messages shown again.", n) % {"n": n}
            ),
        )


class ReadOnlyInline(admin.TabularInline):
    """Rows shown under their parent, never added, changed or deleted there."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "user", "bot_level")

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.has_perm("games.view_table")


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


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("name", "owner", "status", "is_public", "created_at")
    list_filter = ("status", "is_public", "created_at")
    list_select_related = ("owner",)
    search_fields = ("name", "owner__username")
    date_hierarchy = "created_at"
    inlines = [SeatInline]
    exclude = ("invite_token",)
    actions = ["abort_hand", "annul_match", "remove_player"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f for f in super().get_readonly_fields(request, obj) if f != "invite_token"]

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
            run=lambda table, form: moderation.hand_abort(
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
            match = selectors.current_match(table)
            if match is None:
                raise Refused(_("No match has been played at this table."))
            moderation.match_annul(by=request.user, match_id=match.pk, reason=_text(form))

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
                moderation.table_remove_player(
                    by=request.user, table_id=table.pk, user_id=player.pk, reason=_text(form)
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


class MatchPlayerInline(ReadOnlyInline):
    model = MatchPlayer
    fields = ("seat", "display_name", "user", "bot_level", "place")


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "table", "status", "started_at", "finished_at")
    list_filter = ("status", "started_at")
    list_select_related = ("table",)
    search_fields = ("table__name", "players__display_name")
    date_hierarchy = "started_at"
    inlines = [MatchPlayerInline]
    actions = ["annul_matches"]

    @admin.action(description=_("Annul the selected matches"), permissions=["intervene"])
    def annul_matches(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self.run_with_form(
            request,
            queryset,
            action="annul_matches",
            title=_("Annul matches"),
            form_class=RequiredReasonForm,
            run=lambda match, form: moderation.match_annul(
                by=request.user, match_id=match.pk, reason=_text(form)
            ),
            done=lambda n: (
                ngettext("%(n)d match annulled.", "%(n)d matches annulled.", n) % {"n": n}
            ),
        )


def _text(form: forms.Form) -> str:
    return form.cleaned_data.get("text", "")
