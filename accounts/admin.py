from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.utils.translation import gettext_lazy as _

from accounts.models import User


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ("username", "email", "date_joined", "is_staff", "banned_until", "muted_until")
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (_("Preferences"), {"fields": ("language",)}),
        (
            _("Moderation"),
            {"fields": ("banned_until", "ban_reason", "muted_until", "mute_reason")},
        ),
    )
