"""The admin of the games app, for moderators: tables, matches and chat, read-only.

The moderation actions (abort a hand, annul a match, remove a player, hide a chat message)
are moderation's: ``moderation.admin`` registers these admins again with them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from games.models import ChatMessage, Match, MatchPlayer, Seat, Table


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


class ReadOnlyAdmin(admin.ModelAdmin):
    """Pages to read; changes only through the moderation actions (and the services)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in self.model._meta.fields]


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "author", "table", "text", "is_hidden", "hidden_by")
    list_filter = (HiddenFilter, "created_at")
    list_select_related = ("author", "table__owner", "hidden_by")
    search_fields = ("text", "author__username", "table__name")
    date_hierarchy = "created_at"

    @admin.display(description=_("hidden"), boolean=True)
    def is_hidden(self, message: ChatMessage) -> bool:
        return message.hidden_at is not None


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


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ("title", "owner", "status", "is_public", "created_at")
    list_filter = ("status", "is_public", "created_at")
    list_select_related = ("owner",)
    search_fields = ("name", "owner__username")
    date_hierarchy = "created_at"
    inlines = [SeatInline]
    exclude = ("invite_token",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f for f in super().get_readonly_fields(request, obj) if f != "invite_token"]

    @admin.display(description=_("name"), ordering="name")
    def title(self, table: Table) -> str:
        """The name a reader sees (a table its owner did not name is "ola's table")."""
        return table.title


class MatchPlayerInline(ReadOnlyInline):
    model = MatchPlayer
    fields = ("seat", "display_name", "user", "bot_level", "place")


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "table", "status", "started_at", "finished_at")
    list_filter = ("status", "started_at")
    list_select_related = ("table__owner",)
    search_fields = ("table__name", "players__display_name")
    date_hierarchy = "started_at"
    inlines = [MatchPlayerInline]
