from django.contrib import admin

from api.models import AccessToken


@admin.register(AccessToken)
class AccessTokenAdmin(admin.ModelAdmin):
    """Tokens as their owners list them; staff see who holds which, never a token (only
    its hash is stored)."""

    list_display = ("name", "owner", "hint", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "owner__username")
    readonly_fields = (
        "owner",
        "name",
        "scopes",
        "token_hash",
        "hint",
        "created_at",
        "last_used_at",
    )
