"""The admin of accounts: users, their preferences and their ban and mute state.

Only superusers change staff accounts, flags, groups and permissions. The moderation
actions on users (ban, mute, log out everywhere) and a user's moderation page are
moderation's: ``moderation.admin`` registers a subclass of :class:`UserAdmin` with them.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from accounts.notices import is_permanent

MODERATION_FIELDS = ("banned_until", "ban_reason", "muted_until", "mute_reason")
SUPERUSER_ONLY_FIELDS = ("is_staff", "is_superuser", "groups", "user_permissions")


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
class UserAdmin(DjangoUserAdmin):
    """Users, their preferences and their ban and mute state (read-only here: moderation's
    actions change it). Moderation registers its subclass, with those actions, instead."""

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

    # The list ----------------------------------------------------------------------------------

    @admin.display(description=_("banned until"), ordering="banned_until")
    def ban_state(self, user: User) -> str:
        return _until_text(user.banned_until) if user.is_banned() else "–"

    @admin.display(description=_("muted until"), ordering="muted_until")
    def mute_state(self, user: User) -> str:
        return _until_text(user.muted_until) if user.is_muted() else "–"


def _until_text(until: Any) -> str:
    if is_permanent(until):
        return str(_("for good"))
    return timezone.localtime(until).strftime("%Y-%m-%d %H:%M")
