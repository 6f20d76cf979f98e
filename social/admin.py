"""The admin of follows and challenges: pages to read (every change goes through the
services)."""

from __future__ import annotations

from django.contrib import admin

from games.admin import ReadOnlyAdmin
from social.models import Challenge, Follow


@admin.register(Challenge)
class ChallengeAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "challenger",
        "challenged",
        "seats",
        "profile",
        "base_seconds",
        "increment_seconds",
        "status",
        "decline_reason",
        "table",
    )
    list_filter = ("status", "seats", "profile", "created_at")
    list_select_related = ("challenger", "challenged", "table__owner")
    search_fields = ("challenger__username", "challenged__username")
    date_hierarchy = "created_at"


@admin.register(Follow)
class FollowAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "follower", "followed")
    list_select_related = ("follower", "followed")
    search_fields = ("follower__username", "followed__username")
